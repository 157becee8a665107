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


def test_production_hashes_passwords_with_scrypt_and_any_stored_method_still_logs_in(tmp_path, client, organiser):
    """The hash method is a setting: scrypt unless configured (the tests' own is cheap); a login
    checks a stored hash by the method it names, so changing the setting locks nobody out."""
    from app import create_app
    from services.models import User
    from wiring.extensions import db
    production = create_app({"TESTING": True, "SECRET_KEY": "x",
                             "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'other.db'}"})
    assert production.config["PASSWORD_HASH_METHOD"] == "scrypt"
    with production.app_context():
        user = User(username="x", display_name="X", role="host", league_id=1)
        user.set_password("pw")
        assert user.password_hash.startswith("scrypt:") and user.check_password("pw")
        scrypt_hash = user.password_hash
    assert organiser.password_hash.startswith("pbkdf2:sha256:1$")
    organiser.password_hash = scrypt_hash
    db.session.commit()
    assert login(client, "organiser", "pw").status_code == 302
