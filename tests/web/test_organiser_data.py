"""The organiser's import and export page (blueprints/organiser/data.py): the CSV results import with its
preview and confirm (the command line's checks, a stale or forged confirm refused, nothing written on a
refusal), the league file downloaded, and a league file imported into a new, empty league."""
import io
import re

import pytest

from league.results_file import ResultsFileError, parse_results
from services import demo, export, leagues, results
from services.models import Entry, Event, League, Member, User, Venue
from tests.conftest import csrf_token, login, make_app
from tests.fixtures.results import HEADER, five_player_night, seed_results
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "a results file imported in one transaction and refused whole: a rollback after many inserts")

DATA = "/organiser/harbour-league/data"
GOOD = HEADER + "".join(
    f"2026-11-0{day},19:00,Rose,nightly,{p},{name},\n"
    for day in (3, 5) for p, name in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve"], 1))
BAD = HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-13-03,19:00,Rose,nightly,2,Bob,\n" \
               "2026-11-03,19:00,Rose,nightly,3,Ann,\n"


def organiser_client(client):
    login(client, "organiser", "pw-organiser")
    return client


def upload(client, text: str | bytes, *, replace=False, htmx=True, name="results.csv"):
    data = {"csrf_token": csrf_token(client, DATA),
            "file": (io.BytesIO(text.encode() if isinstance(text, str) else text), name)}
    if replace:
        data["replace"] = "y"
    return client.post(f"{DATA.rsplit('/', 1)[0]}/results/preview", data=data, content_type="multipart/form-data",
                       headers={"HX-Request": "true"} if htmx else {})


def token_of(html: str) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def confirm(client, token: str):
    return client.post("/organiser/harbour-league/results/import",
                       data={"csrf_token": csrf_token(client, DATA), "token": token}, headers={"HX-Request": "true"})


def entries() -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(Entry))


def snapshot():
    return (entries(), db.session.scalar(db.select(db.func.count()).select_from(Member)),
            db.session.scalar(db.select(db.func.count()).select_from(Event)),
            db.session.scalar(db.select(db.func.count()).select_from(Venue)))


@pytest.mark.parametrize("method,path", [
    ("get", DATA), ("get", "/organiser/harbour-league/export.json"),
    ("post", "/organiser/harbour-league/results/preview"), ("post", "/organiser/harbour-league/results/import"),
    ("post", "/organiser/harbour-league/import")])
def test_organiser_only(client, league, organiser, method, path):
    before = snapshot()
    anonymous = getattr(client, method)(path, data={"csrf_token": csrf_token(client)})
    assert anonymous.status_code in (302, 401)  # a player (no login): to the login page, or a POST refused
    login(client, "host", "pw-host")
    refused = getattr(client, method)(path, data={"csrf_token": csrf_token(client, "/host/")})
    assert refused.status_code == 403  # a host runs nights, not the league's data
    assert snapshot() == before


def test_another_leagues_data_is_not_found(client, league, organiser):
    organiser_client(client)
    assert client.get("/organiser/someone-else/data").status_code == 404
    assert client.get("/organiser/someone-else/export.json").status_code == 404


def test_the_page(client, league, organiser):
    organiser_client(client)
    page = client.get(DATA)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<h1 id=\"data-title\">Import and export</h1>" in html
    assert 'enctype="multipart/form-data"' in html and 'name="csrf_token"' in html
    assert "Download the league file" in html and "Import the league file" in html  # only its logins yet
    fragment = client.get(DATA, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert fragment.lstrip().startswith("{#") is False and "<html" not in fragment and 'id="data"' in fragment


def test_r_pts_csv_preview_then_confirm(client, league, organiser):
    organiser_client(client)
    before = snapshot()
    preview = upload(client, GOOD)
    html = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert snapshot() == before  # a preview writes nothing
    assert "Preview: what will change" in html and "Import 10 results" in html
    assert "<span>New members</span> <strong>5</strong>" in html and "New venues:</strong> Rose." in html
    assert html.count("new night") == 2 and "Ann, Bob, Cat, Dan, Eve" in html
    done = confirm(client, token_of(html))
    assert done.status_code == 200 and "Imported 10 results from 2 nights" in done.get_data(as_text=True)
    assert entries() == 10
    # the same confirm again: the nights now have results, so it is refused (nothing doubled)
    again = confirm(client, token_of(html))
    assert again.status_code == 409 and "already has results" in again.get_data(as_text=True)
    assert entries() == 10


def test_csv_replace_is_shown_and_needs_the_tick(client, league, organiser):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    organiser_client(client)
    refused = upload(client, GOOD)
    assert refused.status_code == 422 and "line 2: 2026-11-03 19:00 at Rose already has results" in \
        refused.get_data(as_text=True)
    preview = upload(client, GOOD, replace=True)
    html = preview.get_data(as_text=True)
    assert preview.status_code == 200 and "replaces its results" in html and "<span>New members</span> <strong>0" in html
    assert confirm(client, token_of(html)).status_code == 200
    assert entries() == 10


def test_a_bad_file_names_its_lines_and_imports_nothing(client, league, organiser):
    organiser_client(client)
    before = snapshot()
    refused = upload(client, BAD)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "Nothing was changed" in html
    assert "line 3: bad date" in html and "line 4: Ann is already in 2026-11-03 19:00 at Rose on line 2" in html
    for text, reason in ((b"\xff\xfe\x00d", "not UTF-8"), ("", "the file is empty"), ("date,venue\n", "missing column")):
        refused = upload(client, text)
        assert refused.status_code == 422 and reason in refused.get_data(as_text=True)
    no_file = client.post("/organiser/harbour-league/results/preview", data={"csrf_token": csrf_token(client, DATA)},
                          headers={"HX-Request": "true"})
    assert no_file.status_code == 422 and "choose a CSV file" in no_file.get_data(as_text=True)
    assert snapshot() == before


def test_a_markup_name_is_escaped_in_the_preview(client, league, organiser):
    organiser_client(client)
    html = upload(client, HEADER + '2026-11-03,19:00,Rose,nightly,1,"<b>Bold</b> Ann",\n').get_data(as_text=True)
    assert "<b>Bold</b>" not in html and "&lt;b&gt;Bold&lt;/b&gt; Ann" in html


def test_a_forged_or_stale_confirm_is_refused(client, league, organiser):
    organiser_client(client)
    html = upload(client, GOOD).get_data(as_text=True)
    token = token_of(html)
    before = snapshot()
    forged = confirm(client, token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"))
    assert forged.status_code == 400 and "not previewed here" in forged.get_data(as_text=True)
    assert confirm(client, "").status_code == 400
    # a token signed for another league
    other = leagues.create_league("Other League", "free")
    db.session.commit()
    from blueprints.organiser.data import _signer
    with client.application.test_request_context():
        elsewhere = _signer().dumps({"league": other.id, "csv": GOOD, "replace": False, "preview": "x"})
    assert confirm(client, elsewhere).status_code == 400
    with client.application.test_request_context():  # signed here, but a file the rules now refuse
        unreadable = _signer().dumps({"league": league.id, "csv": BAD, "replace": False, "preview": "x"})
    refused = confirm(client, unreadable)
    assert refused.status_code == 409 and "line 3: bad date" in refused.get_data(as_text=True)
    assert snapshot() == before
    # stale: a member of the file joined the league between the preview and the confirm
    db.session.add(Member.named(league.id, "Eve"))
    db.session.commit()
    stale = confirm(client, token)
    stale_html = stale.get_data(as_text=True)
    assert stale.status_code == 409 and "changed since this preview" in stale_html
    assert entries() == 0
    assert "<span>New members</span> <strong>4</strong>" in stale_html  # the new preview, to confirm
    assert confirm(client, token_of(stale_html)).status_code == 200 and entries() == 10


def test_an_old_preview_is_refused(client, league, organiser, monkeypatch):
    organiser_client(client)
    token = token_of(upload(client, GOOD).get_data(as_text=True))
    monkeypatch.setattr("blueprints.organiser.data.PREVIEW_MAX_AGE_S", -1)
    old = confirm(client, token)
    assert old.status_code == 409 and "over an hour old" in old.get_data(as_text=True) and entries() == 0


def test_plain_form_posts_work_without_script(client, league, organiser):
    organiser_client(client)
    page = upload(client, GOOD, htmx=False)
    assert page.status_code == 200 and "<html" in page.get_data(as_text=True)


def test_the_league_file_downloads(client, league, organiser):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    organiser_client(client)
    response = client.get("/organiser/harbour-league/export.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"].startswith('attachment; filename="harbour-league-')
    body = response.get_data()
    out = io.StringIO()
    export.export_league(league, out)
    assert body == out.getvalue().encode()


@pytest.fixture
def league_file(databases, migrated_db, tmp_path):
    """The demo league's file, exported from a database of its own."""
    database = databases.copy(migrated_db, tmp_path)
    other = make_app(database)
    with other.app_context():
        demo.load_if_empty()
        out = io.StringIO()
        export.export_league(db.session.scalar(db.select(League)), out)
        db.session.remove()
        db.engine.dispose()
    databases.drop(database)
    return out.getvalue().encode()


def post_league_file(client, data: bytes):
    return client.post("/organiser/harbour-league/import", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(client, DATA), "file": (io.BytesIO(data), "league.json")})


def test_a_league_file_fills_a_new_empty_league(client, league, organiser, league_file):
    organiser_client(client)
    assert "Import the league file" in client.get(DATA).get_data(as_text=True)  # empty: only its logins
    broken = post_league_file(client, league_file[:-100])
    assert broken.status_code == 422 and "truncated" in broken.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(League)) == 1  # nothing written
    assert client.get(DATA).status_code == 200  # still logged in: nothing changed
    done = post_league_file(client, league_file)
    assert done.status_code == 200 and f"{demo.LEAGUE_NAME} imported" in done.get_data(as_text=True)
    assert [league.name for league in db.session.scalars(db.select(League))] == [demo.LEAGUE_NAME]
    assert client.get(DATA).status_code == 302  # the old login went with the empty league
    login(client, demo.ORGANISER[0], demo.ORGANISER[1])
    slug = db.session.scalar(db.select(League.slug))
    again = client.get(f"/organiser/{slug}/export.json").get_data()
    assert again == league_file  # the round trip, through the page


def test_a_league_with_data_takes_no_league_file(client, league, organiser, league_file):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    organiser_client(client)
    before = snapshot()
    refused = post_league_file(client, league_file)
    assert refused.status_code == 422 and "already has venues, members or nights" in refused.get_data(as_text=True)
    assert snapshot() == before
    assert db.session.scalar(db.select(User.username).where(User.role == "organiser")) == "organiser"
    none = client.post("/organiser/harbour-league/import", data={"csrf_token": csrf_token(client, DATA)})
    assert none.status_code == 422


def test_a_foreign_file_is_refused_on_the_page(client, league, organiser):
    organiser_client(client)
    refused = post_league_file(client, GOOD.encode())
    assert refused.status_code == 422 and "not a ShuffleUp league export" in refused.get_data(as_text=True)
    assert db.session.scalar(db.select(User.username).where(User.role == "organiser")) == "organiser"


def test_a_body_over_the_limit_is_refused_before_it_is_read_and_nothing_is_written(app, client, league, organiser):
    organiser_client(client)
    before = snapshot()
    app.config["RESULTS_FILE_BODY_MAX"] = 4096
    response = upload(client, GOOD + "2026-11-07,19:00,Rose,nightly,1,Ann,\n" * 200)
    assert response.status_code == 413
    assert "larger than this page takes" in response.get_data(as_text=True)
    assert snapshot() == before


def test_r_late_4_a_file_seating_one_player_in_two_games_at_once_is_refused_with_its_lines(client, organiser):
    organiser_client(client)
    two_venues = HEADER + "".join(f"2026-11-03,19:00,{venue},nightly,{p},{name},\n"
                                  for venue in ("Rose", "Anchor") for p, name in enumerate(["Ann", "Bob"], 1))
    before = snapshot()
    response = upload(client, two_venues)
    page = response.get_data(as_text=True).replace("&#39;", "'")
    assert response.status_code == 422 and 'name="token"' not in page
    assert "line 4: Ann is also in 2026-11-03 19:00 at Rose on line 2" in page and "line 5: Bob" in page
    assert snapshot() == before


def test_r_late_4_a_file_seating_a_player_already_in_a_league_night_at_that_time_is_refused(client, league, organiser):
    """R-LATE-4 against the database: Ann and Bob played the Rose at 19:00 on 3 November; a later file
    seating Ann at the Anchor at that date and time is refused at her line (preview and import alike),
    while the Anchor at 21:00 and the Rose night itself, replaced, are no clash."""
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    organiser_client(client)
    anchor = HEADER + "2026-11-03,19:00,Anchor,nightly,1,Zed,\n2026-11-03,19:00,Anchor,nightly,2,Ann,\n"
    before = snapshot()
    response = upload(client, anchor)
    page = response.get_data(as_text=True).replace("&#39;", "'")
    assert response.status_code == 422 and 'name="token"' not in page
    assert "line 3: Ann is already in the Rose night of 2026-11-03 at 19:00" in page and "Zed is" not in page
    assert snapshot() == before
    with pytest.raises(ResultsFileError, match="line 3: Ann is already in the Rose night"):
        results.import_results(league, parse_results(anchor))
    db.session.rollback()
    later = anchor.replace("19:00", "21:00")
    assert upload(client, later).status_code == 200
    rose_again = HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-11-03,19:00,Rose,nightly,2,Bob,\n"
    assert upload(client, rose_again, replace=True).status_code == 200
