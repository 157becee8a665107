"""The app shell: the web app manifest and its icons, the service worker served from the
site root with a version that changes with the static files, the offline page, and the head every
page shares (manifest link, worker registration, the theme applied before the first paint)."""
import datetime as dt
import json
import re
import shutil
import struct
from pathlib import Path

import pytest

from blueprints.play.shell import app_shell
from services.models import Event, Venue
from tests.conftest import login
from wiring.extensions import db

ROOT = Path(__file__).resolve().parents[2]
DARK_BG = "#101418"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    assert response.headers["Cache-Control"] == "no-cache"
    manifest = json.loads(response.data)
    assert manifest["name"] and manifest["short_name"] == "ShuffleUp"
    assert (manifest["start_url"], manifest["scope"], manifest["id"], manifest["display"]) == ("/", "/", "/", "standalone")
    # The splash screen and the browser's bar match the dark theme the pages open in.
    assert manifest["theme_color"] == manifest["background_color"] == DARK_BG
    css = (ROOT / "static/css/app.css").read_text()
    assert re.search(r":root \{\s*--bg: (#[0-9a-f]{6})", css).group(1) == DARK_BG
    assert f'<meta name="theme-color" content="{DARK_BG}">' in client.get("/").get_data(as_text=True)
    purposes = set()
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.mimetype == icon["type"] == "image/png", icon
        width, height = png_size(image.data)
        assert icon["sizes"] == f"{width}x{height}", icon
        purposes.add((icon["sizes"], icon["purpose"]))
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes


def test_service_worker_from_the_site_root(app, client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    assert "Service-Worker-Allowed" not in response.headers  # at the root, its scope is already every page
    script = response.get_data(as_text=True)
    shell = app.extensions["shuffleup_shell"]
    assert f'const VERSION="{shell["version"]}";' in script  # minified, as the static scripts are
    assert "//" not in script.replace("://", "") and "/*" not in script
    precache = json.loads(re.search(r"const PRECACHE=(\[.*?\]);", script).group(1))
    # What every player's page needs and the clock's script, by their hashed URLs: not htmx (cached
    # when a page first uses it).
    assert sorted(url.partition("?")[0] for url in precache) == [
        "/offline", "/static/css/app.css", "/static/js/app.js", "/static/js/clock.js"]
    for not_precached in ("vendor/htmx-2.0.11.min.js", "vendor/htmx-ext-sse-2.2.4.min.js", "host/roster.js",
                          "host/controls.js", "host/kept.js", "host/host.css", "organiser/organiser.css", "organiser/pack.css", "staff/staff.css"):
        assert not any(url.startswith(f"/static/{not_precached}") for url in precache)
        assert (ROOT / "static" / not_precached).exists()
    # What it must never cache: fragments (HX-Request), /api/, the clock's stream.
    assert 'request.headers.has("HX-Request")' in script and 'const API="/api/";' in script
    assert 'url.pathname.endsWith("/stream")' in script
    assert 'addEventListener("fetch"' in script  # Chrome's installability wants a fetch handler
    assert client.get("/static/sw.js").status_code == 404  # one worker, at the root only


def test_the_worker_version_changes_with_any_static_file(app, tmp_path):
    static = tmp_path / "static"
    shutil.copytree(ROOT / "static", static)
    same = app_shell(app, str(static))
    assert same == app.extensions["shuffleup_shell"]  # hashed once at start, from the same files
    (static / "css" / "app.css").write_text((static / "css" / "app.css").read_text() + "\n/* a deploy */\n")
    changed = app_shell(app, str(static))
    assert changed["version"] != same["version"] and changed["precache"] == same["precache"]
    (static / "icons" / "icon-192.png").write_bytes(b"new icon")
    assert app_shell(app, str(static))["version"] != changed["version"]  # not precached, still versioned


def test_offline_page(app, client, organiser):
    anonymous = client.get("/offline")
    html = anonymous.get_data(as_text=True)
    assert anonymous.status_code == 200
    assert "You're offline" in html and "data-offline" in html and ">Try again</a>" in html
    # The worker caches it for everyone on the phone: no account links, whoever fetched it.
    assert "Log in" not in html
    login(client, "organiser", "pw-organiser")
    assert "Log out" not in client.get("/offline").get_data(as_text=True)


@pytest.fixture
def night(league):
    venue = Venue(league_id=league.id, name="Rose")
    db.session.add(venue)
    db.session.flush()
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date.today(),
                  status="running")
    db.session.add(event)
    db.session.commit()
    return event


def test_every_page_links_the_manifest_and_registers_the_worker(client, league, night):
    pages = ["/", "/leagues/harbour-league", "/leagues/harbour-league/months/2026-10",
             "/leagues/harbour-league/seasons/2026", "/leagues/harbour-league/months/2026-10/qualifiers",
             "/leagues/harbour-league/nights", f"/events/{night.id}", f"/events/{night.id}/screen", "/offline",
             "/login"]
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, path
        assert re.search(r'<script src="/static/js/app\.js\?v=[0-9a-f]{12}" defer data-sw="/sw\.js"></script>', html), path


def test_the_saved_theme_is_applied_before_the_first_paint(client):
    html = client.get("/").get_data(as_text=True)
    head = html[:html.index("</head>")]
    # The inline script runs before the stylesheet link, so the first paint is already in the right theme.
    assert head.index('localStorage.getItem("shuffleup-theme")') < head.index('rel="stylesheet"')
    assert '<html lang="en" data-theme="dark">' in html  # dark by default, for dim pubs
    # The toggle: a button with an accessible name and its state, shown by app.js (no script, no toggle).
    assert re.search(r'<button type="button" class="theme-toggle" data-theme-toggle aria-pressed="false" '
                     r'aria-label="Light theme" hidden>', html)
