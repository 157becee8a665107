"""The organiser imports a month of results from a CSV file on a phone (390×844): choose the file,
read the preview of what will change, confirm; a bad file shows its line-numbered problems and
imports nothing. Then the league file downloads."""
import json

import pytest
from playwright.sync_api import expect

from services.models import Entry
from tests.e2e.conftest import organiser_league
from wiring.extensions import db

SLUG = "harbour-league"
DATA = f"/organiser/{SLUG}/data"
RESULTS = """\
date,start_time,venue,event_type,position,player,status
2026-11-03,19:00,Crown Hotel,nightly,1,Alice,
2026-11-03,19:00,Crown Hotel,nightly,2,Bob,
2026-11-03,19:00,Crown Hotel,nightly,3,O'Brien <b>,
2026-11-03,19:00,Crown Hotel,nightly,4,Dana,
2026-11-03,19:00,Crown Hotel,nightly,5,Eve,
2026-11-10,19:30,The Anchor,nightly,1,Bob,
2026-11-10,19:30,The Anchor,nightly,2,Alice,
2026-11-10,19:30,The Anchor,nightly,3,Frank,
2026-11-10,19:30,The Anchor,nightly,,Gina,no_show
"""
BAD = "date,start_time,venue,event_type,position,player,status\n2026-11-31,19:00,Crown Hotel,nightly,1,Alice,\n"


@pytest.fixture
def league_server(live_server):
    return organiser_league(live_server)


def entries(app) -> int:
    with app.app_context():
        count = db.session.scalar(db.select(db.func.count()).select_from(Entry))
        db.session.remove()
    return count


def test_csv_import_preview_and_confirm_on_a_phone(phone, league_server, screenshot, tmp_path):
    base = league_server.url
    page = phone()
    phone.allow(r"status of 422 .*/results/preview")  # the refused file, on purpose
    page.goto(base + "/login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    page.goto(base + f"/organiser/{SLUG}/setup")
    page.get_by_role("link", name="Import and export").click()
    expect(page.get_by_role("heading", name="Import and export")).to_be_visible()

    bad = tmp_path / "bad.csv"
    bad.write_text(BAD)
    page.get_by_label("Results file (CSV)").set_input_files(str(bad))
    page.get_by_role("button", name="Preview the import").click()
    problems = page.locator("#import-problems")
    expect(problems).to_contain_text("line 2:")
    expect(problems).to_contain_text("Nothing was changed")
    screenshot(page, "organiser-csv-refused")
    assert entries(league_server.app) == 0

    good = tmp_path / "november.csv"
    good.write_text(RESULTS)
    page.get_by_label("Results file (CSV)").set_input_files(str(good))
    page.get_by_role("button", name="Preview the import").click()
    preview = page.locator("#preview")
    expect(preview.get_by_role("heading", name="Preview: what will change")).to_be_visible()
    summary = preview.locator(".summary li").evaluate_all(
        "items => items.map(li => [...li.children].map(c => c.textContent.trim()))")
    assert summary[:4] == [["Nights", "2"], ["Results", "9"], ["New members", "7"], ["New venues", "2"]]
    expect(preview).to_contain_text("O'Brien <b>")  # shown as typed, never as markup
    assert preview.locator("b").count() == 0
    confirm = page.get_by_role("button", name="Import 9 results")
    assert confirm.bounding_box()["height"] >= 44
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "organiser-csv-preview")
    assert entries(league_server.app) == 0  # the preview wrote nothing

    confirm.click()
    expect(page.locator("#import-done")).to_contain_text("Imported 9 results from 2 nights")
    screenshot(page, "organiser-csv-imported")
    assert entries(league_server.app) == 9

    with page.expect_download() as download:
        page.get_by_role("link", name="Download the league file").click()
    saved = tmp_path / "league.json"
    download.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert data["format"] == "shuffleup-league" and data["league"] == "Harbour League"
    entries_table = next(t for t in data["tables"] if t["table"] == "entries")
    assert len(entries_table["rows"]) == 9
