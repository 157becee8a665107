"""The operator brings a league in from another ShuffleUp on a phone (390×844): the league file
uploaded on the operator's page after set-up comes in with its logins; the same file again, and one
edited with a fresh checksum, are refused with the reason (the edited one by its line) and nothing
changes. axe-core on each answer."""
import sqlalchemy as sa
from playwright.sync_api import expect

from services.models import League
from tests.conftest import make_app
from tests.e2e.conftest import axe, check_fits
from tests.fixtures.league_files import edited, league_file, source_league
from tests.fixtures.logins import OPERATOR, OPERATOR_PASSWORD, make_operator
from wiring.extensions import db


def _files(databases, migrated_db, tmp_path) -> tuple[bytes, bytes, int]:
    """(a league file from another ShuffleUp, the same edited with a bad blind structure, its line)."""
    database = databases.copy(migrated_db, tmp_path)
    other = make_app(database)
    with other.app_context():
        lines = league_file(source_league())
        bad, line = edited(lines, "events", "structure", [{"kind": "level", "minutes": 0}])
        db.session.remove()
        db.engine.dispose()
    databases.drop(database)
    return b"".join(lines), bad, line


def _upload(page, name: str, data: bytes) -> None:
    page.get_by_label("League file (.json)").set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    page.get_by_role("button", name="Import the league file").click()


def test_the_operator_brings_a_league_in_and_a_bad_file_is_refused(live_server, phone, databases, migrated_db,
                                                                    tmp_path, screenshot):
    good, bad, line = _files(databases, migrated_db, tmp_path)
    with live_server.app.app_context():
        make_operator()  # as the set-up link makes it
        db.session.remove()
    phone.allow(r"status of 422 .*/operator/leagues/import")  # the refusals below, on purpose
    page = phone()
    page.goto(f"{live_server.url}/login")
    page.get_by_label("Username").fill(OPERATOR)
    page.get_by_label("Password").fill(OPERATOR_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Bring in a league file")).to_be_visible()
    axe(page, "the operator's page with its import form")
    check_fits(page, 390)

    _upload(page, "harbour-edited.json", bad)
    expect(page.locator("#import-problem")).to_contain_text(f"line {line}")
    expect(page.locator("#import-problem")).to_contain_text("Nothing was imported")
    axe(page, "the refused edited file")
    check_fits(page, 390)

    _upload(page, "harbour.json", good)
    expect(page.locator("#leagues [role=status]")).to_contain_text("Harbour League is imported")
    expect(page.locator("#leagues .league")).to_have_count(1)
    screenshot(page, "operator-league-file-imported")
    axe(page, "the imported league")

    _upload(page, "harbour.json", good)  # again: its name is taken now
    expect(page.locator("#import-problem")).to_contain_text("already has a league named")
    expect(page.locator("#leagues .league")).to_have_count(1)
    with live_server.app.app_context():
        assert db.session.scalars(sa.select(League.name)).all() == ["Harbour League"]
        db.session.remove()
