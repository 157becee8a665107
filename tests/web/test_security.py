"""Logins that can be revoked, the security headers, per-account login limits, and who may move a
member's card to a new phone."""
import pytest

from services.models import User
from tests.conftest import csrf_token, login
from tests.fixtures.phones import CODE_RE, claim, join
from tests.fixtures.rows import member
from wiring.extensions import db
from wiring.security import WORKER_POLICY

pytestmark = pytest.mark.both_databases(
    "logins and revocable session tokens are found by the database's own string comparison")


def _remember_cookie(client) -> str:
    cookie = client.get_cookie("remember_token")
    assert cookie is not None
    return cookie.value


def _with_cookie(app, value: str):
    """A fresh browser holding only this remember-me cookie (no session)."""
    other = app.test_client()
    other.set_cookie("remember_token", value)
    return other


def _logged_in(browser) -> bool:
    """The organiser's pages open (they redirect to the month) rather than sending to the login."""
    response = browser.get("/organiser/")
    return response.status_code in (200, 302) and "/login" not in response.headers.get("Location", "")


def test_remember_cookie_names_a_token_not_the_row_id(client, organiser):
    login(client, "organiser", "pw-organiser")
    value = _remember_cookie(client)
    assert value.split("|")[0] == organiser.session_token and value.split("|")[0] != str(organiser.id)


def test_remember_cookie_logs_in_until_logout_then_never(app, client, organiser):
    login(client, "organiser", "pw-organiser")
    stolen = _remember_cookie(client)
    assert _logged_in(_with_cookie(app, stolen))
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    assert not _logged_in(_with_cookie(app, stolen))
    # and the next login's cookie is a different one
    login(client, "organiser", "pw-organiser")
    assert _remember_cookie(client) != stolen


def test_logout_ends_the_other_devices_sessions_too(app, client, organiser):
    login(client, "organiser", "pw-organiser")
    laptop = app.test_client()
    login(laptop, "organiser", "pw-organiser")
    assert _logged_in(laptop)
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    assert not _logged_in(laptop)


def test_remember_cookie_refused_after_a_password_change(app, client, organiser):
    login(client, "organiser", "pw-organiser")
    stolen = _remember_cookie(client)
    user = db.session.scalar(db.select(User).where(User.username == "organiser"))
    user.set_password("a-new-password")
    db.session.commit()
    assert not _logged_in(_with_cookie(app, stolen))
    assert not _logged_in(client)


def test_an_old_id_based_cookie_loads_no_one(app, organiser):
    assert not _logged_in(_with_cookie(app, f"{organiser.id}|forged"))


def test_every_page_carries_the_security_headers(client):
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert "Strict-Transport-Security" not in response.headers  # plain HTTP: no HSTS


def test_the_play_pages_keep_their_stricter_referrer_policy(client):
    assert client.get("/me").headers["Referrer-Policy"] == "no-referrer"


def test_the_one_inline_script_is_allowed_by_its_hash(client):
    import base64
    import hashlib
    import re
    response = client.get("/")
    scripts = re.findall(r"<script>(.*?)</script>", response.get_data(as_text=True), re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in response.headers["Content-Security-Policy"]


def test_over_http_cookies_are_not_secure(client, organiser):
    response = login(client, "organiser", "pw-organiser")
    cookies = response.headers.getlist("Set-Cookie")
    assert any(c.startswith("remember_token=") for c in cookies)
    assert not any("Secure" in c for c in cookies)


def test_over_https_hsts_and_secure_cookies(client, organiser):
    https = "https://localhost"
    assert client.get("/", base_url=https).headers["Strict-Transport-Security"].startswith("max-age=")
    token = csrf_token_https(client)
    response = client.post("/login", data={"username": "organiser", "password": "pw-organiser",
                                           "csrf_token": token}, base_url=https,
                           headers={"Referer": https + "/login"})  # Flask-WTF's check over HTTPS
    assert response.status_code == 302
    cookies = response.headers.getlist("Set-Cookie")
    assert {c.split("=")[0] for c in cookies} >= {"session", "remember_token"}
    assert all("Secure" in c for c in cookies)


def csrf_token_https(client):
    import re
    html = client.get("/login", base_url="https://localhost").get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def test_the_https_setting_marks_cookies_secure_and_sends_hsts_even_behind_plain_http(db_path):
    from tests.conftest import make_app
    app = make_app(db_path, HTTPS=True)
    assert app.config["SESSION_COOKIE_SECURE"] and app.config["REMEMBER_COOKIE_SECURE"]
    with app.app_context():
        assert "Strict-Transport-Security" in app.test_client().get("/").headers


def test_behind_a_proxy_its_scheme_and_address_are_trusted_only_when_configured(db_path):
    from tests.conftest import make_app
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    plain = make_app(db_path)
    with plain.app_context():
        assert "Strict-Transport-Security" not in plain.test_client().get("/", headers=forwarded).headers
    proxied = make_app(db_path, PROXY_HOPS=1)
    with proxied.app_context():
        assert "Strict-Transport-Security" in proxied.test_client().get("/", headers=forwarded).headers


def _try(client, username, password, address):
    token = csrf_token(client)
    return client.post("/login", data={"username": username, "password": password, "csrf_token": token},
                       environ_base={"REMOTE_ADDR": address}).status_code


def test_guesses_at_one_account_from_many_addresses_slow_it_down_and_lock_nobody_out(app, organiser, monkeypatch):
    from blueprints import auth
    waits = []
    monkeypatch.setattr(auth, "slow_down", waits.append)
    codes = [_try(app.test_client(), "Organiser" if n % 2 else "organiser", "wrong", f"198.51.100.{n}")
             for n in range(10)]
    assert codes == [401] * 10 and waits == []
    # the eleventh try, from yet another address and with the right password, waits, then logs in
    assert _try(app.test_client(), "ORGANISER ", "pw-organiser", "198.51.100.50") == 302
    assert waits == [app.config["LOGIN_SLOW_DOWN_S"]]
    # the host on the same wifi as any of them logs in at once
    assert _try(app.test_client(), "host", "pw-host", "198.51.100.3") == 302 and len(waits) == 1


def test_successful_logins_do_not_count_against_the_account(app, organiser):
    for n in range(12):
        assert _try(app.test_client(), "host", "pw-host", f"198.51.100.{n}") == 302


def _move(client, member_id):
    return client.post("/member-codes", data={"member": str(member_id), "csrf_token": csrf_token(client, "/")})


def test_r_mem_1_only_tonights_host_of_the_members_night_or_an_organiser_moves_a_card(app, night, league):
    import datetime as dt

    from services.models import Entry, Event, Member, MemberCode
    ann = Member.named(league.id, "Ann Lee")
    db.session.add(ann)
    db.session.flush()
    db.session.add(Entry(event_id=night.id, member_id=ann.id, status="playing"))
    other_host = User(username="gail", display_name="Gail", role="host", league_id=league.id)
    other_host.set_password("pw-gail")
    db.session.add(other_host)
    db.session.flush()
    db.session.add(Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=dt.date.today(),
                         start_time=dt.time(20, 0), host_id=other_host.id, status="running"))
    db.session.commit()
    gail = app.test_client()
    login(gail, "gail", "pw-gail")
    refused = _move(gail, ann.id)
    assert refused.status_code == 403
    assert "Only tonight's host of a night Ann Lee is in, or an organiser" in refused.get_data(as_text=True)
    assert db.session.scalar(db.select(MemberCode.id)) is None
    harry = app.test_client()
    login(harry, "host", "pw-host")
    assert _move(harry, ann.id).status_code == 200
    olive = app.test_client()
    login(olive, "organiser", "pw-organiser")
    assert _move(olive, ann.id).status_code == 200


def test_r_mem_1_last_nights_host_no_longer_moves_the_card(app, night, league):
    import datetime as dt

    from services.models import Entry, Member
    ann = Member.named(league.id, "Ann Lee")
    db.session.add(ann)
    db.session.flush()
    db.session.add(Entry(event_id=night.id, member_id=ann.id, status="played"))
    night.status = "settled"
    night.date = dt.date.today() - dt.timedelta(days=3)
    db.session.commit()
    harry = app.test_client()
    login(harry, "host", "pw-host")
    assert _move(harry, ann.id).status_code == 403


def test_r_mem_1_a_host_move_is_told_on_the_members_new_phone(app, client, night, league):
    night.date = league.today()
    db.session.commit()
    ann = app.test_client()
    assert join(ann, night, "Ann Lee", contact="ann@example.com").status_code == 303
    assert "was moved to a new phone by" not in ann.get("/me").get_data(as_text=True)
    login(client, "host", "pw-host")
    page = _move(client, member("Ann Lee").id).get_data(as_text=True)
    code = "".join(CODE_RE.search(page).groups())
    new_phone = app.test_client()
    assert claim(new_phone, code).status_code == 303
    me = new_phone.get("/me").get_data(as_text=True)
    assert "Your card was moved to a new phone by Harry at " in me


def test_documents_carry_the_policy_and_assets_only_nosniff(client, app):
    """The policy governs what a browser opens or runs on its own: pages, SVG, the service worker.
    A script, style sheet, icon, JSON or the stream is governed by its page's policy: it is sent
    only nosniff (bytes saved on every asset of a phone's first load)."""
    page = client.get("/").headers
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"] and page["X-Frame-Options"] == "DENY"
    # The worker: what governs its fetches and scripts (default-src, which connect-src and
    # script-src fall back to), none of what only a document obeys (framing, forms, styles).
    worker = client.get("/sw.js").headers
    assert worker["Content-Security-Policy"] == WORKER_POLICY == "default-src 'self'"
    assert "default-src 'self'" in page["Content-Security-Policy"]
    assert worker["Referrer-Policy"] == "same-origin" and "X-Frame-Options" not in worker
    assert worker["X-Content-Type-Options"] == "nosniff"
    with app.test_request_context():
        from flask import url_for
        assets = [url_for("static", filename="js/app.js"), url_for("static", filename="css/app.css"), "/api/time"]
    for path in assets:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "Content-Security-Policy" not in response.headers and "Referrer-Policy" not in response.headers, path
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
