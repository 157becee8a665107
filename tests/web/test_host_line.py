"""The host's line (R-CLOCK-3/4): the clock's taps over the WebSocket the host's night screen keeps
open (blueprints/host/line.py), against a real server, as the Flask test client speaks no WebSocket:
werkzeug's in a thread over this test's database (as `make dev` and the browser tests serve), and
once gunicorn's gevent worker (as production serves). The client is simple_websocket's, opened as a
browser opens it: the login's cookies, the page's Origin, and Host with the port."""
import base64
import html
import http.cookiejar
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import NamedTuple

import pytest
import simple_websocket
from flask import Flask
from sqlalchemy import exc
from werkzeug.serving import make_server

from blueprints.host import line as host_line
from services import leagues
from services.models import Event, User, Venue
from tests.bench import clock_load
from tests.conftest import database_uri, make_app
from tests.fixtures.tonight import tonight
from wiring import health
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("the line reads the night and the login in one hand-built SQL statement")

WAIT_S = 10  # every wait is bounded: a line that never answers fails its test instead of hanging the run
AGENT = "shuffleup-line-test"  # one User-Agent for the login and the line, as one browser sends


class Line(simple_websocket.Client):
    """The night screen's WebSocket. simple_websocket's client sends Host without the port, which
    the line's Origin check would rightly take for another site: send it as a browser does."""

    def handshake(self):
        self.host = f"{self.host}:{self.port}"
        self.sock.settimeout(WAIT_S)  # a handshake the server never answers fails, not hangs
        super().handshake()
        self.sock.settimeout(None)


def _daemon_thread(target):
    # The client's reader thread must not keep pytest's process alive after a failed test.
    return threading.Thread(target=target, daemon=True)


class Browser:
    """A host's browser: its cookie jar, logged in through the real /login form, and the CSRF token
    of the night screen's controls."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.opener.addheaders = [("User-Agent", AGENT)]
        self.token = ""

    def open(self, path: str, form: dict | None = None):
        data = None if form is None else urllib.parse.urlencode(form).encode()
        return self.opener.open(self.base + path, data, timeout=WAIT_S)

    def login(self, username: str, password: str, event_id: int) -> "Browser":
        page = self.open("/login").read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        landed = self.open("/login", {"username": username, "password": password, "csrf_token": token})
        assert urllib.parse.urlsplit(landed.url).path == "/host/", f"{username} was not logged in"
        night_screen = self.open(f"/host/events/{event_id}")
        if night_screen.status == 200:  # a host who runs the night: the controls' token
            self.token = re.search(r'name="csrf_token" value="([^"]+)"', night_screen.read().decode()).group(1)
        return self

    def logout(self) -> None:
        page = self.open("/").read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.open("/logout", {"csrf_token": token}).read()

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def line(self, event_id: int, origin: str | None = "", cookie: bool = True) -> Line:
        """The host's line of night `event_id`, opened from the night screen (`origin` "" is the
        page's own; None sends no Origin)."""
        headers = {"User-Agent": AGENT}
        if cookie:
            headers["Cookie"] = self.cookie()
        if origin is not None:
            headers["Origin"] = origin or self.base
        ws_url = "ws" + self.base.removeprefix("http") + f"/host/events/{event_id}/clock/line"
        return Line(ws_url, headers=headers, thread_class=_daemon_thread)


def send(line: Line, fields: dict | str) -> dict:
    """One tap over the line (the controls' form urlencoded, or a raw message) → its answer."""
    line.send(fields if isinstance(fields, str) else urllib.parse.urlencode(fields))
    return receive(line)


def receive(line: Line) -> dict:
    message = line.receive(WAIT_S)
    assert message is not None, "the line gave no answer"
    return json.loads(message)


def tap(line: Line, browser: Browser, action: str, version: int | str, **fields) -> dict:
    return send(line, {"csrf_token": browser.token, "version": str(version), "action": action, **fields})


def refusal(answer: dict) -> str:
    """The refusal the controls show (their role="alert" paragraph), as the host reads it."""
    found = re.search(r'<p class="error" role="alert">(.*?)</p>', answer["controls"])
    assert found, "the controls show no refusal"
    return html.unescape(found.group(1))


def shown_version(answer: dict) -> int:
    return int(re.search(r'name="version" value="(\d+)"', answer["controls"]).group(1))


def closed(line: Line) -> simple_websocket.ConnectionClosed:
    """How the server closed the line (its code and reason), waiting for it."""
    with pytest.raises(simple_websocket.ConnectionClosed) as closing:
        message = line.receive(WAIT_S)
        assert message is not None, "the line stayed open"
        pytest.fail(f"an answer instead of the close: {message[:200]}")
    return closing.value


class Phone:
    """A player's phone holding the clock's stream (/events/<id>/stream): its messages, in order."""

    def __init__(self, base: str, event_id: int) -> None:
        self.reply = urllib.request.urlopen(f"{base}/events/{event_id}/stream", timeout=WAIT_S)

    def message(self) -> tuple[int, dict]:
        """The next message: (its id, the version; its data)."""
        lines = []
        while (text := self.reply.readline().decode()) not in ("\n", ""):
            lines.append(text.rstrip("\n"))
        fields = dict(text.split(": ", 1) for text in lines if ": " in text and not text.startswith(":"))
        return int(fields["id"]), json.loads(fields["data"])

    def close(self) -> None:
        self.reply.close()


class Night(NamedTuple):
    """The werkzeug server: its `base` URL, the `app` (seed and read in app.app_context()) and
    tonight's night, hosted by harry / pw-harry."""
    base: str
    app: Flask
    event_id: int


@pytest.fixture
def night(db_path):
    """Tonight's night (tests/fixtures/tonight.py) served by werkzeug on 127.0.0.1 and a free port,
    threaded, as the browser tests' live_server serves."""
    app = make_app(db_path)
    with app.app_context():
        event_id = tonight(username="harry", password="pw-harry").id
        db.session.remove()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    # a short poll: shutdown() waits up to one poll interval, half a second by default
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="line-server",
                              daemon=True)
    thread.start()
    try:
        yield Night(f"http://127.0.0.1:{server.server_port}", app, event_id)
    finally:
        server.shutdown()
        thread.join(timeout=WAIT_S)
        server.server_close()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def harry(night):
    """Tonight's host, logged in on the night screen."""
    return Browser(night.base).login("harry", "pw-harry", night.event_id)


@pytest.fixture
def line(night, harry):
    """Harry's line to tonight's clock, open."""
    opened = harry.line(night.event_id)
    yield opened
    if opened.connected:
        opened.close()


def stored(night: Night) -> dict | None:
    """Tonight's row as the database holds it now (None once it is gone)."""
    with night.app.app_context():
        row = db.session.execute(db.select(Event.__table__).where(Event.id == night.event_id)).mappings().first()
        db.session.remove()
    return None if row is None else dict(row)


class Wire:
    """A host's line opened by hand on a raw socket (no compression offered), to see every byte the
    server writes on it."""

    def __init__(self, browser: Browser, event_id: int) -> None:
        host, port = urllib.parse.urlsplit(browser.base).netloc.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=WAIT_S)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /host/events/{event_id}/clock/line HTTP/1.1\r\nHost: {host}:{port}\r\n"
                           f"Origin: {browser.base}\r\nUser-Agent: {AGENT}\r\nCookie: {browser.cookie()}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = self.sock.recv(65536)
            assert chunk, "the server hung up during the handshake"
            received += chunk
        head, _, rest = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101 "), head
        self.buffer = bytearray(rest)

    def to_the_end(self, frame: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
        """Send one frame, read to the server's end of the connection (a timeout fails the test):
        (every frame the server wrote, the bytes after them that are no frame)."""
        with self.sock:
            self.sock.sendall(frame)
            while chunk := self.sock.recv(65536):
                self.buffer += chunk
        frames = clock_load.ws_frames(self.buffer)
        return frames, bytes(self.buffer)


def close_frame(code: int, reason: str) -> bytes:
    return code.to_bytes(2, "big") + reason.encode()


def refused_at_handshake(opening) -> int:
    """The HTTP status that refused a line's handshake (`opening()` opens it)."""
    with pytest.raises(simple_websocket.ConnectionError) as refused:
        opening().close()
    return refused.value.status_code


# --- a good tap ---------------------------------------------------------------------------------

def test_r_clock_3_a_tap_over_the_line_answers_the_phones_message_and_reaches_every_phone(night, harry, line):
    phones = [Phone(night.base, night.event_id) for _ in range(2)]
    try:
        assert [phone.message()[0] for phone in phones] == [0, 0]

        started = tap(line, harry, "start", 0)

        # the answer is the message every phone got (host/controls.js keeps the controls in step from it)
        assert started["status"] == 200 and set(started) == {"status", "state"}
        assert started["state"]["version"] == 1 and started["state"]["state"]["started"]
        for phone in phones:
            version, sent = phone.message()
            assert version == 1 and sent == started["state"]
        row = stored(night)
        assert row["clock_version"] == 1 and row["clock_started"] and row["clock_running_since_ms"] is not None

        # the line stays open: the next taps come over it too, each with the version it saw
        assert tap(line, harry, "pause", 1)["status"] == 200
        assert tap(line, harry, "jump", 2, index="3")["status"] == 200
        for phone in phones:  # each hears both, in order; a phone behind may be sent only the newest
            heard = [phone.message()[0]]
            while heard[-1] < 3:
                heard.append(phone.message()[0])
            assert heard in ([2, 3], [3]), heard
        assert stored(night)["clock_index"] == 2 and stored(night)["clock_version"] == 3
    finally:
        for phone in phones:
            phone.close()


def test_r_clock_4_calling_the_clock_for_a_seat_over_the_line(night, harry, line):
    assert tap(line, harry, "start", 0)["status"] == 200
    called = tap(line, harry, "shot", 1, seat="T2 S5")
    assert called["status"] == 200 and called["state"]["shot"]["seat"] == "T2 S5"
    assert tap(line, harry, "shot_off", 2)["status"] == 200 and stored(night)["clock_version"] == 3


# --- refusals: the words in the controls, nothing written ---------------------------------------

def test_r_clock_3_a_garbled_tap_over_the_line_is_refused_with_400(night, harry, line):
    before = stored(night)
    too_many_fields = send(line, "&".join(f"f{n}=1" for n in range(25)) + f"&csrf_token={harry.token}")
    bad_version = tap(line, harry, "start", "x")

    for answer in (too_many_fields, bad_version):
        assert answer["status"] == 400 and refusal(answer) == "That request was garbled; nothing changed."
        assert shown_version(answer) == 0
    assert stored(night) == before


def test_r_clock_3_a_forged_csrf_token_over_the_line_is_refused_with_400(night, harry, line):
    before = stored(night)
    for token in ("forged", ""):
        answer = send(line, {"csrf_token": token, "version": "0", "action": "start"})
        assert answer["status"] == 400 and refusal(answer) == host_line.FORGED
    assert stored(night) == before
    # a token the line took once is no pass for another: a forged one after a good tap is refused too
    assert tap(line, harry, "start", 0)["status"] == 200
    after_start = stored(night)
    forged = send(line, {"csrf_token": harry.token[:-2] + "xx", "version": "1", "action": "pause"})
    assert forged["status"] == 400 and refusal(forged) == host_line.FORGED
    assert stored(night) == after_start


def test_r_clock_3_a_stale_tap_over_the_line_is_refused_with_409_and_the_clock_now(night, harry, line):
    assert tap(line, harry, "next", 0)["status"] == 200
    before = stored(night)

    again = tap(line, harry, "next", 0)  # the double tap on flaky wifi: the version it saw is gone

    assert again["status"] == 409
    assert refusal(again) == "The clock changed on another screen; here it is now. Tap again if needed."
    assert shown_version(again) == 1  # the controls show the clock now, so the next tap goes through
    assert stored(night) == before and before["clock_index"] == 1


def test_r_clock_3_a_tap_the_rules_refuse_over_the_line_is_422_and_its_words_are_escaped(night, harry, line):
    before = stored(night)
    unknown = tap(line, harry, "O'Brien <b>", 0)
    not_started = tap(line, harry, "pause", 0)

    assert unknown["status"] == 422 and refusal(unknown) == "unknown clock action \"O'Brien <b>\""
    assert "<b>" not in unknown["controls"] and "O&#39;Brien &lt;b&gt;" in unknown["controls"]
    assert not_started["status"] == 422 and "started yet" in refusal(not_started)
    assert stored(night) == before


# --- one tap, one action: the key the controls give each tap (blueprints/once.py) ----------------

KEY = "k3y-of-one-tap-0123456789abcdef"


def post_kept(browser: Browser, event_id: int, fields: dict):
    """The tap as static/host/controls.js sends one it kept (its answer lost): by HTTP, as htmx, with
    its key, when it was tapped and the clock it was tapped on → (status, headers, body)."""
    request = urllib.request.Request(f"{browser.base}/host/events/{event_id}/clock", headers={"HX-Request": "true"},
                                     data=urllib.parse.urlencode(fields).encode())
    try:
        with browser.opener.open(request, timeout=WAIT_S) as answer:
            return answer.status, answer.headers, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers, refused.read().decode()


def clock_state(controls: str) -> dict:
    """The clock's state the controls carry (#clock-state, as controls.js's sendKept reads it)."""
    found = re.search(r'<div id="clock-state" hidden data-state="([^"]*)"', controls)
    assert found, "the answer carries no #clock-state"
    return json.loads(html.unescape(found.group(1)))


def test_r_clock_3_a_tap_applied_on_the_line_and_sent_again_by_http_is_applied_once(night, harry, line):
    phone = Phone(night.base, night.event_id)
    try:
        assert phone.message()[0] == 0
        # as the controls' form sends it: the seat for calling the clock left blank
        fields = {"csrf_token": harry.token, "version": "0", "action": "start", "seat": "", "idempotency_key": KEY}
        started = send(line, fields)  # it landed; its answer was lost: the phone keeps the tap
        assert started["status"] == 200 and started["state"]["version"] == 1

        status, headers, body = post_kept(harry, night.event_id, {**fields, "tapped_at_ms": "1700000000000",
                                                                  "seen_clock": "0:0::0:::0:"})

        assert status == 200 and headers["Idempotency-Replayed"] == "true"
        # what the POST itself would have answered: the controls on the clock the tap made, its state
        assert '<form id="controls"' in body and shown_version({"controls": body}) == 1
        assert clock_state(body)["version"] == 1 and clock_state(body)["state"]["started"]
        assert stored(night)["clock_version"] == 1 and phone.message()[0] == 1
    finally:
        phone.close()


def test_r_clock_3_a_tap_sent_twice_on_the_line_is_applied_once(night, harry, line):
    fields = {"version": "0", "action": "next", "idempotency_key": KEY}
    first = tap(line, harry, **fields)
    again = tap(line, harry, **fields)

    assert first["status"] == 200 and first["state"]["version"] == 1 and "replayed" not in first
    assert again["status"] == 200 and again["replayed"] is True
    assert shown_version(again) == 1 and clock_state(again["controls"])["state"]["index"] == 1
    row = stored(night)
    assert row["clock_version"] == 1 and row["clock_index"] == 1  # one level on, not two


def test_r_clock_3_a_tap_refused_on_the_line_is_refused_again_by_http_with_its_words(night, harry, line):
    fields = {"csrf_token": harry.token, "version": "0", "action": "pause", "idempotency_key": KEY}
    refused = send(line, fields)  # the clock has not started: nothing to pause
    before = stored(night)

    status, headers, body = post_kept(harry, night.event_id, fields)

    assert refused["status"] == status == 422 and headers["Idempotency-Replayed"] == "true"
    assert refusal({"controls": body}) == refusal(refused) and "started yet" in refusal(refused)
    assert stored(night) == before


def test_r_clock_3_a_tap_posted_then_sent_on_the_line_gets_the_posts_answer(night, harry, line):
    fields = {"csrf_token": harry.token, "version": "0", "action": "start", "idempotency_key": KEY}
    status, _, body = post_kept(harry, night.event_id, fields)
    again = send(line, fields)

    assert status == 200 and again == {"status": 200, "controls": body, "replayed": True}
    assert stored(night)["clock_version"] == 1


def test_r_clock_3_a_garbled_key_on_the_line_is_refused_and_nothing_is_applied(night, harry, line):
    before = stored(night)
    answer = tap(line, harry, "start", 0, idempotency_key="not a key!")
    assert answer["status"] == 400 and refusal(answer) == "The form's one-time key is garbled: reload the page, then try again."
    assert stored(night) == before


def test_r_clock_3_the_level_picker_over_the_line_escapes_a_breaks_label(night, harry, line):
    with night.app.app_context():
        event = db.session.get(Event, night.event_id)
        event.structure = [{"kind": "level", "minutes": 20, "small_blind": 100, "big_blind": 200, "ante": 0},
                           {"kind": "break", "minutes": 15, "label": "O'Brien <b>", "colour_up": ""},
                           {"kind": "level", "minutes": 20, "small_blind": 200, "big_blind": 400, "ante": 0}]
        db.session.commit()
        db.session.remove()
    assert tap(line, harry, "next", 0)["status"] == 200
    answer = tap(line, harry, "next", 0)  # stale: the controls come back, showing the clock now
    assert answer["status"] == 409
    assert '<option selected value="2">2. O&#39;Brien &lt;b&gt; (15 min)</option>' in answer["controls"]


def test_r_clock_3_more_than_ten_taps_a_second_over_the_line_are_refused_with_429(night, harry, line):
    before = stored(night)
    # Ten taps the rules refuse (nothing written), then a good one, sent at once: the eleventh in the second.
    for _ in range(host_line.TAPS_PER_SECOND):
        line.send(urllib.parse.urlencode({"csrf_token": harry.token, "version": "0", "action": "dance"}))
    line.send(urllib.parse.urlencode({"csrf_token": harry.token, "version": "0", "action": "start"}))
    answers = [receive(line) for _ in range(host_line.TAPS_PER_SECOND + 1)]

    assert [answer["status"] for answer in answers] == [422] * host_line.TAPS_PER_SECOND + [429]
    assert refusal(answers[-1]) == host_line.TOO_FAST and shown_version(answers[-1]) == 0
    assert stored(night) == before
    time.sleep(1.05)  # the next second: the line takes taps again
    assert tap(line, harry, "start", 0)["status"] == 200 and stored(night)["clock_version"] == 1


def test_r_clock_3_a_database_outage_over_the_line_is_503_and_the_line_stays_open(night, harry, line, monkeypatch):
    before = stored(night)

    def down(event_id, token):
        raise exc.OperationalError("SELECT events", {}, ConnectionRefusedError("the database is restarting"))

    with monkeypatch.context() as patched:
        patched.setattr(leagues, "night_run_by", down)
        answer = tap(line, harry, "start", 0)
    assert answer == {"status": 503, "error": health.DATABASE_DOWN}
    assert stored(night) == before
    assert tap(line, harry, "start", 0)["status"] == 200  # the database back: the same line goes on


def test_r_clock_4_a_seat_with_a_nul_over_the_line_is_refused_and_the_line_stays_open(night, harry, line):
    """The seat goes through the one hygiene check: a NUL (a 500 on PostgreSQL before, which closed the
    host's line) or a right-to-left mark is refused with 422, nothing written, the line open."""
    assert tap(line, harry, "start", 0)["status"] == 200
    before = stored(night)
    for seat in ("T2\x00S5", "T2 \u202eS5"):
        answer = tap(line, harry, "shot", 1, seat=seat)
        assert answer["status"] == 422 and "the seat contains" in refusal(answer).lower()
    assert stored(night) == before
    assert tap(line, harry, "shot", 1, seat="T2 S5")["state"]["shot"]["seat"] == "T2 S5"


def test_r_clock_3_a_full_disk_over_the_line_is_503_naming_the_disk(night, harry, line, monkeypatch):
    import sqlite3

    def full(event_id, token):
        raise exc.OperationalError("UPDATE events", {}, sqlite3.OperationalError("database or disk is full"))

    with monkeypatch.context() as patched:
        patched.setattr(leagues, "night_run_by", full)
        answer = tap(line, harry, "start", 0)
    assert answer == {"status": 503, "error": health.DISK_FULL}
    assert tap(line, harry, "start", 0)["status"] == 200  # room again: the same line goes on


# --- at every tap: the login and the right to run the night, read afresh -------------------------

def test_r_clock_3_a_host_logged_out_elsewhere_is_refused_at_the_next_tap_and_the_line_closes(night, harry, line):
    assert tap(line, harry, "start", 0)["status"] == 200
    before = stored(night)
    Browser(night.base).login("harry", "pw-harry", night.event_id).logout()  # the host's other phone

    line.send(urllib.parse.urlencode({"csrf_token": harry.token, "version": "1", "action": "pause"}))
    closing = closed(line)

    assert (closing.reason, closing.message) == (4403, host_line.LOGGED_OUT)
    assert stored(night) == before
    assert refused_at_handshake(lambda: harry.line(night.event_id)) == 302  # the old cookies log in no more


def test_r_clock_3_the_server_writes_nothing_after_the_lines_close_and_ends_the_connection(night, caplog):
    """A browser takes anything after the close frame (an HTTP answer) for a broken frame and loses
    the close's code and reason, which host/controls.js reads; and it waits for the server to end the
    connection. werkzeug's server (make dev, the browser tests) must do both, whichever side closed."""
    harry = Browser(night.base).login("harry", "pw-harry", night.event_id)
    leaving = Wire(harry, night.event_id)  # the night screen goes to another page: its close, 1001
    frames, rest = leaving.to_the_end(clock_load.ws_frame(close_frame(1001, ""), 0x8))
    assert frames == [(0x8, close_frame(1001, ""))] and rest == b""

    refused = Wire(harry, night.event_id)
    Browser(night.base).login("harry", "pw-harry", night.event_id).logout()
    tap_frame = clock_load.ws_frame(urllib.parse.urlencode({"csrf_token": harry.token, "version": "0", "action": "start"}))
    frames, rest = refused.to_the_end(tap_frame)

    assert frames == [(0x8, close_frame(4403, host_line.LOGGED_OUT))] and rest == b""
    assert stored(night)["clock_version"] == 0
    assert not [record.getMessage() for record in caplog.records if record.levelname == "ERROR"]


def test_r_clock_3_a_host_given_other_venues_is_refused_at_the_next_tap_and_the_line_closes(night, harry, line):
    before = stored(night)
    with night.app.app_context():
        host = db.session.scalar(db.select(User).where(User.username == "harry"))
        anchor = Venue(league_id=host.league_id, name="The Anchor")
        db.session.add(anchor)
        db.session.flush()
        leagues.set_host_venues(host, {anchor.id})  # harry runs the Anchor's nights now, not tonight's
        db.session.commit()
        db.session.remove()

    line.send(urllib.parse.urlencode({"csrf_token": harry.token, "version": "0", "action": "start"}))
    closing = closed(line)

    assert (closing.reason, closing.message) == (4403, host_line.LOGGED_OUT)
    assert stored(night) == before
    assert refused_at_handshake(lambda: harry.line(night.event_id)) == 403


def test_r_clock_3_a_night_gone_closes_the_line_with_4404(night, harry, line):
    with night.app.app_context():
        db.session.delete(db.session.get(Event, night.event_id))
        db.session.commit()
        db.session.remove()

    line.send(urllib.parse.urlencode({"csrf_token": harry.token, "version": "0", "action": "start"}))
    closing = closed(line)

    assert (closing.reason, closing.message) == (4404, host_line.GONE)
    assert stored(night) is None


# --- at the handshake ---------------------------------------------------------------------------

def test_r_clock_3_an_anonymous_line_is_sent_to_log_in(night):
    anonymous = Browser(night.base)
    assert refused_at_handshake(lambda: anonymous.line(night.event_id)) == 302
    assert stored(night)["clock_version"] == 0


def test_r_clock_3_only_a_host_who_runs_the_night_opens_its_line(night):
    with night.app.app_context():
        other_league = tonight("Other League", "The Ship", username="olga", password="pw-olga").id
        db.session.remove()
    olga = Browser(night.base).login("olga", "pw-olga", other_league)
    assert olga.line(other_league).connected  # her own night's line opens
    assert refused_at_handshake(lambda: olga.line(night.event_id)) == 403


def test_r_clock_3_a_line_to_no_such_night_is_404(night, harry):
    assert refused_at_handshake(lambda: harry.line(night.event_id + 999)) == 404


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:1", "null", None],
                         ids=["another-site", "another-port", "null", "missing"])
def test_r_clock_3_a_line_opened_from_another_sites_page_is_403(night, harry, origin):
    assert refused_at_handshake(lambda: harry.line(night.event_id, origin=origin)) == 403
    assert stored(night)["clock_version"] == 0


def test_r_clock_3_a_plain_get_of_the_line_is_400(night, harry):
    with pytest.raises(urllib.error.HTTPError) as refused:
        harry.open(f"/host/events/{night.event_id}/clock/line")
    assert refused.value.code == 400


# --- under gunicorn's gevent worker, as production serves ---------------------------------------

def test_r_clock_3_the_line_under_gunicorn_closes_cleanly_and_the_server_serves_on(db_path, tmp_path):
    """gunicorn must write nothing on a socket the line took over: the view's `_LineClosed` ends the
    connection, whether the host's screen closed the line or the server did (4403)."""
    url = database_uri(db_path)
    event_id = clock_load.seed(url)
    port = clock_load.free_port()
    log = tmp_path / "gunicorn.log"
    server = clock_load.Server(clock_load.server_env(url, None), 1, port, log)
    server.start()
    try:
        host = Browser(server.base).login(clock_load.HOST_USER, clock_load.HOST_PASSWORD, event_id)
        line = host.line(event_id)
        assert tap(line, host, "start", 0)["status"] == 200 and tap(line, host, "pause", 1)["status"] == 200
        line.close()  # the host's screen leaves

        def lines_ended() -> int:  # the access log's entries for the line: written once its view returned
            return log.read_text(errors="replace").count(f'"path": "/host/events/{event_id}/clock/line", "status": 200')

        deadline = time.monotonic() + WAIT_S
        while lines_ended() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines_ended() == 1

        second = host.line(event_id)  # the server serves on: a new line, then the server closes one
        assert tap(second, host, "resume", 2)["status"] == 200
        second.close()
        wire = Wire(host, event_id)
        Browser(server.base).login(clock_load.HOST_USER, clock_load.HOST_PASSWORD, event_id).logout()
        frames, rest = wire.to_the_end(clock_load.ws_frame(urllib.parse.urlencode(
            {"csrf_token": host.token, "version": "3", "action": "pause"})))
        assert frames == [(0x8, close_frame(4403, host_line.LOGGED_OUT))] and rest == b""
        deadline = time.monotonic() + WAIT_S
        while lines_ended() < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines_ended() == 3
        assert clock_load.clock_json(server.base, event_id)["version"] == 3
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "ERROR" not in text and "Traceback" not in text and "Exception" not in text, text[-3000:]
