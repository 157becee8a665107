"""Browser tests: a real app served over HTTP, and Debian's Chromium driven by Playwright.

Every test under tests/e2e is marked `e2e`. Chromium must be at CHROMIUM (Debian's package; CI
installs it): without it these tests fail, they never skip. Never run `playwright install`.
"""
from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import NamedTuple

import pytest
from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

from league.results_file import parse_results
from services import results
from tests.conftest import make_app
from tests.fixtures.new_league import new_league
from wiring.extensions import db

CHROMIUM = "/usr/lib/chromium/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}
TIMEOUT_MS = 10_000
HERE = Path(__file__).resolve().parent
SCREENSHOTS = HERE.parents[1] / "test-artifacts" / "screenshots"
AXE = HERE / "vendor" / "axe-core-4.14.1.min.js"


def pytest_collection_modifyitems(config, items):
    """Mark every test in this folder `e2e` (this hook sees the whole session's items)."""
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


class Wire:
    """What the server put on the wire for each request, as a phone downloads it: `head` (status
    line and headers) and `body` (after compression, chunk framing included) in bytes, by path
    (with its query). The event stream's bytes count as far as they have gone out."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.hits: list[dict] = []

    def reset(self) -> None:
        with self.lock:
            self.hits.clear()

    def sent(self) -> list[dict]:
        with self.lock:
            return [dict(hit) for hit in self.hits]

    def handler(self) -> type[WSGIRequestHandler]:
        """werkzeug's request handler, counting every byte it writes to the socket."""
        wire = self

        class Counted:
            def __init__(self, raw, handler):
                self.raw, self.handler = raw, handler

            def write(self, data):
                hit = self.handler.hit
                if hit is not None:
                    with wire.lock:
                        hit["head" if self.handler.in_head else "body"] += len(data)
                return self.raw.write(data)

            def __getattr__(self, name):
                return getattr(self.raw, name)

        class Handler(WSGIRequestHandler):
            hit, in_head = None, False

            def setup(self):
                super().setup()
                self.wfile = Counted(self.wfile, self)

            def run_wsgi(self):
                self.hit = {"path": self.path, "status": 0, "type": "", "head": 0, "body": 0}
                with wire.lock:
                    wire.hits.append(self.hit)
                super().run_wsgi()

            def send_response(self, code, message=None):
                self.hit["status"] = code
                self.in_head = True
                super().send_response(code, message)

            def send_header(self, keyword, value):
                if keyword.lower() == "content-type":
                    self.hit["type"] = value
                super().send_header(keyword, value)

            def end_headers(self):
                super().end_headers()
                self.in_head = False

        return Handler


class LiveServer(NamedTuple):
    """The running app: `url` (no trailing slash), the `app` (seed it in app.app_context()) and
    the `wire`: the bytes each response took over the network."""
    url: str
    app: Flask
    wire: Wire


@pytest.fixture
def live_server(db_path):
    """A real app on a fresh migrated SQLite copy, served by werkzeug on 127.0.0.1 and a free port."""
    app = make_app(db_path)
    wire = Wire()
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=wire.handler())
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", app, wire)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, for the whole session."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install Debian's package "
                    "(apt-get install -y chromium). Browser tests never download a browser.",
                    pytrace=False)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def _as_function(wait_for_function):
    """page.wait_for_function that takes a bare expression ("buzzes.length === 2") as an arrow
    function: Playwright evaluates a bare expression with eval() inside the page, which the pages'
    Content-Security-Policy (no 'unsafe-eval') refuses; a function goes through DevTools instead."""
    def wait(expression: str, *args, **kwargs):
        if not re.match(r"\s*(async\b|function\b|\(|[A-Za-z_$][\w$]*\s*=>)", expression):
            expression = f"() => ({expression})"
        return wait_for_function(expression, *args, **kwargs)
    return wait


@pytest.fixture
def phone(browser):
    """A factory: each call is a new simulated phone (its own browser context) and returns its page.

    Defaults to 390×844 at 2× with touch; pass new_context() options to change them, e.g.
    phone(viewport={"width": 320, "height": 640}). Uncaught script errors and console errors fail
    the test, except those a test provokes on purpose and names with `phone.allow(regex)`.
    """
    contexts = []
    errors: list[str] = []
    allowed: list[str] = []

    def open_phone(**options):
        context = browser.new_context(**{**PHONE, **options})
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.wait_for_function = _as_function(page.wait_for_function)
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
        page.on("console", lambda message: errors.append(
            f"console {message.type}: {message.text} ({message.location.get('url', '')})")
            if message.type == "error" else None)
        return page

    open_phone.allow = allowed.append
    yield open_phone
    for context in contexts:
        context.close()
    errors = [error for error in errors if not any(re.search(pattern, error) for pattern in allowed)]
    assert not errors, "the browser reported errors:\n" + "\n".join(errors)


def save_screenshot(page, name: str, full_page: bool = True) -> Path:
    """Save a full-page PNG (or the screen's: `full_page=False`) as test-artifacts/screenshots/<name>.png
    and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") + ".png")
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture
def screenshot():
    """`screenshot(page, name)`: a full-page PNG in test-artifacts/screenshots/ for people to look at."""
    return save_screenshot


def seed_tonight(app) -> tuple[int, int, str]:
    """Tonight's nightly game at the Rose & Crown (league "Harbour League", host harry / pw-harry),
    running: (league id, event id, check-in code)."""
    import datetime as dt

    from tests.fixtures import tonight as seed
    with app.app_context():
        event = seed.tonight(username="harry", password="pw-harry", start=dt.time(19, 0))
        found = (event.league_id, event.id, event.check_in_code)
        db.session.remove()
    return found


def organiser_league(live_server, results_file: str = ""):
    """The live server with a new free "Harbour League" and its organiser olive / pw-olive
    (tests/fixtures/new_league.py), and the results file's nights imported, if one is given."""
    with live_server.app.app_context():
        league = new_league()
        if results_file:
            results.import_results(league, parse_results(results_file))
            db.session.commit()
        db.session.remove()
    return live_server


def join_and_check_in(page, base: str, code: str, name: str) -> None:
    """A new player on their phone: the check-in link, their name, 18+, "Join and check in"."""
    page.goto(f"{base}/check-in/{code}")
    page.get_by_label("Your name").fill(name)
    page.get_by_label("I am 18 or over").check()
    page.get_by_role("button", name="Join and check in").click()


@pytest.fixture
def tonight(live_server):
    """(base URL, event id, check-in code) of tonight's game, seeded by seed_tonight."""
    _, event_id, code = seed_tonight(live_server.app)
    return live_server.url, event_id, code


def check_fits(page, width):
    """No sideways scrolling on a phone `width` CSS pixels wide, once its stylesheets and images are
    in (measured before they arrive, the bare page is wider: a failure of the test, not the page)."""
    page.wait_for_load_state("load")
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} scrolls sideways: {scroll_width}px wide on a {width}px screen"


# A checkbox or radio counts through its label: the whole label is the tap target (the check-in
# page, the roster's ticks).
TAPS_JS = """controls => [...document.querySelectorAll(controls)]
  .filter(el => el.offsetParent !== null && el.type !== 'hidden')
  .map(el => { const t = ['checkbox', 'radio'].includes(el.type) && el.closest('label') || el;
               const r = t.getBoundingClientRect();
               return [el.textContent.trim() || el.getAttribute('aria-label') || el.name, r.width, r.height]; })"""


def check_taps(page, controls="a[href], button, input, select", size=44):
    """Every visible one of `controls` (a CSS selector: by default every link, button and field) is at
    least `size` CSS pixels tall and wide: 44, a thumb, for the host's controls and the public pages."""
    small = [(name, w, h) for name, w, h in page.evaluate(TAPS_JS, controls) if h < size or w < size]
    assert not small, f"{page.url}: too small to tap: {small}"


def axe_report(page) -> list:
    """axe-core's serious and critical findings on the page (WCAG 2.2 AA, the 24 px target size
    included: axe leaves that rule off unless asked), as (rule, impact, help, the first targets)."""
    # Evaluated through the DevTools protocol: a <script> tag with axe inline would break the pages'
    # Content-Security-Policy (no inline script).
    page.evaluate(AXE.read_text() + "\n;undefined")
    result = page.evaluate("""async () => await axe.run(document, {
        resultTypes: ['violations'], rules: {'target-size': {enabled: true}}})""")
    return [(v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:5])
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def axe(page, context):
    """Run axe-core on the page; fail on any serious or critical violation."""
    bad = axe_report(page)
    assert not bad, f"{context}: axe found:\n" + json.dumps(bad, indent=1)
