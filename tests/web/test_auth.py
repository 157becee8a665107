"""Organiser and host logins: hashed passwords, CSRF on the form, rate-limited, safe redirects."""
from tests.conftest import csrf_token, login


def test_login_page_renders(client):
    page = client.get("/login")
    assert page.status_code == 200 and b'name="password"' in page.data


def test_wrong_password_is_refused_with_a_clear_message(client, organiser):
    response = login(client, "organiser", "wrong")
    assert response.status_code == 401 and b"do not match" in response.data
    assert client.get("/organiser/").status_code == 302


def test_login_without_csrf_token_is_refused(client, organiser):
    response = client.post("/login", data={"username": "organiser", "password": "pw-organiser"})
    assert response.status_code == 400
    assert client.get("/organiser/").status_code == 302


def test_login_and_logout(client, organiser):
    response = login(client, "organiser", "pw-organiser")
    assert response.status_code == 302 and response.headers["Location"] == "/organiser/"
    token = csrf_token(client, "/")
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert client.get("/organiser/").status_code == 302


def test_logout_needs_csrf(client, organiser):
    login(client, "organiser", "pw-organiser")
    assert client.post("/logout").status_code == 400
    assert client.get("/organiser/").status_code == 302  # still logged in: redirected to the month


def test_next_only_redirects_within_the_site(client, organiser):
    token = csrf_token(client)
    ok = client.post("/login?next=/host/", data={"username": "organiser", "password": "pw-organiser",
                                                  "csrf_token": token})
    assert ok.headers["Location"] == "/host/"
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    evil = client.post("/login?next=https://evil.example/", data={
        "username": "organiser", "password": "pw-organiser", "csrf_token": csrf_token(client)})
    assert evil.headers["Location"] == "/organiser/"


def test_login_is_rate_limited(client, organiser):
    token = csrf_token(client)
    codes = [client.post("/login", data={"username": "organiser", "password": "no", "csrf_token": token}).status_code
             for _ in range(11)]
    assert codes[:10] == [401] * 10 and codes[10] == 429
    # even the right password waits out the limit
    assert client.post("/login", data={"username": "organiser", "password": "pw-organiser",
                                       "csrf_token": token}).status_code == 429
