"""Logins a league can manage: one name whatever its case, everyone's own new password, the organiser's
hosts (added with a password or a one-time link, suspended, reinstated, removed: signed out everywhere
at once), and one-time password links (24 hours, single use, hashed)."""
import datetime as dt

import pytest
import sqlalchemy as sa

from league.statuses import Role
from services import logins
from services.models import LoginLink, User
from tests.fixtures.logins import is_logged_in, logged_in, password_token, post_form, token_in
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "usernames are unique on their stored key, and the two databases compare and refuse text their own way")

GOOD = "pub-night-2026"
SETUP = "/organiser/harbour-league/setup"
HOSTS = "/organiser/harbour-league/hosts"


def _users() -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(User))


@pytest.fixture
def olive(app, league, organiser):
    """The organiser's phone, logged in."""
    return logged_in(app, "organiser", "pw-organiser")


def _host_change(phone, user_id: int, change: str):
    return post_form(phone, f"{HOSTS}/{user_id}/{change}", htmx=True)


# ---- One name whatever its case ----

@pytest.mark.parametrize("spelling", ["Host", "HOST", "hOsT"])
def test_usernames_are_one_name_whatever_their_case(app, olive, spelling):
    before = _users()
    answer = post_form(olive, HOSTS, SETUP, display_name="Another", username=spelling, password=GOOD)
    assert answer.status_code == 422 and "taken" in answer.get_data(as_text=True) and _users() == before
    assert is_logged_in(logged_in(app, spelling, "pw-host"))


def test_the_database_refuses_two_logins_differing_only_in_case(app, league, organiser):
    db.session.add(User(username="ORGANISER", display_name="Twin", role="host", league_id=league.id,
                        password_hash="x"))
    with pytest.raises(sa.exc.IntegrityError):
        db.session.commit()
    db.session.rollback()


# ---- Everyone's own password ----

@pytest.mark.parametrize(("form", "reason"), [
    ({"current": "wrong", "password": GOOD, "again": GOOD}, "not your current password"),
    ({"current": "pw-host", "password": "short1", "again": "short1"}, "at least 8 characters"),
    ({"current": "pw-host", "password": GOOD, "again": "pub-night-2025"}, "not the same"),
    ({"current": "pw-host", "password": "pw-host", "again": "pw-host"}, "the one you have"),
    ({"current": "pw-host", "password": "host-host-host", "again": "host-host-host"}, "must not contain the username"),
])
def test_changing_one_s_password_refuses_bad_input_and_changes_nothing(app, league, organiser, form, reason):
    phone = logged_in(app, "host", "pw-host")
    token_before = logins.find_login("host").session_token
    answer = post_form(phone, "/account/password", "/account/password", **form)
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    db.session.expire_all()
    host = logins.find_login("host")
    assert host.check_password("pw-host") and host.session_token == token_before and is_logged_in(phone)


def test_changing_one_s_password_signs_the_other_sessions_out(app, league, organiser):
    here, there = logged_in(app, "host", "pw-host"), logged_in(app, "host", "pw-host")
    assert "Current password" in here.get("/account/password").get_data(as_text=True)
    answer = post_form(here, "/account/password", "/account/password", current="pw-host", password=GOOD, again=GOOD)
    assert answer.status_code == 200 and "every other phone" in answer.get_data(as_text=True)
    assert is_logged_in(here) and not is_logged_in(there)
    assert is_logged_in(logged_in(app, "host", GOOD))


def test_changing_one_s_password_needs_a_login_and_csrf(app, client, league, organiser):
    assert client.get("/account/password").status_code == 302
    phone = logged_in(app, "host", "pw-host")
    assert phone.post("/account/password", data={"current": "pw-host", "password": GOOD, "again": GOOD}).status_code == 400
    db.session.expire_all()
    assert logins.find_login("host").check_password("pw-host")


# ---- The organiser's hosts ----

def test_organiser_adds_a_host_by_a_link_the_host_sets_a_password_with(app, olive, client):
    answer = post_form(olive, HOSTS, SETUP, htmx=True, display_name="Kim O'Brien <b>", username="Kim")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "Hand this link to Kim O&#39;Brien &lt;b&gt;" in html
    token = token_in(html)
    kim = logins.find_login("kim")
    assert kim.role == Role.HOST and not kim.check_password("")
    page = client.get(f"/password/{token}").get_data(as_text=True)
    assert "Set your password" in page and "Kim O&#39;Brien &lt;b&gt;" in page and "Password again" in page
    done = post_form(client, f"/password/{token}", f"/password/{token}", password=GOOD, again=GOOD)
    assert done.status_code == 302 and done.location.endswith("/host/")
    assert is_logged_in(client)
    # single use
    assert client.get(f"/password/{token}").status_code == 404
    assert post_form(client, f"/password/{token}", "/login", password=GOOD + "x", again=GOOD + "x").status_code == 404
    db.session.expire_all()
    assert logins.find_login("kim").check_password(GOOD)


@pytest.mark.parametrize(("form", "reason"), [
    ({"password": "short", "again": "short"}, "at least 8 characters"),
    ({"password": GOOD, "again": GOOD + "!"}, "not the same"),
    ({"password": "aaaaaaaaaa", "again": "aaaaaaaaaa"}, "too easy"),
])
def test_password_link_refuses_a_weak_or_mismatched_password_and_stays_usable(app, client, league, organiser,
                                                                               form, reason):
    host = logins.find_login("host")
    token = password_token(host)
    answer = post_form(client, f"/password/{token}", f"/password/{token}", **form)
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    db.session.expire_all()
    assert logins.find_login("host").check_password("pw-host")
    assert client.get(f"/password/{token}").status_code == 200


def test_password_link_expires_after_24_hours(app, client, league, organiser):
    token = password_token(logins.find_login("host"))
    link = db.session.scalar(sa.select(LoginLink))
    assert dt.timedelta(hours=23) < link.expires_at - link.created_at <= dt.timedelta(hours=24)
    link.expires_at = dt.datetime(2020, 1, 1)
    db.session.commit()
    answer = client.get(f"/password/{token}")
    assert answer.status_code == 404 and "has expired" in answer.get_data(as_text=True)


def test_a_newer_password_link_kills_the_older_and_ten_failed_tries_kill_a_link(app, client, league, organiser):
    host = logins.find_login("host")
    old, new = password_token(host), password_token(host)
    assert client.get(f"/password/{old}").status_code == 404
    codes = [post_form(client, f"/password/{new}", f"/password/{new}", password="x", again="x").status_code
             for _ in range(10)]
    assert codes == [422] * 10
    dead = client.get(f"/password/{new}")  # dead: a link's tries are counted on it (a GET: no address limit)
    assert dead.status_code == 404 and "tried wrongly too often" in dead.get_data(as_text=True)
    db.session.expire_all()
    assert logins.find_login("host").check_password("pw-host")


def test_suspending_a_host_signs_them_out_everywhere_at_once(app, olive):
    host = logins.find_login("host")
    phones = [logged_in(app, "host", "pw-host") for _ in range(2)]
    answer = _host_change(olive, host.id, "suspend")
    assert answer.status_code == 200 and "is suspended" in answer.get_data(as_text=True)
    assert 'role="status"' in answer.get_data(as_text=True)
    assert not any(is_logged_in(phone) for phone in phones)
    refused = post_form(app.test_client(), "/login", username="host", password="pw-host")
    assert refused.status_code == 401 and "suspended" in refused.get_data(as_text=True)
    again = _host_change(olive, host.id, "suspend")
    assert again.status_code == 409 and "suspended already" in again.get_data(as_text=True)
    assert _host_change(olive, host.id, "reinstate").status_code == 200
    assert is_logged_in(logged_in(app, "host", "pw-host"))
    assert _host_change(olive, host.id, "reinstate").status_code == 409


def test_removing_a_host_signs_them_out_for_good_and_frees_the_name(app, olive, night):
    host = logins.find_login("host")
    phone = logged_in(app, "host", "pw-host")
    answer = _host_change(olive, host.id, "remove")
    assert answer.status_code == 200 and "is removed" in answer.get_data(as_text=True)
    assert not is_logged_in(phone) and not is_logged_in(logged_in(app, "host", "pw-host"))
    db.session.expire_all()
    assert db.session.get(User, host.id).removed_at and night.host_id == host.id  # the night still says who
    assert f'id="host-{host.id}"' not in olive.get(SETUP).get_data(as_text=True)
    assert _host_change(olive, host.id, "password-link").status_code == 404
    added = post_form(olive, HOSTS, SETUP, display_name="New Harry", username="HOST", password=GOOD)
    assert added.status_code == 200 and logins.find_login("host").display_name == "New Harry"


def test_a_removed_login_s_password_link_dies(app, olive, client):
    host = logins.find_login("host")
    token = token_in(_host_change(olive, host.id, "password-link").get_data(as_text=True))
    _host_change(olive, host.id, "remove")
    assert client.get(f"/password/{token}").status_code == 404


def test_organiser_changes_only_hosts_of_their_own_league(app, olive, organiser):
    from tests.fixtures import tonight as seed
    seed.tonight(league="Other League", venue="Anchor", username="other", password="pw-other")
    other = logins.find_login("other")
    for user_id, change in ((organiser.id, "suspend"), (other.id, "suspend"), (999999, "remove")):
        assert _host_change(olive, user_id, change).status_code == 404
    assert post_form(olive, f"{HOSTS}/{logins.find_login('host').id}/explode", SETUP).status_code == 404
    db.session.expire_all()
    assert all(u.suspended_at is None and u.removed_at is None for u in db.session.scalars(sa.select(User)))


def test_host_changes_need_csrf_and_an_organiser(app, olive, league):
    host = logins.find_login("host")
    assert olive.post(f"{HOSTS}/{host.id}/suspend").status_code == 400
    host_phone = logged_in(app, "host", "pw-host")
    assert _host_change(host_phone, host.id, "suspend").status_code == 403
    db.session.expire_all()
    assert logins.find_login("host").suspended_at is None


def test_a_suspended_host_s_password_link_sets_the_password_but_does_not_log_in(app, olive, client):
    host = logins.find_login("host")
    token = token_in(_host_change(olive, host.id, "password-link").get_data(as_text=True))
    _host_change(olive, host.id, "suspend")
    done = post_form(client, f"/password/{token}", f"/password/{token}", password=GOOD, again=GOOD)
    assert done.status_code == 302 and done.location.endswith("/login") and not is_logged_in(client)


# ---- The commands and the upgrade ----

def test_create_user_refuses_a_name_taken_in_another_case(app, runner, league, organiser):
    out = runner.invoke(args=["league", "create-user", "--league", league.name, "--username", "Organiser",
                              "--role", "host"], input=f"{GOOD}\n{GOOD}\n")
    assert out.exit_code != 0 and "taken" in out.output
    operator = runner.invoke(args=["league", "create-user", "--league", league.name, "--username", "op",
                                   "--role", "operator"], input=f"{GOOD}\n{GOOD}\n")
    assert operator.exit_code != 0


def test_rename_login_command(app, runner, league, organiser):
    assert runner.invoke(args=["league", "rename-login", "host", "harry"]).exit_code == 0
    assert logins.find_login("HARRY").display_name == "Harry" and logins.find_login("host") is None
    taken = runner.invoke(args=["league", "rename-login", "harry", "Organiser"])
    assert taken.exit_code != 0 and "taken" in taken.output
    assert runner.invoke(args=["league", "rename-login", "nobody", "someone"]).exit_code != 0
