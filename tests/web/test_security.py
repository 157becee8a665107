"""Logins that can be revoked, the security headers, per-account login limits, and who may move a
member's card to a new phone."""
from services.models import User
from tests.conftest import csrf_token, login
from wiring.extensions import db


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
