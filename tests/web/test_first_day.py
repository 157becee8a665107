"""A ShuffleUp's first day on the web: the set-up link makes the operator, who starts leagues, gives
their organisers one-time password links and removes the demo league whole; every refusal says why
and changes nothing."""
import pytest
import sqlalchemy as sa

from league.statuses import LinkPurpose, Role
from services import demo, export, logins
from services.models import League, LoginLink, User, Venue
from tests.fixtures.logins import (
    OPERATOR,
    is_logged_in,
    logged_in,
    make_operator,
    operator_phone,
    post_form,
    setup_token,
    token_in,
)
from wiring.extensions import db, limiter

pytestmark = pytest.mark.both_databases(
    "removing a league deletes every table's rows in one go: each database checks the foreign keys its own way "
    "(SQLite per statement, with its pragma on)")

GOOD = "pub-night-2026"


def _users() -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(User))


# ---- The set-up link ----

def test_setup_link_is_printed_while_no_operator_exists_and_not_after(app, runner):
    out = runner.invoke(args=["league", "setup-link", "--base-url", "http://127.0.0.1:5000"]).output
    line = next(line for line in out.splitlines() if "/setup/" in line)
    assert line.startswith("Set up this ShuffleUp: http://127.0.0.1:5000/setup/")
    stored = db.session.scalars(sa.select(LoginLink)).all()
    assert len(stored) == 1 and token_in(line) not in stored[0].token_hash  # hashed at rest
    make_operator()
    assert "/setup/" not in runner.invoke(args=["league", "setup-link"]).output


def test_setup_link_makes_the_operator_once(app, client):
    token = setup_token()
    page = client.get(f"/setup/{token}").get_data(as_text=True)
    assert "Username" in page and "Password again" in page
    answer = post_form(client, f"/setup/{token}", f"/setup/{token}", username="Olga", password=GOOD, again=GOOD)
    assert answer.status_code == 302 and answer.location.endswith("/operator/")
    operator = logins.find_login("olga")
    assert operator.role == Role.OPERATOR and operator.league_id is None and operator.check_password(GOOD)
    assert "Start a league" in client.get("/operator/").get_data(as_text=True)
    # the link dies once used
    assert client.get(f"/setup/{token}").status_code == 404
    assert post_form(client, f"/setup/{token}", "/login", username="eve", password=GOOD, again=GOOD).status_code == 404
    assert _users() == 1


def test_a_new_setup_link_kills_the_older(app, client):
    old, new = setup_token(), setup_token()
    assert client.get(f"/setup/{old}").status_code == 404
    assert client.get(f"/setup/{new}").status_code == 200


@pytest.mark.parametrize(("form", "reason"), [
    ({"username": "olga", "password": "short", "again": "short"}, "at least 8 characters"),
    ({"username": "olga", "password": GOOD, "again": GOOD + "x"}, "not the same"),
    ({"username": "olga", "password": "password123", "again": "password123"}, "first anyone guesses"),
    ({"username": "olga", "password": "olga-olga-1", "again": "olga-olga-1"}, "must not contain the username"),
    ({"username": "o", "password": GOOD, "again": GOOD}, "3 to 40 characters"),
    ({"username": "Olga <b>", "password": GOOD, "again": GOOD}, "letters, digits"),
    ({"username": "", "password": GOOD, "again": GOOD}, "Choose a username"),
])
def test_setup_link_refuses_bad_input_and_changes_nothing(app, client, form, reason):
    token = setup_token()
    answer = post_form(client, f"/setup/{token}", f"/setup/{token}", **form)
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    assert "<b>" not in answer.get_data(as_text=True)
    assert _users() == 0 and client.get(f"/setup/{token}").status_code == 200


def test_setup_link_refuses_a_taken_username_in_any_case(app, client, league, organiser):
    token = setup_token()
    answer = post_form(client, f"/setup/{token}", f"/setup/{token}", username="ORGANISER", password=GOOD, again=GOOD)
    assert answer.status_code == 422 and "taken" in answer.get_data(as_text=True)
    assert not logins.has_operator()


def test_setup_link_without_csrf_or_with_an_unknown_token_is_refused(app, client):
    token = setup_token()
    assert client.post(f"/setup/{token}", data={"username": "olga", "password": GOOD, "again": GOOD}).status_code == 400
    assert client.get("/setup/not-a-token").status_code == 404
    assert post_form(client, "/setup/not-a-token", username="olga", password=GOOD, again=GOOD).status_code == 404
    assert _users() == 0


def test_setup_link_dies_after_ten_failed_tries(app, client):
    token = setup_token()
    codes = [post_form(client, f"/setup/{token}", f"/setup/{token}", username="olga", password="short",
                       again="short").status_code for _ in range(10)]
    assert codes == [422] * 10
    answer = client.get(f"/setup/{token}")  # dead: a GET, so no limit per address answers instead
    assert answer.status_code == 404 and "tried wrongly too often" in answer.get_data(as_text=True)
    assert not logins.has_operator()


def test_setup_link_tries_are_counted_on_the_link_not_in_one_process(app, client, monkeypatch):
    """Nine failed tries, then the limiter's memory lost (a restart, another worker): the tenth still
    kills the link, because each try is counted on the link's own row."""
    token = setup_token()
    for _ in range(9):
        assert post_form(client, f"/setup/{token}", f"/setup/{token}", username="olga", password="short",
                         again="short").status_code == 422
    limiter.reset()
    db.session.expire_all()
    assert db.session.scalar(db.select(LoginLink.failed_tries)) == 9
    assert post_form(client, f"/setup/{token}", f"/setup/{token}", username="olga", password="short",
                     again="short").status_code == 422
    assert client.get(f"/setup/{token}").status_code == 404
    assert not logins.has_operator()


# ---- Leagues ----

def _start(phone, **fields):
    form = {"name": "Harbour Nights", "kind": "free", "timezone": "Australia/Sydney", "display_name": "Nina",
            "username": "nina", **fields}
    return post_form(phone, "/operator/leagues", "/operator/", **form)


def test_operator_starts_a_league_with_its_organiser_and_thpa_defaults(app):
    phone = operator_phone(app)
    page = phone.get("/operator/").get_data(as_text=True)
    assert "League name" in page and "Kind" in page and 'value="Australia/Sydney"' in page
    answer = _start(phone, name="Harbour Nights", kind="cash", timezone="Australia/Perth")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "Harbour Nights is started" in html
    league = db.session.scalar(sa.select(League).where(League.name == "Harbour Nights"))
    assert (league.kind, league.timezone, league.settings, league.pass_down) == ("cash", "Australia/Perth", {}, False)
    nina = logins.find_login("nina")
    assert nina.role == Role.ORGANISER and nina.league_id == league.id
    # the organiser's link sets her password and lets her in to her league
    organiser = app.test_client()
    token = token_in(html)
    assert "Set your password" in organiser.get(f"/password/{token}").get_data(as_text=True)
    done = post_form(organiser, f"/password/{token}", f"/password/{token}", password=GOOD, again=GOOD)
    assert done.status_code == 302
    assert organiser.get("/organiser/").location.startswith(f"/organiser/{league.slug}/")


@pytest.mark.parametrize(("fields", "reason"), [
    ({"name": "harbour league"}, "exists already"),
    ({"name": "Harbour-League"}, "exists already"),
    ({"timezone": "Mars/Olympus"}, "is not a time zone"),
    ({"kind": "poker"}, "Not a valid choice"),
    ({"name": ""}, "Give the league"),
    ({"username": "ORGANISER"}, "taken"),
    ({"username": "ni na"}, "letters, digits"),
    ({"display_name": ""}, "Give the organiser"),
])
def test_starting_a_league_refuses_bad_input_and_changes_nothing(app, league, organiser, fields, reason):
    phone = operator_phone(app)
    leagues_before, users_before = db.session.scalar(sa.select(sa.func.count()).select_from(League)), _users()
    answer = _start(phone, **fields)
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.scalar(sa.select(sa.func.count()).select_from(League)) == leagues_before
    assert _users() == users_before


def test_start_a_league_needs_csrf(app):
    phone = operator_phone(app)
    assert phone.post("/operator/leagues", data={"name": "X League", "kind": "free", "timezone": "UTC",
                                                  "display_name": "X", "username": "xx"}).status_code == 400
    assert db.session.scalar(sa.select(League.id)) is None


def test_only_the_operator_reaches_the_operator_pages_and_the_operator_runs_no_league(app, client, league, organiser):
    assert client.get("/operator/").status_code == 302  # to the login
    assert logged_in(app, "organiser", "pw-organiser").get("/operator/").status_code == 403
    assert logged_in(app, "host", "pw-host").get("/operator/").status_code == 403
    phone = operator_phone(app)
    assert phone.get("/organiser/").status_code == 403 and phone.get("/host/").status_code == 403
    anonymous = post_form(app.test_client(), "/operator/leagues", name="Sneaky", kind="free", timezone="UTC",
                          display_name="S", username="sneaky")
    assert anonymous.status_code == 401 and db.session.scalar(sa.select(League.id).where(League.name == "Sneaky")) is None


def test_operator_adds_and_manages_a_league_s_organisers(app, league, organiser):
    phone = operator_phone(app)
    added = post_form(phone, f"/operator/leagues/{league.slug}/organisers", "/operator/",
                      **{f"l{league.id}-display_name": "Omar", f"l{league.id}-username": "omar"})
    assert added.status_code == 200 and token_in(added.get_data(as_text=True))
    olive = logged_in(app, "organiser", "pw-organiser")
    base = f"/operator/leagues/{league.slug}/organisers/{organiser.id}"
    assert post_form(phone, f"{base}/suspend", "/operator/").status_code == 200
    assert not is_logged_in(olive)  # signed out everywhere at once
    refused = logged_in(app, "organiser", "pw-organiser")
    assert not is_logged_in(refused)
    assert post_form(phone, f"{base}/suspend", "/operator/").status_code == 409  # suspended already
    assert post_form(phone, f"{base}/reinstate", "/operator/").status_code == 200
    assert is_logged_in(logged_in(app, "organiser", "pw-organiser"))
    link = post_form(phone, f"{base}/password-link", "/operator/")
    assert "Hand this link to Olive" in link.get_data(as_text=True)
    assert post_form(phone, f"{base}/remove", "/operator/").status_code == 200
    assert logins.find_login("organiser") is None and db.session.get(User, organiser.id).removed_at
    assert post_form(phone, f"{base}/remove", "/operator/").status_code == 404  # gone from the list
    host = logins.find_login("host")  # a host is the organiser's to manage, not the operator's
    assert post_form(phone, f"/operator/leagues/{league.slug}/organisers/{host.id}/suspend", "/operator/"
                     ).status_code == 404


def test_adding_an_organiser_refuses_a_taken_name_and_changes_nothing(app, league, organiser):
    phone = operator_phone(app)
    before = _users()
    answer = post_form(phone, f"/operator/leagues/{league.slug}/organisers", "/operator/",
                       **{f"l{league.id}-display_name": "O", f"l{league.id}-username": "Host"})
    assert answer.status_code == 422 and "taken" in answer.get_data(as_text=True) and _users() == before


# ---- Removing the demo ----

def test_removing_the_demo_league_takes_every_row_of_it_and_nothing_else(app, client):
    assert demo.load_if_empty()
    db.session.commit()
    demo_id, slug = db.session.execute(sa.select(League.id, League.slug)).one()
    phone = operator_phone(app)
    mine = _start(phone, name="Harbour Nights")
    assert mine.status_code == 200
    ours = db.session.scalar(sa.select(League).where(League.name == "Harbour Nights"))
    db.session.add(Venue(league_id=ours.id, name="The Anchor"))
    db.session.commit()
    ours_id, ours_before = ours.id, export.table_counts(ours)
    confirm = phone.get(f"/operator/leagues/{slug}/remove").get_data(as_text=True)
    counts = export.table_counts(db.session.get(League, demo_id))
    assert f"{counts['members']} members" in confirm and f"{counts['venues']} venues" in confirm
    assert f"{counts['users']} logins" in confirm
    # without the confirmation's own field, nothing goes
    assert post_form(phone, f"/operator/leagues/{slug}/remove", "/operator/").status_code == 422
    assert db.session.scalar(sa.select(League.id).where(League.slug == slug))
    gone = post_form(phone, f"/operator/leagues/{slug}/remove", "/operator/", confirm=slug)
    assert gone.status_code == 303
    db.session.expire_all()
    assert db.session.scalar(sa.select(League.id).where(League.slug == slug)) is None
    owned = export.owners()
    for name, owner in owned.items():  # not a row of the demo is left in any table of a league
        assert db.session.scalar(sa.select(sa.func.count()).select_from(owner.table).where(
            export._belongs(owned, name, demo_id))) == 0, name
    assert client.get(f"/leagues/{slug}").status_code == 404
    assert client.get(f"/api/leagues/{slug}/standings").status_code == 404
    assert logins.find_login("organiser") is None and logins.find_login("host") is None
    assert export.table_counts(db.session.get(League, ours_id)) == ours_before
    assert logins.find_login(OPERATOR) and logins.find_login("nina")
    assert client.get("/leagues/harbour-nights").status_code == 200


def test_removing_a_league_needs_csrf_and_a_known_league(app, league):
    phone = operator_phone(app)
    assert phone.post(f"/operator/leagues/{league.slug}/remove", data={"confirm": league.slug}).status_code == 400
    assert post_form(phone, "/operator/leagues/no-such/remove", "/operator/", confirm="no-such").status_code == 404
    assert db.session.get(League, league.id)


# ---- Commands for scripts ----

def test_create_league_and_create_operator_commands(app, runner):
    out = runner.invoke(args=["league", "create-league", "Harbour Nights", "--kind", "free", "--organiser", "nina"])
    assert out.exit_code == 0 and "Started Harbour Nights (free, Australia/Sydney)" in out.output
    assert "/password/" in out.output
    taken = runner.invoke(args=["league", "create-league", "HARBOUR NIGHTS", "--kind", "cash"])
    assert taken.exit_code != 0 and "exists already" in taken.output
    zone = runner.invoke(args=["league", "create-league", "Other", "--kind", "cash", "--timezone", "Nowhere/Land"])
    assert zone.exit_code != 0 and "not a time zone" in zone.output
    made = runner.invoke(args=["league", "create-operator", "--username", "Olga"], input=f"{GOOD}\n{GOOD}\n")
    assert made.exit_code == 0 and logins.find_login("OLGA").role == Role.OPERATOR
    again = runner.invoke(args=["league", "create-operator", "--username", "olga"], input=f"{GOOD}\n{GOOD}\n")
    assert again.exit_code != 0 and "taken" in again.output
    weak = runner.invoke(args=["league", "create-operator", "--username", "otto"], input="abc\nabc\n")
    assert weak.exit_code != 0 and "at least 8" in weak.output
    assert db.session.scalar(sa.select(sa.func.count()).select_from(League)) == 1


def test_password_links_are_single_use_and_hashed(app, league, organiser):
    host = logins.find_login("host")
    phone = operator_phone(app)
    token = token_in(post_form(phone, f"/operator/leagues/{league.slug}/organisers/{organiser.id}/password-link",
                               "/operator/").get_data(as_text=True))
    stored = db.session.scalar(sa.select(LoginLink).where(LoginLink.purpose == LinkPurpose.PASSWORD))
    assert stored.token_hash == logins.link_hash(token) and token not in stored.token_hash
    assert stored.user_id == organiser.id and host.id != stored.user_id
