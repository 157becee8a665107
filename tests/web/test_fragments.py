"""Fragments written once: one filter names an event type, and only the page-or-fragment helper
(blueprints/__init__.py) reads the HX-Request header, so no view or template decides page or
fragment on its own."""
import datetime as dt
import re
from pathlib import Path

from blueprints.filters import FILTERS, event_type_label
from services.models import Event, Venue
from tests.conftest import login
from wiring.extensions import db

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"


def test_r_pts_8_event_type_label_names_each_type_as_the_league_does():
    assert FILTERS["event_type_label"] is event_type_label
    assert [event_type_label(name) for name in ("nightly", "highroller", "monthly_final", "highroller_final",
                                                "top10_shootout")] == [
        "Nightly", "High-roller", "Monthly Final", "High-roller Final", "Top-10 Shoot-out"]
    assert event_type_label("charity_night") == "charity_night"  # a type the league does not know, as it is


def test_templates_name_event_types_only_through_the_filter():
    lookups = re.compile(r"event_types\[|EVENT_TYPES|\.event_type\.replace|kind\.label")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted(TEMPLATES.rglob("*.html"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if lookups.search(line)]
    assert found == []


def test_the_organisers_nights_name_each_type_by_its_label(client, league, organiser):
    venue = Venue(league_id=league.id, name="The Anchor")
    db.session.add(venue)
    db.session.flush()
    db.session.add(Event(league_id=league.id, venue_id=venue.id, event_type="top10_shootout",
                         date=league.today() + dt.timedelta(days=3), start_time=dt.time(20, 0)))
    db.session.commit()
    login(client, "organiser", "pw-organiser")
    html = client.get(f"/organiser/{league.slug}/nights").get_data(as_text=True)
    assert "20:00 · Top-10 Shoot-out · scheduled" in html


# The service worker names the header only to let htmx requests through to the network uncached
# (a cache rule, not a page-or-fragment decision); it is checked in test_pwa.py.
SERVICE_WORKER = TEMPLATES / "play" / "sw.js"
HELPER = ROOT / "blueprints" / "__init__.py"
CODE = ("app.py", "blueprints", "live", "services", "league", "wiring")


def test_only_the_helper_reads_hx_request():
    # Any spelling (headers are case-blind); in templates, not the hx-request="…" attribute that
    # sets an htmx request's options.
    header = re.compile(r"hx-request(?![\w-]*\s*=)", re.IGNORECASE)
    code = [path for name in CODE for path in ([ROOT / name] if name.endswith(".py") else (ROOT / name).rglob("*.py"))]
    files = [path for path in [*code, *TEMPLATES.rglob("*")] if path.is_file() and path not in (HELPER, SERVICE_WORKER)]
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for path in sorted(files)
             for number, line in enumerate(path.read_text().splitlines(), 1) if header.search(line)]
    assert found == []
    assert "HX-Request" in HELPER.read_text() and "HX-Request" in SERVICE_WORKER.read_text()


def test_a_fragment_alone_brings_its_title_and_a_history_restore_gets_one_page_title(client, league):
    month = f"/leagues/{league.slug}/months/2026-10"
    fragment = client.get(month, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and fragment.count("<title>") == 1
    restore = client.get(month, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert restore.get_data(as_text=True).count("<title>") == 1  # the page's own, in <head>


def test_a_logged_out_htmx_request_is_refused_not_redirected(client):
    assert client.get("/host/", headers={"HX-Request": "true"}).status_code == 401
    assert client.get("/host/").status_code == 302
