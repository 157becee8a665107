"""Everything stored is checked on the way in, whatever the way: the called clock's seat and every
name through the one hygiene check of typed text (R-CLOCK-4, R-MEM-1), the night form's pickers
taking plain digits only, a JSON body on the set-up forms refused whole with 415, and a league file
(web, operator's page, organiser's page, `flask league import`) whose checksum was recomputed after an
edit refused by the line of its bad value: a blind structure or a setting the forms would refuse
(R-CLOCK-1), a NUL, a control or right-to-left mark, a lone surrogate, JSON nested past its bound, an
id of 2**70, a line of megabytes. Each refusal writes nothing. And the league file a ShuffleUp exports
comes in after another ShuffleUp's set-up has made its operator."""
import io
import json

import pytest
import sqlalchemy as sa

from league.statuses import Role
from services import export, leagues, logins
from services.models import Event, League, Member, User, Venue
from tests.conftest import csrf_token, login, make_app
from tests.fixtures.host import DAY, clock, tap, the_night
from tests.fixtures.league_files import counts, edited, league_file, source_league
from tests.fixtures.logins import make_operator, operator_phone, post_form
from tests.fixtures.phones import join
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "a NUL in text and in JSON is refused by PostgreSQL itself (a 500 if it got there) and ids and sequences "
    "differ by database")


def _count(model) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


# ---- The called clock's seat (R-CLOCK-4): the one hygiene check ----

@pytest.mark.parametrize(("seat", "reason"), [
    ("Table 2\x00seat 5", "NUL"),
    ("Table 2 \u202eseat 5", "invisible characters"),
    ("Table 2 \x1bseat 5", "control characters"),
    ("Table 2 seat 5" + "!" * 40, "longer than 40"),
])
def test_r_clock_4_a_seat_that_cannot_be_shown_is_refused_and_nothing_changes(client, night, seat, reason):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    before = clock(client, night)
    answer = tap(client, night, "shot", seat=seat)
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    after = clock(client, night)
    assert after["shot"] is None and after["version"] == before["version"]  # nothing written
    db.session.expire_all()
    assert db.session.get(Event, night.id).shot_seat is None


def test_r_clock_4_a_seat_is_stored_in_its_clean_form(client, night):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    assert tap(client, night, "shot", seat="  Table\t2   seat ５ ").status_code == 200
    assert clock(client, night)["shot"]["seat"] == "Table 2 seat 5"


# ---- Any path that forgets the hygiene check: the flush refuses, nothing is written ----

@pytest.mark.parametrize("text", ["Rose\x00Crown", "Rose \u202eCrown", "Rose\u2800", "Rose\x1b[31m"])
def test_a_row_whose_text_skipped_the_hygiene_check_is_refused_at_the_flush(app, league, text):
    from services import Refused
    db.session.add(Venue(league_id=league.id, name=text))
    with pytest.raises(Refused, match="The name contains"):
        db.session.commit()
    db.session.rollback()
    assert _count(Venue) == 0
    venue = Venue(league_id=league.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    venue.address = text  # an update too
    with pytest.raises(Refused, match="The address contains"):
        db.session.commit()
    db.session.rollback()
    assert db.session.get(Venue, venue.id).address == ""


def test_a_refusal_no_view_caught_answers_422_not_500(app, league):
    @app.route("/test-forgot-hygiene")
    def forgot():  # a view that stores what it was sent, unchecked
        db.session.add(Venue(league_id=league.id, name="Rose\x00Crown"))
        db.session.commit()
        return "stored"

    answer = app.test_client().get("/test-forgot-hygiene")
    assert answer.status_code == 422 and "NUL" in answer.get_data(as_text=True)
    assert _count(Venue) == 0


# ---- Names (R-MEM-1) and the night form's pickers ----

@pytest.mark.parametrize("name", ["\u2800", "Ann\u2800", "\u3164", "\u17b4\u17b5"])
def test_r_mem_1_a_name_of_blank_letters_is_refused_and_nobody_joins(client, night, name):
    members = _count(Member)
    answer = join(client, night, name)
    assert answer.status_code == 422 and "invisible characters" in answer.get_data(as_text=True)
    assert _count(Member) == members


@pytest.fixture
def host_at_rose(app, league, organiser):
    """The host logged in, with the Anchor among their venues."""
    from services.models import HostVenue
    venue = Venue(league_id=league.id, name="Anchor")
    db.session.add(venue)
    db.session.flush()
    host = db.session.scalar(sa.select(User).where(User.username == "host"))
    db.session.add(HostVenue(user_id=host.id, venue_id=venue.id))
    db.session.commit()
    client = app.test_client()
    login(client, "host", "pw-host")
    return client, venue


@pytest.mark.parametrize("digits", ["\u0661", "\uff11", "1\u0660", " 1"])
def test_the_night_form_s_pickers_take_plain_digits_only(host_at_rose, digits):
    client, venue = host_at_rose
    assert venue.id == 1  # the digits below all read as 1 to int()
    data = {"csrf_token": csrf_token(client, "/host/"), "venue": digits, "date": DAY, "start_time": "19:00",
            "event_type": "nightly", "template": "thpa_nightly"}
    answer = client.post("/host/nights", data=data)
    assert answer.status_code == 422 and "Invalid Choice" in answer.get_data(as_text=True)
    assert the_night() is None
    data["venue"] = "1"
    assert client.post("/host/nights", data=data).status_code in (200, 302, 303) and the_night() is not None


# ---- JSON bodies on the set-up forms: 415, nothing read or written ----

def _json_post(client, path: str, page: str, body):
    return client.post(path, data=json.dumps(body), content_type="application/json",
                       headers={"X-CSRFToken": csrf_token(client, page)})


BODIES = [{"name": "Anchor"}, [1, 2, 3], {"name": {"nested": [{"deep": 1}]}}, "just a string", 7, None]


@pytest.mark.parametrize("body", BODIES)
def test_json_to_the_organiser_s_forms_is_refused_415(app, client, league, organiser, night, body):
    login(client, "organiser", "pw-organiser")
    page = f"/organiser/{league.slug}/setup"
    before = (_count(Venue), _count(User), _count(Event))
    for path in (f"/organiser/{league.slug}/venues", f"/organiser/{league.slug}/hosts",
                 f"/organiser/{league.slug}/nights", f"/organiser/{league.slug}/nights/{night.id}/host"):
        answer = _json_post(client, path, page, body)
        assert answer.status_code == 415, path
        assert "not JSON" in answer.get_data(as_text=True)
    assert (_count(Venue), _count(User), _count(Event)) == before


@pytest.mark.parametrize("body", BODIES)
def test_json_to_the_host_s_and_operator_s_forms_is_refused_415(app, league, host_at_rose, body):
    client, venue = host_at_rose
    night = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=league.today(),
                  host_id=logins.find_login("host").id, status="scheduled")
    db.session.add(night)
    db.session.commit()
    before = (_count(Event), _count(League), _count(User))
    for path in ("/host/nights", f"/host/events/{night.id}/edit"):
        assert _json_post(client, path, "/host/", body).status_code == 415, path
    operator = operator_phone(app)
    for path in ("/operator/leagues", "/operator/leagues/harbour-league/organisers"):
        assert _json_post(operator, path, "/operator/", body).status_code == 415, path
    assert (_count(Event), _count(League), _count(User) - 1) == before  # the operator's login only


def test_json_refusal_answers_json_to_a_script(app, client, league, organiser):
    login(client, "organiser", "pw-organiser")
    answer = client.post(f"/organiser/{league.slug}/venues", json=[1], headers={
        "X-CSRFToken": csrf_token(client, f"/organiser/{league.slug}/setup"), "Accept": "application/json"})
    assert answer.status_code == 415 and "not JSON" in answer.get_json()["error"]


# ---- A results file (CSV) uploaded: each cell through the same checks, nothing written ----

HEADER = "date,start_time,venue,event_type,position,player,status\n"
CSV_UPLOADS = [
    (HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann\x00Lee,played\n", "line 2"),
    (HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann \u202eLee,played\n", "invisible characters"),
    (HEADER + "2026-11-03,19:00,Rose\u2800,nightly,1,Ann Lee,played\n", "invisible characters"),
    (HEADER + "2026-11-03,19:00,Rose,nightly,1,\u2800,played\n", "invisible characters"),
    (HEADER + "2026-11-03,19:00,Rose,nightly,\u0663,Ann Lee,played\n", "line 2"),
    (HEADER + "2026-11-03,19:00,Rose,nightly,1," + "A" * 81 + ",played\n", "longer than 80"),
    ('{"format": "shuffleup-league"}\n', "line 1"),
    ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "line 1"),
]


@pytest.mark.parametrize(("csv", "reason"), CSV_UPLOADS)
def test_r_pts_a_results_file_with_a_bad_cell_is_refused_whole_and_nothing_written(client, league, organiser,
                                                                                  csv, reason):
    login(client, "organiser", "pw-organiser")
    before = counts()
    answer = client.post(f"/organiser/{league.slug}/results/preview", data={
        "csrf_token": csrf_token(client, f"/organiser/{league.slug}/data"),
        "file": (io.BytesIO(csv.encode("utf-8", "surrogatepass")), "results.csv")})
    assert answer.status_code == 422 and reason in answer.get_data(as_text=True)
    assert counts() == before


def test_r_pts_a_results_file_that_is_not_text_is_refused(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    answer = client.post(f"/organiser/{league.slug}/results/preview", data={
        "csrf_token": csrf_token(client, f"/organiser/{league.slug}/data"),
        "file": (io.BytesIO(b"\xff\xfe\x00\x00PK\x03\x04" + bytes(range(256))), "results.csv")})
    assert answer.status_code == 422 and "not UTF-8" in answer.get_data(as_text=True)


# ---- A league file edited, its checksum recomputed ----

DEEP = "[" * 100_000 + "]" * 100_000
EDITS = [
    ("events", "structure", [{"kind": "level", "minutes": 20, "small_blind": 200, "big_blind": 100}], None,
     "big blind"),
    ("events", "structure", [], None, "blind structure"),
    ("events", "settings", {"bonus_windows": "whenever", "shot_clock_seconds": -5}, None, "one of"),
    ("events", "settings", {"bonuses": {"food": "lots"}}, None, "whole number"),
    ("leagues", "settings", {"nightly": {"starting_stack": 10 ** 12}}, None, "whole number from"),
    # each value good, together not (a free-to-play league's buy-in; R-ENTRY-1's re-entries within
    # registration), as the settings page says
    ("leagues", "settings", {"nightly": {"buy_in": 20}}, None, "games are free"),
    ("leagues", "settings", {"nightly": {"reentry": "reentry", "registration_close_minutes": 60,
                                         "reentry_until_minutes": 90}}, None, "cannot run past the close"),
    ("leagues", "timezone", "Mars/Olympus", None, "not one this machine knows"),
    ("members", "name", "\u2800", None, "invisible characters"),
    ("members", "name_key", "bob", None, "another name's key"),
    ("users", "username_key", "olga", None, "keyed as another name"),
    ("leagues", "slug", "../operator", None, "not one ShuffleUp makes"),
    ("venues", "name", "Rose\x00Crown", None, "NUL"),
    ("venues", "name", "Rose \u202eCrown", None, "invisible characters"),
    ("venues", "name", "x", '"\\ud800 Rose"', "invisible characters"),
    ("rulings", "detail", None, DEEP, "not as a ShuffleUp export writes it"),
    ("rulings", "detail", None, '{"a":' * 40 + "1" + "}" * 40, "nested deeper than 32"),
    ("leagues", "settings", {"x": "\x00"}, None, "NUL"),
    ("leagues", "settings", {"x": "x"}, '{"x":"\\udc00"}', "lone surrogate"),
    ("venues", "id", 2 ** 70, None, "larger than the column holds"),
    ("leagues", "settings", {"x": 2 ** 70}, None, "larger than a number"),
    ("venues", "address", "x" * (2 << 20), None, "longer than 1 MiB"),
]


def _ruling(league):
    from services.models import Ruling
    db.session.add(Ruling(league_id=league.id, user_id=None, kind="late_entry", rule_id="R-LATE-1",
                          reason="Arrived late", detail={"a": 1}))
    db.session.commit()


@pytest.fixture
def other_server(databases, migrated_db, tmp_path):
    """A second ShuffleUp on its own database, set up: its operator made (as the set-up link makes it)."""
    database = databases.copy(migrated_db, tmp_path)
    other = make_app(database)
    with other.app_context():
        make_operator()
        db.session.remove()
    yield other
    with other.app_context():
        db.session.remove()
        db.engine.dispose()
    databases.drop(database)


@pytest.mark.parametrize(("table", "column", "value", "raw", "reason"), EDITS,
                         ids=[f"{e[0]}.{e[1]}-{e[4][:20]}" for e in EDITS])
def test_an_edited_league_file_with_a_fresh_checksum_is_refused_by_its_line(app, other_server, table, column,
                                                                             value, raw, reason):
    league = source_league()
    _ruling(league)
    data, line = edited(league_file(league), table, column, value, raw=raw)
    with other_server.app_context():
        before = counts()
        with pytest.raises(export.ExportFileError) as refused:
            export.import_league(io.BytesIO(data))
        db.session.rollback()
        assert reason in str(refused.value) and f"line {line}" in str(refused.value)
        assert counts() == before  # nothing written


def test_the_operator_s_page_refuses_an_edited_file_by_its_line(app, other_server):
    league = source_league()
    data, line = edited(league_file(league), "events", "structure", [{"kind": "level"}])
    with other_server.app_context():
        phone = operator_phone(other_server)
        before = counts()
        answer = phone.post("/operator/leagues/import", data={
            "csrf_token": csrf_token(phone, "/operator/"), "file": (io.BytesIO(data), "harbour.json")})
        page = answer.get_data(as_text=True)
        assert answer.status_code == 422 and f"line {line}" in page and "Nothing was imported" in page
        assert counts() == before


def test_the_cli_refuses_an_edited_file_by_its_line(app, other_server, tmp_path):
    league = source_league()
    data, line = edited(league_file(league), "members", "name", "Ann\u200bLee")
    (tmp_path / "harbour.json").write_bytes(data)
    with other_server.app_context():
        before = counts()
        result = other_server.test_cli_runner().invoke(args=["league", "import", str(tmp_path / "harbour.json")])
        assert result.exit_code == 1 and f"line {line}" in result.output and "nothing was imported" in result.output
        assert counts() == before


def test_a_night_with_a_bad_structure_never_gets_in_so_its_pages_stand(app, other_server):
    """The file's bad structure is refused (above); the file unedited comes in and its night's clock
    answers, as every screen reads it (R-CLOCK-1)."""
    league = source_league()
    data = b"".join(league_file(league))
    with other_server.app_context():
        export.import_league(io.BytesIO(data))
        db.session.commit()
        event = db.session.scalar(sa.select(Event))
        answer = other_server.test_client().get(f"/api/events/{event.id}/clock")
        assert answer.status_code == 200 and answer.get_json()["level"]


# ---- A league file into a ShuffleUp after its set-up (its operator's login exists) ----

def test_the_operator_imports_a_league_file_after_set_up(app, other_server):
    league = source_league()
    db.session.add_all([Member.named(league.id, f"Member {n:04}") for n in range(1500)])
    db.session.commit()
    data = b"".join(league_file(league))
    assert len(data) > app.config["REQUEST_BODY_MAX"]  # a file route's own limit, not the forms'
    with other_server.app_context():
        phone = operator_phone(other_server)
        answer = phone.post("/operator/leagues/import", data={
            "csrf_token": csrf_token(phone, "/operator/"), "file": (io.BytesIO(data), "harbour.json")})
        page = answer.get_data(as_text=True)
        assert answer.status_code == 200 and "Harbour League is imported" in page
        assert "Harbour League" in phone.get("/operator/").get_data(as_text=True)
        # the file's organiser logs in with the file's password; the operator is still the operator
        nina = other_server.test_client()
        login(nina, "nina", "pub-night-2026")
        assert nina.get("/organiser/").location.startswith("/organiser/harbour-league/")
        assert logins.find_login("olga").role == Role.OPERATOR


def test_flask_league_import_after_set_up(app, other_server, tmp_path):
    league = source_league()
    (tmp_path / "harbour.json").write_bytes(b"".join(league_file(league)))
    with other_server.app_context():
        result = other_server.test_cli_runner().invoke(args=["league", "import", str(tmp_path / "harbour.json")])
        assert result.exit_code == 0, result.output
        assert "Imported Harbour League" in result.output
        assert db.session.scalar(sa.select(League.name)) == "Harbour League" and _count(User) == 2


def test_a_new_league_s_organiser_imports_after_set_up(app, other_server):
    """The operator starts a league; its organiser brings the file in on the league's Data page
    (the new, empty league gives way to the file's)."""
    league = source_league()
    data = b"".join(league_file(league))
    with other_server.app_context():
        operator = operator_phone(other_server)
        started = post_form(operator, "/operator/leagues", "/operator/", name="Harbour Import", kind="free",
                            timezone="Australia/Sydney", display_name="Pat", username="pat")
        assert started.status_code == 200
        pat = logins.find_login("pat")
        pat.set_password("pub-night-2026")
        db.session.commit()
        organiser = other_server.test_client()
        login(organiser, "pat", "pub-night-2026")
        answer = organiser.post("/organiser/harbour-import/import", data={
            "csrf_token": csrf_token(organiser, "/organiser/harbour-import/data"),
            "file": (io.BytesIO(data), "harbour.json")})
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert db.session.scalars(sa.select(League.name)).all() == ["Harbour League"]


def test_a_file_whose_ids_this_server_gives_others_is_refused_naming_them(app, other_server):
    """A league exported from a ShuffleUp with no operator (its organiser is login 1) meets this
    server's operator (login 1): refused, naming the table and the id, nothing written."""
    league = leagues.create_league("Harbour League", "free")
    db.session.flush()
    logins.new_login("nina", "Nina", Role.ORGANISER, league, password="pub-night-2026")
    db.session.commit()
    data = b"".join(league_file(league))
    with other_server.app_context():
        before = counts()
        with pytest.raises(export.ExportFileError, match=r"already has users with the file's ids \(1\)"):
            export.import_league(io.BytesIO(data))
        db.session.rollback()
        assert counts() == before
