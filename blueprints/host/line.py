"""The host's line (R-CLOCK-3/4): the clock's taps over one WebSocket that the host's night screen
keeps open, instead of one HTTP request each.

A tap then costs what the clock needs (its event, the host's rights, the version-checked write, the
phones' message, the commit) and none of what every request pays before the view runs (reading and
parsing the request, the session, the login, the rate limiter, the headers after it): the phones
have it sooner (docs/benchmarks-clock.md). Every check a POST passes still applies:

- at the handshake: the host blueprint's login, the right to run this night (`my_event`) and the
  page's own origin (a browser sends any site's cookies with a WebSocket; only its Origin says who
  opened it, so another site's page cannot drive the clock);
- at every tap: the form's CSRF token, and the login (by the session's token) and the right to run
  the night read afresh, in one query with the night (a host logged out elsewhere, or taken off
  the night, is refused at the next tap and the line closes).

A tap is the controls' form as a POST would send it (urlencoded). The answer to a tap that went
through is `{"status": 200, "state": …}`: the phones' own message (live/announce.py), which the
page's clock (static/js/clock.js) takes as it takes the stream's, the controls kept in step with it
(their version, main button, level and called clock), so no fragment is rendered for it. A
refusal's answer is `{"status", "controls"}`, with the controls and their words, as a refused POST
answers. The controls' script (static/host/controls.js) opens the line and sends the taps over it
while it is open, and over HTTP otherwise (no WebSocket, a proxy that refuses the upgrade, the line
down): the host never waits on it.

A tap with its one-time key (`idempotency_key`, the form's) is applied once, whichever way it comes
(blueprints/once.py): the line claims the key as the POST to the clock would, its commit marks it, and
the answer that POST would have given (the controls and the clock's state) is kept for it, made after
the line's own answer has gone. A tap whose answer was lost on the line, kept by the phone and sent
again over HTTP, is answered with it (Idempotency-Replayed), not judged stale; a repeat on the line
is answered `{"status", "controls", "replayed": true}` with the kept controls.
"""
import contextlib
import hmac
import json
import time
from socket import SHUT_RD
from urllib.parse import parse_qsl, urlsplit

import simple_websocket
from flask import Response, abort, render_template, request, url_for
from flask_login import current_user
from flask_wtf.csrf import ValidationError, validate_csrf
from sqlalchemy import exc
from werkzeug.datastructures import MultiDict
from wsproto.utilities import ProtocolError

from blueprints import once
from blueprints.host.base import GARBLED, bp, my_event
from blueprints.host.clock import controls_context, tap
from services import leagues
from wiring import health
from wiring.extensions import db
from wiring.security import SecureCookieResponse

# A tap's form is a few hundred bytes; a larger message closes the line (wsproto's close 1009).
MAX_TAP_BYTES = 4096
# A ping every 25 s keeps a pub's NAT from dropping a quiet line and finds a phone that left.
PING_S = 25
# Taps per second a line takes before refusing (a host's thumb taps a few a second at most; a stuck
# script does not get to spin the clock).
TAPS_PER_SECOND = 10
# How long a closed line's reader thread may take to send its last frame under werkzeug's server.
CLOSING_S = 2
FORGED = "This page is out of date: reload it, then tap again."
LOGGED_OUT = "You are no longer logged in to run this night: log in again."
GONE = "This night is no longer there."
TOO_FAST = "Too many taps at once: wait a moment, then tap again."


def _same_origin() -> bool:
    origin = request.headers.get("Origin", "")
    return bool(origin) and urlsplit(origin).netloc == request.host


class _LineClosed(SecureCookieResponse):
    """The answer after the line closes: the socket was the line's own since the handshake, so the
    server must write nothing more to it (a browser takes an HTTP status line after the close frame
    for a broken frame, and loses the close's code and reason). Each server is told so its own way:
    gunicorn's worker ends the connection on StopIteration; werkzeug's (make dev, the browser
    tests) on a dropped connection, once reading from it has ended. (The app's own response class:
    Flask turns any other into it, and this `__call__` with it.)"""

    def __init__(self, socket: simple_websocket.Server) -> None:
        super().__init__()
        self.socket = socket

    def __call__(self, environ, start_response):
        if self.socket.mode == "gunicorn":
            raise StopIteration()
        if self.socket.mode == "werkzeug":
            # werkzeug keeps an HTTP/1.1 connection after a dropped one: it would read the browser's
            # close reply as the next request, answer it 400 on the line and never end the
            # connection. The end of reading ends it, once the line's reader thread (which it also
            # stops) has sent what it still had to: the reply to a close from the browser.
            with contextlib.suppress(OSError):
                environ["werkzeug.socket"].shutdown(SHUT_RD)
            self.socket.thread.join(CLOSING_S)
        raise ConnectionAbortedError("the host's line closed")


class _Line:
    """One host's line: its socket, the login it opened with (the session's token), the CSRF token
    it last took (checked in full once, then compared), and its taps in the current second."""

    def __init__(self, socket, event_id: int, login_token: str) -> None:
        self.socket, self.event_id, self.login_token = socket, event_id, login_token
        self.csrf_taken: str | None = None
        self.second, self.taps = 0.0, 0
        # The POST a tap stands for: its key names that request (once.form_digest), its answer is kept.
        self.tap_path = url_for("host.clock_action", event_id=event_id).removeprefix(request.script_root)

    def take(self, message: str) -> bool:
        """Apply and answer one tap (`message`, the controls' form urlencoded); False once the line
        must close (the login or the night gone: the reason goes with the close)."""
        now = time.monotonic()
        self.second, self.taps = (self.second, self.taps + 1) if now - self.second < 1 else (now, 1)
        event, allowed = leagues.night_run_by(self.event_id, self.login_token)
        if not allowed:
            self.socket.close(4404 if event is None else 4403, GONE if event is None else LOGGED_OUT)
            return False
        try:
            # blank fields kept, as a POST's form keeps them (an empty seat): the tap reads as the POST
            # would, and its key names the same request (once.form_digest)
            form = MultiDict(parse_qsl(message, keep_blank_values=True, max_num_fields=20))
        except ValueError:
            return self.answer(400, controls_context(event, GARBLED))
        if self.taps > TAPS_PER_SECOND:
            return self.answer(429, controls_context(event, TOO_FAST))
        token = form.get("csrf_token") or ""
        if self.csrf_taken is None or not hmac.compare_digest(token, self.csrf_taken):
            try:
                validate_csrf(token)
            except ValidationError:
                return self.answer(400, controls_context(event, FORGED))
            self.csrf_taken = token
        key = form.get(once.FIELD)
        if not key:  # a script's tap, or a page from before the keys
            self.apply(event, form)
            return True
        if not once.shaped(key):
            return self.answer(400, controls_context(event, once.GARBLED))
        found = once.claim(once.who(), once.form_digest(key, f"{self.tap_path}?", form), self.tap_path)
        if not isinstance(found, once.Claim):
            return self.again(event, found)
        try:
            with once.held(found):
                kept = self.apply(event, form)
        except once.TakenOver:  # a repeat took the claim over: this tap's commit did not land
            db.session.rollback()
            return self.answer(409, controls_context(event, once.BUSY))
        once.keep(found, kept)
        return True

    def apply(self, event, form) -> Response:
        """Apply the tap and answer it on the line; → the answer the POST to the clock would have given
        (made after the line's answer has gone: the host and the phones never wait for it)."""
        error, status, state = tap(event, form)
        if error is None:
            self.socket.send(f'{{"status":200,"state":{state}}}')  # `state` is JSON already
            return self.as_posted(200, controls_context(event, None, state))
        return self.as_posted(status, controls_context(event, error), send=True)

    def as_posted(self, status: int, context: dict, send: bool = False) -> Response:
        """The controls as the POST answers htmx (and, `send`, sent on the line as a refusal is)."""
        controls = render_template("host/_controls.html", as_fragment=True, **context)
        if send:
            self.socket.send(json.dumps({"status": status, "controls": controls}, separators=(",", ":")))
        return Response(controls, status, mimetype="text/html")

    def again(self, event, found: once.Earlier) -> bool:
        """A repeat of a tap already sent (on the line or over HTTP): the first answer's controls again,
        or, when that answer is not kept (or was no controls: a plain form's redirect), the controls as
        they are now; "already being done" while the first is still at work."""
        if found.busy:
            return self.answer(409, controls_context(event, once.BUSY))
        status, controls = found.status, (found.body or b"").decode()
        if found.body is None or 300 <= status < 400:
            status, controls = 200, render_template("host/_controls.html", as_fragment=True,
                                                    **controls_context(event))
        self.socket.send(json.dumps({"status": status, "controls": controls, "replayed": True},
                                    separators=(",", ":")))
        return True

    def answer(self, status: int, context: dict) -> bool:
        """Send a refusal: its status and the controls showing it."""
        self.as_posted(status, context, send=True)
        return True


@bp.route("/events/<int:event_id>/clock/line", websocket=True)
def clock_line(event_id: int):
    """R-CLOCK-3/4: the host's taps over one WebSocket (the module's docstring), each applied as the
    POST to `clock_action` applies it (`tap`), and answered with the phones' message, or a refusal's
    controls."""
    my_event(event_id)  # before the handshake: a 403 or 404 is an HTTP answer
    if not _same_origin():
        abort(403, description="a clock line opened from another site's page")
    login_token = current_user.get_id()  # the session's token (services/models.py, the user loader)
    db.session.close()  # no read held open while the line waits
    try:
        socket = simple_websocket.Server(request.environ, ping_interval=PING_S, max_message_size=MAX_TAP_BYTES)
    except (simple_websocket.ConnectionError, ProtocolError):
        abort(400, description="not a WebSocket handshake")
    line = _Line(socket, event_id, login_token)
    try:
        while True:
            message = socket.receive()
            if not isinstance(message, str):
                continue  # a binary frame is no tap
            try:
                if not line.take(message):
                    break
            except (exc.DBAPIError, exc.DisconnectionError, exc.TimeoutError) as error:
                if not health.service_down(error):
                    raise
                db.session.rollback()
                socket.send(json.dumps({"status": 503, "error": health.refusal(error)}))
            finally:
                db.session.close()  # the next tap reads afresh
    except simple_websocket.ConnectionClosed:
        pass
    return _LineClosed(socket)
