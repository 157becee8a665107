#!/usr/bin/env python3
"""Load test of the host's night (the target: every host action's response ≤ 100 ms p95 on the embedded
SQLite with 200 players in"): one real gunicorn server (gevent worker, README's production command)
on a fresh SQLite database, the host's phone driving a whole night through the real login and the
real roster forms, and optionally N player phones holding the clock's server-sent events stream.

    python tests/bench/night_load.py                     # 200 players, 500 phones on the clock stream
    python tests/bench/night_load.py --phones 0          # the host alone
    python tests/bench/night_load.py --profile /tmp/prof # + cProfile and SQL counts per action kind
    python tests/bench/night_load.py --phones 0 --push   # every player's phone subscribed to Web Push
    python tests/bench/night_load.py --help

The night, every step a form the host's phone really sends (POST /host/events/<id>/players with
op=…, the CSRF token from the page, HX-Request: true, so the answer is the roster fragment):
  1. arrivals: --phone-checkins players check in through the check-in link on their own phone
     (their member cookie, the form and its CSRF token); the host confirms each (op=confirm); the
     others arrive at the door: the host searches the name (GET …/members?q=) and checks them in
     (op=walk_in); every --bonus-every'th arrival claims a bonus (op=bonus, kinds in turn);
  2. the seat draw (op=draw), --draws times with an undo between; food or drink for everyone (in
     turn, op=bonus_all:<kind>, R-CHIP-2's start of play) --everyone times with an undo between; the
     host starts the clock; --penalties missed-hand and missed-round penalties in turn, each ended
     early, on the player's floor panel (POST …/floor/<entry>, op=give:<kind> then op=end:<id>, R-PEN);
  3. --late late entrants (walk-ins after the draw: seated at once), every --undo-every'th undone
     and checked in again;
  4. bust-outs until the final table: single (op=bust), several in one hand with their stacks
     (op=bust_hand), a disqualification every --dq-every'th, an undo every --undo-every'th, and
     whatever the table plan asks for in between: a table break (op=break) or a balancing move
     (op=move_to with the mover picked from the form's list); every third, while --reentries last,
     a busted player re-enters (op=reenter, R-ENTRY-1: tonight's game allows 5 each);
  5. the final table (op=final), --finals times with an undo between; a deal put to the vote
     (op=deal) and every player's vote on the host's passed phone (GET and POST …/ballot/<entry>,
     R-PAY-2), yes but the last, whose no voids it, until --votes votes; bust-outs down to one;
  6. settle (op=settle), --settles times with an undo between;
  7. last month's Monthly Final (seeded with last month's nights and their ticket holders, R-QUAL-3,
     and a cash pool that draws those nights' shares, R-PAY-3): the host checks in --final-checkins
     players, ticket holders and others in turn (the walk-in search, then op=walk_in on the final's
     roster): a holder is admitted and the ticket marked used, any other is refused with the reason
     (422) and let in by the host's override with a reason; then --rebuys rebuys (op=rebuy on each player's sheet, the
     final allows 5 each).
After each phone check-in the host's roster refetches itself (GET with HX-Request), as app.js does
when the clock stream brings a version newer than the roster's; --refresh-every k adds such a GET
after every k-th host action. Each request goes on a fresh connection opened beforehand; its time runs from
sending the request until the whole response is read (Accept-Encoding: gzip, br, as a phone).

Reported per action kind: count, players in at the time, median / p95 / max response time, bytes
on the wire and of HTML; overall p95 of the host's POSTs; the phones' messages; the whole
machine's busy % meanwhile (it is shared: other work skews the figures); and the server time per
action, inside the worker (n, median, p95, p99, max, CPU, SQL; a refusal, 422, is its own kind),
against the targets (every host action p95 ≤ 100 ms, settling ≤ 50 ms as the median of its
--settles settles), with the load average (1/5/15 min) before and after. Every action defaults to
20 samples or more (--min-samples marks fewer).

Traffic goes to 127.0.0.1 only. Every wait is bounded. Not collected by pytest (the name does not
match test_*.py); tests/bench/test_night_load.py runs `run()` at a tiny scale.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import datetime as dt
import gc
import gzip
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: `import app` for seeding, `tests.bench.clock_load`
    sys.path.insert(0, str(ROOT))

from blueprints.play import member_cookie  # noqa: E402
from tests.bench import clock_load  # noqa: E402  (the server, database and phone machinery)
from tests.bench.clock_load import log, machine_busy_pct, machine_ticks, percentile  # noqa: E402

HOST_USER, HOST_PASSWORD, SECRET = clock_load.HOST_USER, clock_load.HOST_PASSWORD, clock_load.SECRET
TARGET_P95_MS = 100
BONUS_KINDS = ("membership", "food", "drink", "early_registration", "promotional")
FIRST = ("Aoife", "Bea", "Cian", "Dmitri", "Émile", "Fatima", "Grace", "Hemi", "Inès", "Jack", "Kiri", "Liam",
         "Mei", "Niamh", "Oscar", "Priya", "Quinn", "Rangi", "Siobhán", "Tāne")
LAST = ("O'Brien <b>", "Nguyen", "D'Arcy & Sons", "Smith", 'Walker "Ace"', "Ng", "Müller", "Te Rangi",
        "<i>Kelly</i>", "Patel")
POST_KINDS_ORDER = ("walk-in", "phone check-in (player)", "confirm", "bonus", "draw", "food/drink for everyone",
                    "clock start", "penalty given", "penalty ended", "late entrant", "bust", "bust hand", "re-entry",
                    "move", "break", "dq", "undo", "final table", "deal", "ballot vote (passed phone)", "deal vote (own phone)",
                    "settle",
                    "final check-in", "final check-in refused", "final check-in override", "rebuy")
FINAL_OVERRIDE_REASON = "Bench: won a ticket at another venue <b>"


def member_names(n: int) -> list[str]:
    """n distinct names, some with quotes, ampersands and markup to escape (`O'Brien <b>`)."""
    names = [f"{first} {last}" for last in LAST for first in FIRST]
    return [names[i % len(names)] + ("" if i < len(names) else f" {i // len(names) + 1}") for i in range(n)]


# --- the database: fresh, migrated by the real CLI, a league with members and tonight's night ----

HOLDER_NIGHTS = 8  # last month's settled nights whose top five hold this final's tickets (R-QUAL-1)
PER_NIGHT = 25


def seed(url: str, members: int, max_seats: int) -> dict:
    """A cash league (R-PAY-3: a $30 night, $20 to its pool), a venue, a host login, `members`
    members, tonight's event (running, clock not started, nobody in yet) with re-entries allowed
    (R-ENTRY-1: nightly games re-enter, Monthly Finals rebuy, up to 5 each), last month's settled
    nights (HOLDER_NIGHTS of PER_NIGHT players, their top five holding Monthly Final tickets, up to
    half the members) and last
    month's Monthly Final tomorrow ($30 all to its pool, $500 guaranteed, plus the shares its month's
    nights put into it: the prize table reads them, services.pool_shares). Each member's phone
    cookie is the one the app gives a member's phone."""
    from app import create_app
    from services.models import Entry, Event, League, Member, Ticket
    from tests.fixtures import tonight as tests_seed
    from wiring.extensions import db
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context(), app.test_request_context():
        event = tests_seed.tonight("Bench League", "The Rose & Crown", HOST_USER, HOST_PASSWORD)
        league = db.session.get(League, event.league_id)
        league.kind = "cash"
        league.settings = {**(league.settings or {}),
                           "nightly": {**(league.settings or {}).get("nightly", {}), "reentry": "reentry",
                                       "reentry_limit": 5},
                           "monthly_final": {**(league.settings or {}).get("monthly_final", {}), "reentry": "rebuy",
                                             "reentry_limit": 5}}
        event.max_seats, event.buy_in, event.pool_share = max_seats, 30, 20
        # Tonight was created before the change: its own snapshot takes re-entries (R-ENTRY-1).
        event.settings = {**(event.settings or {}), "reentry": "reentry", "reentry_limit": 5}
        db.session.commit()  # a cash league before the nights below take their snapshots (services.models)
        people = [Member.named(event.league_id, name) for name in member_names(members)]
        db.session.add_all(people)
        last_month = (event.date.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
        holders = []
        for n in range(HOLDER_NIGHTS):
            night = Event(league_id=event.league_id, venue_id=event.venue_id, event_type="nightly",
                          date=last_month + dt.timedelta(days=n), start_time=dt.time(19, 0), status="settled",
                          buy_in=30, pool_share=20)
            db.session.add(night)
            db.session.flush()
            field = [people[(n * PER_NIGHT + i) % len(people)] for i in range(min(PER_NIGHT, len(people)))]
            for position, member in enumerate(field, start=1):
                db.session.add(Entry(event_id=night.id, member_id=member.id, status="played", position=position,
                                     points=max(0, 300 - 10 * position), prize=20 * len(field) if position == 1 else 0))
                if position <= 5 and member not in holders and len(holders) < len(people) // 2:
                    holders.append(member)
                    db.session.add(Ticket(league_id=event.league_id, month=last_month.strftime("%Y-%m"),
                                          member_id=member.id, event_id=night.id, position=position))
        final = Event(league_id=event.league_id, venue_id=event.venue_id, event_type="monthly_final",
                      date=event.date + dt.timedelta(days=1), start_time=dt.time(19, 0), host_id=event.host_id,
                      status="running", max_seats=max_seats, final_month=last_month.strftime("%Y-%m"),
                      buy_in=30, pool_share=30, guarantee=500)
        db.session.add(final)
        db.session.commit()
        out = {"event_id": event.id, "check_in_code": event.check_in_code, "final_id": final.id,
               "ticket_holders": [m.name for m in holders],
               "members": [{"id": m.id, "name": m.name,
                            "cookie": member_cookie._signer().dumps([m.id, m.cookie_secret])} for m in people]}
        db.session.remove()
        db.engine.dispose()
    return out


# --- a browser: raw HTTP/1.1 on loopback, cookies, gzip/br, timed from send to last byte ---------

class Reply:
    def __init__(self, status: int, headers: dict, body: bytes, wire: int, ms: float, sent: float) -> None:
        self.status, self.headers, self.body, self.wire_bytes, self.ms = status, headers, body, wire, ms
        self.sent = sent  # perf_counter() when the request was sent (CLOCK_MONOTONIC: the phones' process shares it)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class Browser:
    """One phone's browser: its cookies, one request per fresh connection (opened before the clock starts)."""

    def __init__(self, port: int, cookies: dict[str, str] | None = None, timeout: float = 30) -> None:
        self.port, self.timeout = port, timeout
        self.cookies: dict[str, str] = dict(cookies or {})

    def fetch(self, method: str, path: str, form=None, headers: dict | None = None) -> Reply:
        body = urllib.parse.urlencode(form, doseq=True).encode() if form is not None else b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", "Accept-Encoding: gzip, br",
                 "Accept: text/html,*/*", "User-Agent: shuffleup-night-load", "Connection: close"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if form is not None:
            lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        with socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout) as s:
            deadline = time.monotonic() + self.timeout
            started = time.perf_counter()
            s.sendall(request)
            raw = bytearray()
            head_end, need, chunked = -1, None, False
            while True:
                chunk = s.recv(262144)
                if not chunk:
                    break
                raw += chunk
                if head_end < 0 and (head_end := raw.find(b"\r\n\r\n")) >= 0:
                    head = bytes(raw[:head_end]).decode("latin-1").lower()
                    found = re.search(r"\r\ncontent-length: *(\d+)", head)
                    need = head_end + 4 + int(found.group(1)) if found else None
                    chunked = "transfer-encoding: chunked" in head
                if need is not None and len(raw) >= need:
                    break
                if chunked and raw.endswith(b"0\r\n\r\n"):
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{method} {path}: no whole answer in {self.timeout} s")
            ms = (time.perf_counter() - started) * 1000
        head, _, payload = bytes(raw).partition(b"\r\n\r\n")
        head_lines = head.decode("latin-1").split("\r\n")
        status = int(head_lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in head_lines[1:]:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                self._set_cookie(value)
            else:
                headers[name] = value
        if headers.get("transfer-encoding") == "chunked":
            payload = _dechunk(payload)
        encoding = headers.get("content-encoding", "identity")
        if encoding == "gzip":
            payload = gzip.decompress(payload)
        elif encoding == "br":
            import brotli
            payload = brotli.decompress(payload)
        return Reply(status, headers, payload, len(raw), ms, started)

    def _set_cookie(self, value: str) -> None:
        pair, *attributes = [part.strip() for part in value.split(";")]
        name, _, cookie = pair.partition("=")
        expired = any(a.lower() == "max-age=0" or a.lower().startswith("expires=thu, 01 jan 1970") for a in attributes)
        if expired or cookie == "":
            self.cookies.pop(name, None)
        else:
            self.cookies[name] = cookie


def _dechunk(body: bytes) -> bytes:
    out, rest = bytearray(), body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        rest = rest[size + 2:]
    return bytes(out)


def csrf_token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    if not found:
        raise RuntimeError("no CSRF token on the page")
    return found.group(1)


# --- what the host's screen offers: the roster fragment and the walk-in search, parsed ------------

class Page(HTMLParser):
    """The buttons (name="op"), the selects' options, and for each list item its first text and
    its buttons: enough to tap what a host would tap."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.ops: list[str] = []
        self.selects: dict[str, list[tuple[str, str]]] = {}
        self.items: list[dict] = []  # {"text": first words, "ops": [...], "out": entry id or None}
        self.messages: dict[str, str] = {}
        self._li: list[dict] = []
        self._select: str | None = None
        self._option: list | None = None
        self._p: str | None = None
        self._seat = False  # inside a row's seat number (<b>), not its name
        self.section = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("id") == "players":
            self.section = True
        elif tag == "b" and self._li:
            self._seat = True
        elif tag == "li":
            self._li.append({"text": "", "ops": [], "out": None})
            self.items.append(self._li[-1])
        elif tag == "button" and a.get("name") == "op":
            self.ops.append(a.get("value", ""))
            if self._li:
                self._li[-1]["ops"].append(a.get("value", ""))
        elif tag == "input" and a.get("name") == "out" and self._li:
            self._li[-1]["out"] = a.get("value")
        elif tag == "select":
            self._select = a.get("name", "")
            self.selects[self._select] = []
        elif tag == "option" and self._select is not None:
            self._option = [a.get("value", ""), ""]
        elif tag in ("p", "span") and a.get("class") in ("error", "flash"):  # the answer bar's, or beside a button
            self._p = a["class"]
            self.messages[self._p] = ""

    def handle_endtag(self, tag):
        if tag == "b":
            self._seat = False
        elif tag == "li" and self._li:
            self._li.pop()
        elif tag == "option" and self._option is not None:
            self.selects[self._select].append((self._option[0], self._option[1].strip()))
            self._option = None
        elif tag == "select":
            self._select = None
        elif tag in ("p", "span"):
            self._p = None

    def handle_data(self, data):
        if self._option is not None:
            self._option[1] += data
        if self._li and not self._seat and not self._li[-1]["text"] and data.strip():
            self._li[-1]["text"] = data.strip()
        if self._p:
            self.messages[self._p] += data

    # --- what the host sees
    def playing(self) -> list[tuple[str, str]]:
        """(entry id, name) of everyone in the game, as the roster lists them."""
        return [(item["out"], item["text"]) for item in self.items if item["out"]]

    def entry_of(self, name: str, op: str = "bust") -> str | None:
        """The entry id of `name` from its list item's `op:<id>` button."""
        for item in self.items:
            if item["text"] == name:
                for value in item["ops"]:
                    if value.startswith(op + ":"):
                        return value.split(":", 1)[1]
        return None

    def first(self, prefix: str) -> str | None:
        return next((op for op in self.ops if op == prefix or op.startswith(prefix + ":")), None)


# --- the phones: clock_load's SSE clients, in their own process so they don't share this one's CPU --

def _phones_process(conn, port: int, event_id: int, n: int, timeout: float) -> None:
    asyncio.run(_phones(conn, port, event_id, n, timeout))


async def _phones(conn, port: int, event_id: int, n: int, timeout: float) -> None:
    fanout = clock_load.Fanout()
    try:
        connect = await clock_load.open_phones(fanout, port, event_id, n, timeout)
    except Exception as problem:  # noqa: BLE001 - reported to the parent
        conn.send(("error", repr(problem)))
        return
    conn.send(("ready", {"seconds_to_connect_all": connect["seconds_to_connect_all"],
                         "message_bytes": connect["message_bytes"]}))
    while True:
        command, arg = await asyncio.to_thread(conn.recv)
        if command == "stop":
            break
        if command == "until":  # wait until every phone has version `arg` or newer
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and not all(
                    p.received and max(p.received) >= arg for p in fanout.phones):
                await asyncio.sleep(0.02)
            conn.send(("until", sum(1 for p in fanout.phones if p.received and max(p.received) >= arg)))
    receipts: dict[int, list[float]] = collections.defaultdict(list)
    for phone in fanout.phones:
        for version, at in phone.received.items():
            receipts[version].append(at)
    per_version = {v: (len(ts), min(ts), statistics.median(ts), max(ts)) for v, ts in receipts.items()}
    counts = [len(p.received) for p in fanout.phones]
    conn.send(("stats", {"phones": len(fanout.phones), "lost_streams": sum(1 for p in fanout.phones if p.closed.done()),
                         "messages_per_phone": {"min": min(counts), "median": statistics.median(counts),
                                                "max": max(counts)},
                         "heartbeats": sum(p.heartbeats for p in fanout.phones), "per_version": per_version,
                         "client_busy_s": fanout.busy}))
    for phone in fanout.phones:
        phone.transport.close()
    await asyncio.sleep(0.2)


class Phones:
    """N phones on /events/<id>/stream in a child process (clock_load's Phone and Fanout)."""

    def __init__(self, port: int, event_id: int, n: int, timeout: float) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.timeout = timeout
        self.proc = ctx.Process(target=_phones_process, args=(child, port, event_id, n, timeout), daemon=True)
        self.proc.start()

    def _recv(self, wait: float):
        if not self.conn.poll(wait):
            raise RuntimeError(f"the phones' process did not answer in {wait:.0f} s")
        kind, value = self.conn.recv()
        if kind == "error":
            raise RuntimeError(f"phones: {value}")
        return value

    def ready(self) -> dict:
        return self._recv(self.timeout + 60)

    def until(self, version: int) -> int:
        self.conn.send(("until", version))
        return self._recv(self.timeout + 10)

    def stop(self) -> dict:
        self.conn.send(("stop", None))
        try:
            return self._recv(self.timeout)
        finally:
            self.proc.join(10)
            if self.proc.is_alive():
                self.proc.kill()

    def cpu_seconds(self) -> float:
        """utime+stime of the phones' process (/proc)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / clock_load.CLK_TCK

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)


# --- server-side profile (--profile): a gunicorn config that wraps the worker's app ------------------

PROFILE_CONF = '''\
"""Written by tests/bench/night_load.py --profile / --server-times: per request tagged X-Bench-Kind,
its time in the app (wall and CPU), the SQL statements it ran (count and time) and, with --profile, a
cProfile of it; dumped when the worker quits."""
import cProfile, json, os, re, time

OUT = {out!r}
PROFILE = {profile!r}
_profiles, _stats, _current, _dumped = {{}}, {{}}, [], []
# `-c` replaces the project's own gunicorn.conf.py: read it first so the server runs as configured
_project = {{}}
if os.path.exists({project!r}):
    with open({project!r}) as source:
        exec(compile(source.read(), {project!r}, "exec"), _project)
    globals().update({{k: v for k, v in _project.items() if not k.startswith("_") and k not in (
        "post_worker_init", "worker_int", "worker_exit")}})


def post_worker_init(worker):
    if "post_worker_init" in _project:
        _project["post_worker_init"](worker)
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "before_cursor_execute")
    def _before(conn, cursor, statement, parameters, context, executemany):
        conn.info.setdefault("bench_started", []).append(time.perf_counter())

    @event.listens_for(Engine, "after_cursor_execute")
    def _after(conn, cursor, statement, parameters, context, executemany):
        started = conn.info["bench_started"].pop()
        if _current:
            _current[-1][0] += 1
            _current[-1][1] += time.perf_counter() - started

    app = worker.wsgi

    def profiled(environ, start_response):
        kind = environ.get("HTTP_X_BENCH_KIND")
        if not kind:
            return app(environ, start_response)
        profile = _profiles.setdefault(kind, cProfile.Profile()) if PROFILE else None
        counters = [0, 0.0]
        _current.append(counters)
        started, cpu = time.perf_counter(), time.thread_time()
        answered = []

        def starting(status, headers, exc_info=None):
            answered.append(status)
            return start_response(status, headers, exc_info)

        if profile:
            profile.enable()
        try:
            result = app(environ, starting)
            body = b"".join(result)
            if hasattr(result, "close"):
                result.close()
        finally:
            if profile:
                profile.disable()
            _current.pop()
        if answered and answered[0].startswith("422") and not kind.endswith("refused"):
            kind += " refused"  # a refusal (nothing written) is its own kind: the final's ticketless check-in
        row = _stats.setdefault(kind, {{"server_ms": [], "cpu_ms": [], "queries": [], "query_ms": []}})
        row["server_ms"].append((time.perf_counter() - started) * 1000)
        row["cpu_ms"].append((time.thread_time() - cpu) * 1000)
        row["queries"].append(counters[0])
        row["query_ms"].append(counters[1] * 1000)
        return [body]

    worker.wsgi = profiled


def _dump():
    if _dumped:
        return
    _dumped.append(1)
    os.makedirs(OUT, exist_ok=True)
    for kind, profile in _profiles.items():
        profile.dump_stats(os.path.join(OUT, re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_") + ".prof"))
    with open(os.path.join(OUT, "server.json"), "w") as out:
        json.dump(_stats, out)


def worker_int(worker):
    _dump()
    if "worker_int" in _project:
        _project["worker_int"](worker)


def worker_exit(server, worker):
    _dump()
    if "worker_exit" in _project:
        _project["worker_exit"](server, worker)
'''


def profile_summary(directory: Path, top: int) -> dict:
    """Per kind: server time inside the app (wall and CPU; inflated when profiled), SQL statements and
    their time; with a profile, the top functions by cumulative time."""
    import io
    import pstats
    stats_file = directory / "server.json"
    if not stats_file.exists():
        return {}
    raw = json.loads(stats_file.read_text())
    out = {}
    for kind, row in raw.items():
        entry = {"n": len(row["server_ms"]), "server_ms_median": statistics.median(row["server_ms"]),
                 "server_ms_p95": percentile(row["server_ms"], 95), "server_ms_p99": percentile(row["server_ms"], 99),
                 "server_ms_max": max(row["server_ms"]), "cpu_ms_median": statistics.median(row["cpu_ms"]),
                 "queries_median": statistics.median(row["queries"]),
                 "query_ms_median": statistics.median(row["query_ms"])}
        prof = directory / (re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_") + ".prof")
        if prof.exists() and top:
            buffer = io.StringIO()
            pstats.Stats(str(prof), stream=buffer).sort_stats("cumulative").print_stats(top)
            entry["top"] = buffer.getvalue()
        out[kind] = entry
    return out


# --- the night --------------------------------------------------------------------------------------

class Night:
    """The host's phone through one night; every timed request is a sample."""

    def __init__(self, port: int, event_id: int, check_in_code: str, opts, rng: random.Random) -> None:
        self.port, self.event_id, self.code, self.opts, self.rng = port, event_id, check_in_code, opts, rng
        self.host = Browser(port, timeout=opts.timeout)
        self.samples: list[dict] = []
        self.failures: list[dict] = []
        self.page: Page | None = None
        self.token = ""
        self.version = 0  # the event's clock version: every host action moves it on by one
        self.actions = 0
        self.last_kind: str | None = None  # what Undo would take back
        self.sent: dict[int, float] = {}  # version → when the request that made it was sent
        self.version_drift = 0  # versions made by something this script did not count (0: the mapping holds)
        self.final_id: int | None = None  # the month's Monthly Final (phase 7)
        self.last_sample: dict = {}  # the last roster POST's (a refresh may follow it)
        self.reentries_left = opts.reentries
        self.holders: list[str] = []  # the final's ticket holders' names (seed)
        self.phones: dict[str, str] = {}  # name → member cookie of each player checked in on their own phone

    @property
    def players_url(self) -> str:
        return f"/host/events/{self.event_id}/players"

    def login(self) -> None:
        page = self.host.fetch("GET", "/login")
        reply = self.host.fetch("POST", "/login", {"username": HOST_USER, "password": HOST_PASSWORD,
                                                   "csrf_token": csrf_token(page.text)})
        if reply.status not in (302, 303):
            raise RuntimeError(f"host login answered {reply.status}")
        self.open()

    def open(self) -> None:
        """The host's players page of this event (the host already logged in), as the phone opens it."""
        page = self.host.fetch("GET", self.players_url)
        if page.status != 200:
            raise RuntimeError(f"the host's players page answered {page.status}")
        self.token = csrf_token(page.text)
        self.page = Page(page.text)
        clock = clock_load.clock_json(f"http://127.0.0.1:{self.port}", self.event_id)
        self.version = clock["version"]

    def _sample(self, kind: str, reply: Reply, players_in: int, **extra) -> dict:
        sample = {"kind": kind, "ms": round(reply.ms, 3), "status": reply.status, "wire_bytes": reply.wire_bytes,
                  "html_bytes": len(reply.body), "players_in": players_in, **extra}
        self.samples.append(sample)
        return sample

    def act(self, kind: str, op: str, fields: dict | None = None, expect: int | tuple[int, ...] = 200,
            tag: str | None = None) -> Page:
        """One roster form POST as htmx sends it; checks the answer is the roster with the message
        (`expect`: the statuses that are right; a refusal, 422, writes nothing, so no version moves).
        `tag` names the request for the server-side times (default `kind`)."""
        expected = (expect,) if isinstance(expect, int) else expect
        form = [("csrf_token", self.token), ("op", op)]
        for name, value in (fields or {}).items():
            form += [(name, v) for v in value] if isinstance(value, list) else [(name, value)]
        players_in = len(self.page.playing()) if self.page else 0
        reply = self.host.fetch("POST", self.players_url, form, {"HX-Request": "true", "X-Bench-Kind": tag or kind})
        page = Page(reply.text)
        problem = None
        if reply.status not in expected:
            problem = f"status {reply.status}: {page.messages.get('error', reply.text[:200]).strip()}"
        elif not page.section:
            problem = "the answer is not the roster fragment"
        elif reply.status == 200 and "flash" not in page.messages:
            problem = "no confirmation message in the roster"
        elif reply.status != 200 and "error" not in page.messages:
            problem = "a refusal without its reason in the roster"
        self.last_sample = self._sample(kind, reply, players_in, op=op.split(":")[0], ok=problem is None)
        if problem:
            self.failures.append({"kind": kind, "op": op, "problem": problem})
            log(f"    ! {kind} ({op}): {problem}")
            if len(self.failures) > 20:
                raise RuntimeError("more than 20 host actions failed: " + "; ".join(
                    f["problem"] for f in self.failures[:5]))
        else:
            if reply.status == 200:
                self.bumped(reply.sent)
                self.last_kind = kind
            self.page = page
            self.token = csrf_token(reply.text)
        self.actions += 1
        if self.opts.refresh_every and self.actions % self.opts.refresh_every == 0:
            self.refresh()
        self.pause()
        return page

    def bumped(self, sent: float) -> None:
        """A change went through: the event's version moved on by one (what the phones hear next)."""
        self.version += 1
        self.sent[self.version] = sent

    def pause(self) -> None:
        if self.opts.gap:
            time.sleep(self.opts.gap)

    def refresh(self) -> None:
        """The roster refetching itself (hx-get with HX-Request): app.js does it when the stream brings
        a version newer than the roster's own (someone else's change: a phone's check-in)."""
        reply = self.host.fetch("GET", self.players_url, headers={"HX-Request": "true",
                                                                  "X-Bench-Kind": "roster refresh (GET)"})
        page = Page(reply.text)
        ok = reply.status == 200 and page.section
        self._sample("roster refresh (GET)", reply, len(self.page.playing()), op="get", ok=ok)
        if ok:
            self.page = page  # the refetched roster replaces the one on screen (a phone's arrival on it)
        if not ok:
            self.failures.append({"kind": "roster refresh (GET)", "op": "get", "problem": f"status {reply.status}"})

    def search(self, name: str) -> str:
        """The walk-in search as the host types the name → the member's `walk_in:<id>` button."""
        reply = self.host.fetch("GET", f"/host/events/{self.event_id}/members?" + urllib.parse.urlencode({"q": name}),
                                headers={"HX-Request": "true", "X-Bench-Kind": "member search (GET)"})
        found = Page(reply.text)
        op = next((o for item in found.items if item["text"] == name for o in item["ops"]
                   if o.startswith("walk_in:")), None)
        self._sample("member search (GET)", reply, len(self.page.playing()), op="get", ok=op is not None)
        if op is None:
            raise RuntimeError(f"the walk-in search for {name!r} did not offer them (status {reply.status})")
        return op

    def walk_in(self, member: dict, kind: str = "walk-in") -> None:
        self.act(kind, self.search(member["name"]))

    def final_check_in(self, member: dict) -> bool:
        """R-QUAL-3, R-MEM-2: the host checks a player in to the Monthly Final: a ticket holder is
        admitted; anyone else is refused with the reason, then let in by the host's override (a
        ruling). Returns whether they held a ticket."""
        op = self.search(member["name"])
        answer = self.act("final check-in", op, expect=(200, 422))  # its own answer: a refresh may follow it
        if self.last_sample["status"] != 422:
            return True
        self.last_sample["kind"] = "final check-in refused"
        if "No Monthly Final ticket" not in answer.messages.get("error", ""):
            self.failures.append({"kind": "final check-in refused", "op": op,
                                  "problem": f"refused for another reason: {answer.messages.get('error')}"})
        self.act("final check-in override", op, {"reason": FINAL_OVERRIDE_REASON})
        return False

    def phone_check_in(self, member: dict) -> None:
        """The player's own phone (its member cookie): open the check-in link, tap Check in."""
        phone = Browser(self.port, {"shuffleup_member": member["cookie"]}, timeout=self.opts.timeout)
        page = phone.fetch("GET", f"/check-in/{self.code}")
        if page.status != 200 or f"Check in as {member['name']}" not in _unescape(page.text):
            raise RuntimeError(f"check-in page for {member['name']!r}: status {page.status}")
        reply = phone.fetch("POST", f"/check-in/{self.code}", {"csrf_token": csrf_token(page.text)},
                            {"X-Bench-Kind": "phone check-in (player)"})
        ok = reply.status == 303
        if ok:
            self.phones[member["name"]] = member["cookie"]  # R-PAY-2: a deal's vote is theirs, on this phone
        self._sample("phone check-in (player)", reply, len(self.page.playing()), op="check_in", ok=ok)
        if not ok:
            self.failures.append({"kind": "phone check-in (player)", "op": "check_in",
                                  "problem": f"status {reply.status}"})
        else:
            self.bumped(reply.sent)  # the check-in moves the version on: the host's roster and the clock hear of it
        self.pause()
        self.refresh()  # the host's roster hears of it through the stream and refetches itself
        self.pause()

    def bonus(self, name: str, kind: str) -> None:
        entry = self.page.entry_of(name)
        if entry is None:
            raise RuntimeError(f"{name!r} is not in the roster for a bonus")
        self.act("bonus", "bonus", {"bonus_entry": entry, "kind": kind, "why": ""})

    def undo(self) -> None:
        op = self.page.first("undo")
        if op is None:
            raise RuntimeError("no Undo button after an action")
        self._undo(op)

    def _undo(self, op: str) -> None:
        """Undo (labelled with what it takes back: undoing a draw rewrites 200 rows, a bust one)."""
        undone = self.last_kind
        self.act("undo", op, tag=f"undo ({undone})" if undone else "undo")
        next(s for s in reversed(self.samples) if s["kind"] == "undo")["undid"] = undone
        self.last_kind = None

    def tables_plan(self) -> bool:
        """Do what the table plan asks (break, then balancing moves); True if it asked for something."""
        if self.page.first("break"):
            self.act("break", "break")
            return True
        move = self.page.first("move_to")
        if move:
            k = move.split(":")[1]
            movers = self.page.selects.get(f"mover-{k}") or []
            if not movers:
                raise RuntimeError("a balancing move without anyone to move")
            self.act("move", move, {f"mover-{k}": self.rng.choice(movers)[0]})
            return True
        return False

    def bust_round(self, n: int) -> None:
        """The n-th bust-phase action: a re-entry (every third, while --reentries last and someone busted
        may), an undo, a DQ, several out in one hand, or one out."""
        playing = self.page.playing()
        o = self.opts
        if self.reentries_left and n % 3 == 0 and (op := self.page.first("reenter")):
            self.reentries_left -= 1
            self.act("re-entry", op)  # R-ENTRY-1: a new stack on a new random seat
        elif o.undo_every and n % o.undo_every == 0 and self.page.first("undo"):
            self._undo(self.page.first("undo"))
        elif o.dq_every and n % o.dq_every == 0 and len(playing) > 2:
            entry, _ = self.rng.choice(playing)
            self.act("dq", "dq", {"dq_entry": entry, "reason": "Bench: marked cards <script>"})
        elif o.hand_every and n % o.hand_every == 0 and len(playing) > 3:
            out = self.rng.sample(playing, min(len(playing) - 2, self.rng.choice((2, 2, 3))))
            stacks = {f"stack-{entry}": f"{self.rng.randrange(1, 60) * 500:,}" for entry, _ in out}
            self.act("bust hand", "bust_hand", {"out": [entry for entry, _ in out], **stacks})
        else:
            entry, _ = self.rng.choice(playing)
            self.act("bust", f"bust:{entry}")

    def floor(self, kind: str, entry: str, op: str, fields: dict | None = None) -> str | None:
        """R-PEN-1/2: one action on a player's floor panel (POST …/floor/<entry>, op=give:<kind> or
        end:<penalty>), as htmx sends it; the answer is the panel with its message. Returns the
        penalty's End early button (`end:<id>`) when the panel shows one."""
        form = [("csrf_token", self.token), ("op", op), *((fields or {}).items())]
        players_in = len(self.page.playing())
        reply = self.host.fetch("POST", f"/host/events/{self.event_id}/floor/{entry}", form,
                                {"HX-Request": "true", "X-Bench-Kind": kind})
        panel = Page(reply.text)
        problem = None
        if reply.status != 200:
            problem = f"status {reply.status}: {panel.messages.get('error', reply.text[:200]).strip()}"
        elif "flash" not in panel.messages:
            problem = "no confirmation message on the floor panel"
        self.last_sample = self._sample(kind, reply, players_in, op=op.split(":")[0], ok=problem is None)
        if problem:
            self.failures.append({"kind": kind, "op": op, "problem": problem})
            log(f"    ! {kind} ({op}): {problem}")
        else:
            self.bumped(reply.sent)
            self.last_kind = kind
        self.actions += 1
        self.pause()
        return panel.first("end")

    def _vote(self, browser: Browser, url: str, page_kind: str, vote_kind: str, yes: bool) -> None:
        """R-PAY-2: open a ballot (GET `url`) and tap Yes or No on it (POST, answered 303)."""
        players_in = len(self.page.playing())
        page = browser.fetch("GET", url, headers={"X-Bench-Kind": page_kind})
        ok = page.status == 200 and 'name="vote"' in page.text
        self._sample(page_kind, page, players_in, op="get", ok=ok)
        if not ok:
            self.failures.append({"kind": page_kind, "op": "get", "problem": f"status {page.status}"})
            return
        reply = browser.fetch("POST", url, {"csrf_token": csrf_token(page.text), "vote": "yes" if yes else "no"},
                              {"X-Bench-Kind": vote_kind})
        ok = reply.status == 303
        self._sample(vote_kind, reply, players_in, op="vote", ok=ok)
        if not ok:
            self.failures.append({"kind": vote_kind, "op": "vote", "problem": f"status {reply.status}: {reply.text[:200]}"})
        else:
            self.bumped(reply.sent)  # the vote takes the event's lock: its version moves on
        self.pause()

    def own_vote(self, name: str, yes: bool) -> None:
        """R-PAY-2: a player who checked in on their own phone votes on it (/events/<id>/deal)."""
        phone = Browser(self.port, {"shuffleup_member": self.phones[name]}, timeout=self.opts.timeout)
        self._vote(phone, f"/events/{self.event_id}/deal", "deal ballot (own phone, GET)", "deal vote (own phone)", yes)

    def ballot_vote(self, entry: str, yes: bool) -> None:
        """R-PAY-2, pass the phone: the host's phone opens the player's private ballot, the player taps Yes
        or No (…/ballot/<entry>, answered 303 to the "vote is in" screen)."""
        self._vote(self.host, f"/host/events/{self.event_id}/ballot/{entry}", "ballot page (GET)",
                   "ballot vote (passed phone)", yes)
        self.actions += 1

    def clock_start(self) -> None:
        current = clock_load.clock_json(f"http://127.0.0.1:{self.port}", self.event_id)["version"]
        if current != self.version:
            self.version_drift += current - self.version
            self.version = current
        reply = self.host.fetch("POST", f"/host/events/{self.event_id}/clock",
                                {"action": "start", "version": str(self.version), "csrf_token": self.token},
                                {"HX-Request": "true", "X-Bench-Kind": "clock start"})
        ok = reply.status == 200
        self._sample("clock start", reply, len(self.page.playing()), op="start", ok=ok)
        if not ok:
            self.failures.append({"kind": "clock start", "op": "start", "problem": f"status {reply.status}"})
        else:
            self.bumped(reply.sent)
        self.pause()


def own_cpu_seconds(phones: Phones | None) -> float:
    """CPU seconds of this process and its phones' process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime + (phones.cpu_seconds() if phones is not None else 0.0)


def _unescape(text: str) -> str:
    import html
    return html.unescape(text)


def drive(night: Night, members: list[dict], opts) -> dict:
    """The whole night (see the module's docstring); returns per-phase notes."""
    rng = night.rng
    arrivals, late = members[:opts.players], members[opts.players:]
    phoning = set(rng.sample(range(len(arrivals)), min(opts.phone_checkins, len(arrivals))))
    waiting: collections.deque[dict] = collections.deque()
    bonus_turn = 0

    def maybe_bonus(member: dict, i: int) -> None:
        nonlocal bonus_turn
        if opts.bonus_every and i % opts.bonus_every == 0:
            night.bonus(member["name"], BONUS_KINDS[bonus_turn % len(BONUS_KINDS)])
            bonus_turn += 1

    log(f"[2] arrivals: {len(arrivals) - len(phoning)} at the door, {len(phoning)} by phone")
    for i, member in enumerate(arrivals):
        if i in phoning:
            night.phone_check_in(member)
            waiting.append((i, member))
        else:
            night.walk_in(member)
            maybe_bonus(member, i)
        while len(waiting) >= 3 or (waiting and i == len(arrivals) - 1):
            j, arrived = waiting.popleft()
            entry = night.page.entry_of(arrived["name"], "confirm")
            if entry is None:
                raise RuntimeError(f"{arrived['name']!r} checked in by phone but is not among the arrivals")
            night.act("confirm", f"confirm:{entry}")
            maybe_bonus(arrived, j)
        if (i + 1) % 50 == 0:
            log(f"    {i + 1} arrived, {len(night.page.playing())} in")
    log(f"[3] seat draw ×{opts.draws} (undone between), clock start, {len(late)} late entrants")
    for d in range(opts.draws):
        night.act("draw", "draw")
        if d < opts.draws - 1:
            night.undo()
    everyone_for(night, opts)
    night.clock_start()
    penalties(night, opts)
    for i, member in enumerate(late):
        night.walk_in(member, "late entrant")
        if opts.undo_every and i % opts.undo_every == opts.undo_every - 1:
            night.undo()  # the wrong one: undo, then check them in again
            night.walk_in(member, "late entrant")
    log(f"[4] bust-outs to the final table ({len(night.page.playing())} in)")
    n, bound = 0, 20 * len(members) + 100
    while not night.page.first("final"):
        if len(night.page.playing()) <= 1 or n > bound:
            raise RuntimeError("the final table never came")
        if night.tables_plan():
            continue
        n += 1
        night.bust_round(n)
        if n % 50 == 0:
            log(f"    {n} bust-phase actions, {len(night.page.playing())} in")
    log(f"[5] final table ×{opts.finals} (undone between), bust-outs to the winner")
    for f in range(opts.finals):
        night.act("final table", "final")
        if f < opts.finals - 1:
            night.undo()
    ballots(night, opts)
    while len(night.page.playing()) > 1:
        n += 1
        if n > 2 * bound:
            raise RuntimeError("the night never ended")
        night.bust_round(n)
    log(f"[6] settle ×{opts.settles} (undone between)")
    for s in range(opts.settles):
        if not night.page.first("settle"):
            raise RuntimeError("no Settle button with one player left")
        night.act("settle", "settle")
        if s < opts.settles - 1:
            night.undo()
    return {"bust_phase_actions": n, "reentries": opts.reentries - night.reentries_left,
            **finals_check_ins(night, members, opts)}


def everyone_for(night: Night, opts) -> None:
    """R-CHIP-1/2: food (then drink, in turn) for everyone at the start of play, --everyone times,
    each undone (so every round gives all the players in the game their bonus again)."""
    log(f"    food/drink for everyone ×{opts.everyone} (undone between)")
    for i in range(opts.everyone):
        kind = ("food", "drink")[i % 2]
        if not night.page.first(f"bonus_all:{kind}"):
            raise RuntimeError(f"no {kind}-for-everyone button at the start of play")
        night.act("food/drink for everyone", f"bonus_all:{kind}")
        night.undo()


def penalties(night: Night, opts) -> None:
    """R-PEN-1/2: --penalties missed-hand and missed-round penalties (in turn) on players in the game,
    each ended early on the player's floor panel."""
    log(f"    penalties ×{opts.penalties}, each ended early")
    for i in range(opts.penalties):
        entry, _ = night.rng.choice(night.page.playing())
        fields = {"hands": "2", "reason": "Bench: exposed a card <b>"} if i % 2 == 0 else {
            "rounds": "1", "reason": "Bench: soft play"}
        end = night.floor("penalty given", entry, "give:" + ("missed_hands" if i % 2 == 0 else "missed_rounds"),
                          fields)
        if end is None:
            night.failures.append({"kind": "penalty given", "op": "give", "problem": "no End early button after it"})
            continue
        night.floor("penalty ended", entry, end)
    night.open()  # back to the roster, as the panel's link does


def ballots(night: Night, opts) -> None:
    """R-PAY-2: the final table puts a deal to the vote (op=deal, every stack counted), and every player
    votes, yes but the last, whose no voids it: on their own phone if they checked in on it, otherwise on
    the host's passed phone (it is only for players without one); again until --votes votes are in."""
    cast = 0
    log(f"    deal ballots on the passed phone: {opts.votes} votes")
    while cast < opts.votes:
        playing = night.page.playing()
        if not night.page.first("deal") or len(playing) < 2:
            raise RuntimeError(f"no deal to put to the vote with {len(playing)} players left")
        stacks = {f"deal-{entry}": str(night.rng.randrange(1, 60) * 1000) for entry, _ in playing}
        # Random stacks rarely add up to the chips in play (R-CHIP-3): the host's reason lets them stand.
        night.act("deal", "deal", {**stacks, "method": "icm", "count_reason": "Counted at random by the bench"})
        for k, (entry, name) in enumerate(playing):
            if name in night.phones:
                night.own_vote(name, yes=k < len(playing) - 1)
            else:
                night.ballot_vote(entry, yes=k < len(playing) - 1)
            cast += 1
        night.open()  # the phone back with the host: the roster, the deal called off by the "no"


def finals_check_ins(night: Night, members: list[dict], opts) -> dict:
    """Phase 7: --final-checkins of tonight's players check in to the month's Monthly Final, its top
    finishers (tonight's ticket holders, R-QUAL-1) and the others in turn; returns how many held one."""
    if not opts.final_checkins:
        return {}
    final = Night(night.port, night.final_id, "", opts, night.rng)
    final.host, final.samples, final.failures = night.host, night.samples, night.failures  # one phone, one log
    final.open()
    holding = set(night.holders)
    top = [m["name"] for m in members if m["name"] in holding]
    rest = [m["name"] for m in members if m["name"] not in holding]
    turns = [name for pair in zip(top, rest) for name in pair] + top[len(rest):] + rest[len(top):]
    by_name = {member["name"]: member for member in members}
    log(f"[7] Monthly Final: {min(opts.final_checkins, len(turns))} check-ins, ticket holders and others in turn, "
        f"then {opts.rebuys} rebuys")
    held = sum(final.final_check_in(by_name[name]) for name in turns[:opts.final_checkins])
    # R-ENTRY-1: the final's players rebuy in turn, on each one's sheet (POST …/floor/<entry>, op=rebuy),
    # up to the game's limit each (5): a refused rebuy is logged as a failure, as every refusal is.
    players = [entry for entry, _ in final.page.playing()]
    rebought = 0
    for entry in (players * 5)[:opts.rebuys]:
        final.floor("rebuy", entry, f"rebuy:{entry}")
        rebought += 1
    return {"final_checkins": min(opts.final_checkins, len(turns)), "final_ticket_holders": held,
            "rebuys": rebought, "final_version": final.version}


# --- figures ------------------------------------------------------------------------------------------

def kind_label(sample: dict) -> str:
    if sample["kind"] == "undo" and sample.get("undid"):
        return f"undo ({sample['undid']})"
    return sample["kind"]


def figures(samples: list[dict], full: int) -> dict:
    """Per kind: count, players in, median/p95/max ms, bytes; `p95_full_ms` over the samples with at
    least `full` players in (the target's "with 200 players in"), when there are 5 or more."""
    by_kind: dict[str, list[dict]] = collections.defaultdict(list)
    for sample in samples:
        by_kind[kind_label(sample)].append(sample)
        if sample["kind"] == "undo":
            by_kind["undo (all)"].append(sample)
    out = {}
    for kind, rows in by_kind.items():
        ms = [r["ms"] for r in rows]
        out[kind] = {"n": len(rows), "median_ms": statistics.median(ms), "p95_ms": percentile(ms, 95),
                     "max_ms": max(ms), "players_in": [min(r["players_in"] for r in rows),
                                                        max(r["players_in"] for r in rows)],
                     "wire_bytes": statistics.median(r["wire_bytes"] for r in rows),
                     "html_bytes": statistics.median(r["html_bytes"] for r in rows),
                     "failed": sum(1 for r in rows if not r["ok"])}
        crowded = [r["ms"] for r in rows if r["players_in"] >= full]
        out[kind]["n_full"] = len(crowded)
        out[kind]["p95_full_ms"] = percentile(crowded, 95) if len(crowded) >= 5 else None
    return out


def order_key(kind: str) -> tuple:
    base = kind.split(" (")[0] if kind.startswith("undo") else kind
    rank = POST_KINDS_ORDER.index(base) if base in POST_KINDS_ORDER else len(POST_KINDS_ORDER)
    return (kind.endswith("(GET)"), rank, kind != "undo (all)", kind)


# --- the whole run --------------------------------------------------------------------------------

def tree() -> dict:
    """The commit measured and the files changed in the working tree (read-only git; {} without git)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                               text=True, timeout=10).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"head": head, "changed": [line[3:] for line in dirty if line.strip()]}


def subscribe_everyone(url: str):
    """--push: a push service on loopback (tests/fixtures/push_service.py) and every member's phone
    subscribed to it, so each move, break, final table, penalty and settle sends real Web Push
    messages (encrypted and signed by the server) while the host's actions are timed."""
    from app import create_app
    from services.models import Member, PushSubscription
    from tests.fixtures.push_service import PushService
    from wiring.extensions import db
    service = PushService()
    keys = service.phone("any").subscription()["keys"]
    app = create_app({"TESTING": True, "SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        for member_id in db.session.scalars(db.select(Member.id)):
            db.session.add(PushSubscription(member_id=member_id, endpoint=f"{service.origin}/push/{member_id}",
                                            p256dh=keys["p256dh"], auth=keys["auth"]))
        db.session.commit()
    return service


def run(opts) -> dict:
    """Seed, serve, connect the phones, drive the night; returns the figures (progress on stderr)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < opts.phones + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, opts.phones + 1000), hard))
    workdir = Path(tempfile.mkdtemp(prefix="shuffleup-night-load-"))
    results: dict = {"players": opts.players, "late": opts.late, "phones": opts.phones, "max_seats": opts.max_seats,
                     "workers": opts.workers, "nproc": os.cpu_count(), "python": sys.version.split()[0],
                     "loadavg_before": os.getloadavg()[0], "loadavg_1_5_15_before": os.getloadavg(),
                     "profiled": bool(opts.profile), "gap_s": opts.gap, "min_samples": opts.min_samples,
                     "tree": tree(), "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    server = phones = None
    try:
        with clock_load.database("sqlite", workdir) as url:
            clock_load.migrate(url)
            seeded = seed(url, opts.players + opts.late, opts.max_seats)
            event_id = seeded["event_id"]
            extra = []
            if opts.profile or opts.server_times:
                conf = workdir / "profile_conf.py"
                out_dir = Path(opts.profile).resolve() if opts.profile else workdir / "server-times"
                conf.write_text(PROFILE_CONF.format(out=str(out_dir), profile=bool(opts.profile),
                                                    project=str(ROOT / "gunicorn.conf.py")))
                extra = ["-c", str(conf)]
            env = clock_load.server_env(url, None)
            if opts.push:  # every player's phone subscribed to a push service on loopback
                push_service = subscribe_everyone(url)
                env["SHUFFLEUP_PUSH_SERVICES"] = push_service.origin
            if opts.seat_seed is not None:
                env["SHUFFLEUP_SEAT_RNG_SEED"] = str(opts.seat_seed)
            # Every phone here comes from one address, faster than a pub's door: the night's load is what
            # is measured, not the anonymous limits (tests/web/test_limits.py holds those).
            for limit in ("CHECK_IN_RATE_LIMIT", "CHECK_IN_LINK_RATE_LIMIT", "LOGIN_RATE_LIMIT"):
                env[f"SHUFFLEUP_{limit}"] = "100000 per minute"
            server = clock_load.Server(env, opts.workers, opts.port or clock_load.free_port(),
                                       workdir / "gunicorn.log", extra)
            results["boot_s"] = round(server.start(), 2)
            log(f"[1] gunicorn: {opts.workers} gevent worker(s) on {server.base}; {opts.players} players "
                f"(+{opts.late} late) on a fresh SQLite")
            if opts.phones:
                phones = Phones(server.port, event_id, opts.phones, opts.timeout)
                results["phones_connect"] = phones.ready()
                log(f"    {opts.phones} phones on the clock stream in "
                    f"{results['phones_connect']['seconds_to_connect_all']:.2f} s")
            night = Night(server.port, event_id, seeded["check_in_code"], opts, random.Random(opts.seed))
            night.final_id, night.holders = seeded["final_id"], seeded["ticket_holders"]
            night.login()
            first_version = night.version
            gc.collect()
            gc.freeze()
            gc.disable()  # a collection in this process would be counted as the server's time
            cpu0, machine0, started = server.cpu_seconds(), machine_ticks(), time.monotonic()
            own0 = own_cpu_seconds(phones)
            try:
                results["night"] = drive(night, seeded["members"], opts)
            finally:
                gc.enable()
                gc.unfreeze()
                results["seconds"] = round(time.monotonic() - started, 1)
                machine1 = machine_ticks()
                results["machine_busy_pct"] = machine_busy_pct(machine0, machine1)
                results["server_cpu_s"] = round(server.cpu_seconds() - cpu0, 2)
                results["bench_cpu_s"] = round(own_cpu_seconds(phones) - own0, 2)
                # the rest of the machine: busy jiffies not spent by the server, this script or its phones
                own = (results["server_cpu_s"] + results["bench_cpu_s"]) * clock_load.CLK_TCK
                results["others_busy_pct"] = max(0.0, 100 * (machine1[0] - machine0[0] - own)
                                                 / max(1, machine1[1] - machine0[1]))
                results["samples"] = night.samples
                results["failures"] = night.failures
            clock = clock_load.clock_json(server.base, event_id)
            results["clock_version"] = {"first": first_version, "expected": night.version, "api": clock["version"],
                                        "drift": night.version_drift}
            roster = night.host.fetch("GET", night.players_url)
            results["roster_final"] = {"status": roster.status, "html_bytes": len(roster.body),
                                       "out": len(re.findall(r"<li><span>\d+\. ", roster.text))}
            if phones is not None:
                results["phones_caught_up"] = phones.until(clock["version"])
                stats = phones.stop()
                per_version = stats.pop("per_version")
                mapped = night.version_drift == 0 and night.version == clock["version"]
                delays = [(per_version[v][3] - sent) * 1000 for v, sent in night.sent.items() if v in per_version]
                stats["all_phones_had_it_ms"] = clock_load.summary(delays) if delays and mapped else None
                stats["versions_heard"] = sum(1 for v in night.sent if v in per_version)
                stats["versions_made"] = len(night.sent)
                results["phones_stats"] = stats
                phones = None
            if opts.push:
                time.sleep(2)  # the last messages (the settles' results) reach the push service
                results["push_messages_received"] = len(push_service.received)
                push_service.close()
            server.stop()
            if opts.profile or opts.server_times:
                results["profile"] = profile_summary(out_dir, opts.profile_top)
            results["loadavg_after"] = os.getloadavg()[0]
            results["loadavg_1_5_15_after"] = os.getloadavg()
    finally:
        if phones is not None:
            phones.kill()
        if server is not None:
            server.kill()
        if opts.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    results["full_from"] = (3 * opts.players) // 4
    results["figures"] = figures(results["samples"], results["full_from"])
    posts = [s["ms"] for s in results["samples"] if not s["kind"].endswith("(GET)")
             and s["kind"] != "phone check-in (player)"]
    results["host_posts"] = {"n": len(posts), "median_ms": statistics.median(posts), "p95_ms": percentile(posts, 95),
                             "max_ms": max(posts)}
    return results


def report(r: dict) -> str:
    """The figures as Markdown."""
    lines = [f"ShuffleUp night load: {r['players']} players (+{r['late']} late), {r['phones']} phones on the clock "
             f"stream, {r['workers']} gevent worker(s), SQLite; nproc {r['nproc']}, Python {r['python']}; "
             f"{r['seconds']} s; whole machine {r['machine_busy_pct']:.0f} % busy meanwhile, of which others "
             f"{r['others_busy_pct']:.0f} % (server CPU {r['server_cpu_s']} s, this script and its phones "
             f"{r['bench_cpu_s']} s; load average {r['loadavg_before']:.2f} before, "
             f"{r.get('loadavg_after', float('nan')):.2f} after); {r['started']}, commit "
             f"{r['tree'].get('head', '?')}" + (f" + changes to {', '.join(r['tree']['changed'])}"
                                               if r["tree"].get("changed") else "") + ("; PROFILED (cProfile on: times inflated)" if r["profiled"] else ""),
             "",
             f"| action | n | players in | median ms | p95 ms | max ms | p95 ms with ≥ {r['full_from']} in (n) "
             "| wire bytes | HTML bytes | p95 ≤ 100 ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for kind in sorted(r["figures"], key=order_key):
        f = r["figures"][kind]
        lo, hi = f["players_in"]
        verdict = "" if kind.endswith("(GET)") or kind.startswith("phone") else (
            "✓" if f["p95_ms"] <= TARGET_P95_MS else "✗")
        full = f"{f['p95_full_ms']:.1f} ({f['n_full']})" if f["p95_full_ms"] is not None else f"– ({f['n_full']})"
        lines.append(f"| {kind} | {f['n']} | {lo}–{hi} | {f['median_ms']:.1f} | {f['p95_ms']:.1f} | {f['max_ms']:.1f} | "
                     f"{full} | {f['wire_bytes']:,.0f} | {f['html_bytes']:,.0f} | {verdict} |")
    h = r["host_posts"]
    lines += ["", f"all host actions (POST): {h['n']}, median {h['median_ms']:.1f} ms, p95 {h['p95_ms']:.1f} ms, "
                  f"max {h['max_ms']:.1f} ms (target p95 ≤ {TARGET_P95_MS}: "
                  f"{'OK' if h['p95_ms'] <= TARGET_P95_MS else 'MISSED'})"]
    if r["failures"]:
        lines.append(f"FAILED: {len(r['failures'])}: " + "; ".join(f"{f['kind']}: {f['problem']}"
                                                                   for f in r["failures"][:5]))
    v = r["clock_version"]
    lines.append(f"clock version {v['first']} → {v['api']} (expected {v['expected']}); final roster "
                 f"{r['roster_final']['html_bytes']:,} B with {r['roster_final']['out']} out")
    if r.get("phones_stats"):
        p = r["phones_stats"]
        a = p["all_phones_had_it_ms"]
        lines.append(f"phones: {p['phones']} streams, {p['lost_streams']} lost; messages per phone "
                     f"{p['messages_per_phone']['min']}–{p['messages_per_phone']['max']}; {p['versions_heard']} of the "
                     f"{p['versions_made']} changes' versions heard by some phone" + (
                         f"; all phones had each action's version {a['median']:.1f} ms (median), "
                         f"{a['p95']:.1f} ms (p95) after the host sent it" if a else ""))
    if r.get("profile"):
        lines += [""] + server_table(r)
    return "\n".join(lines)


SETTLE_TARGET_MS = 50


def target_of(kind: str) -> int | None:
    """The issue's targets for a kind of request: settling ≤ 50 ms, every other host action p95 ≤ 100 ms;
    none for the GETs (what a screen reads) and a player's own phone."""
    if kind.endswith("(GET)") or kind.startswith("phone"):
        return None
    return SETTLE_TARGET_MS if kind == "settle" else TARGET_P95_MS


def server_table(r: dict) -> list[str]:
    """The server time per kind of request (inside the worker, from the request reaching the app to its
    last byte, as Markdown): n, median, p95, p99, max, CPU and SQL; settling's figure is the median of
    its n settles (its target is on the median), every other host action's the p95."""
    la0, la1 = r.get("loadavg_1_5_15_before"), r.get("loadavg_1_5_15_after")
    load = (f"load average (1/5/15 min) {la0[0]:.2f} / {la0[1]:.2f} / {la0[2]:.2f} before, "
            f"{la1[0]:.2f} / {la1[1]:.2f} / {la1[2]:.2f} after" if la0 and la1 else "")
    least = r.get("min_samples", 20)
    lines = [("Server time, PROFILED (cProfile on: inflated)" if r["profiled"] else "Server time") +
             f" per action, inside the worker (ms); {load}; fewer than {least} samples marked *",
             "", "| action | n | median | p95 | p99 | max | CPU median | SQL median (n / ms) | target | met |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for kind, p in sorted(r["profile"].items(), key=lambda kv: order_key(kv[0])):
        target = target_of(kind)
        if target is None:
            goal, met = "–", ""
        elif kind == "settle":
            goal, met = f"median ≤ {target}", "✓" if p["server_ms_median"] <= target else "✗"
        else:
            goal, met = f"p95 ≤ {target}", "✓" if p["server_ms_p95"] <= target else "✗"
        few = "*" if p["n"] < least else ""
        lines.append(f"| {kind} | {p['n']}{few} | {p['server_ms_median']:.1f} | {p['server_ms_p95']:.1f} | "
                     f"{p['server_ms_p99']:.1f} | {p['server_ms_max']:.1f} | {p['cpu_ms_median']:.1f} | "
                     f"{p['queries_median']:.0f} / {p['query_ms_median']:.1f} | {goal} | {met} |")
    if "settle" in r["profile"]:
        p = r["profile"]["settle"]
        lines += ["", f"settle: median {p['server_ms_median']:.1f} ms of {p['n']} settles (server time; target "
                      f"≤ {SETTLE_TARGET_MS} ms: {'OK' if p['server_ms_median'] <= SETTLE_TARGET_MS else 'MISSED'})"]
    return lines


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--players", type=int, default=200, help="players in before the draw (default 200)")
    parser.add_argument("--late", type=int, default=15, help="late entrants after the draw (default 15)")
    parser.add_argument("--phones", type=int, default=500, help="phones on the clock's SSE stream (default 500; 0: none)")
    parser.add_argument("--phone-checkins", type=int, default=60,
                        help="players who check in by their own phone, then confirmed by the host (default 60)")
    parser.add_argument("--bonus-every", type=int, default=4, help="every k-th arrival claims a bonus (default 4)")
    parser.add_argument("--draws", type=int, default=20, help="seat draws, undone between (default 20)")
    parser.add_argument("--finals", type=int, default=20, help="final-table draws, undone between (default 20)")
    parser.add_argument("--settles", type=int, default=20, help="settles, undone between (default 20: the settle "
                                                                "time is their median)")
    parser.add_argument("--everyone", type=int, default=20,
                        help="food/drink for everyone at the start of play, undone between (default 20)")
    parser.add_argument("--penalties", type=int, default=20,
                        help="missed-hand/missed-round penalties given and ended early (default 20 of each)")
    parser.add_argument("--reentries", type=int, default=20, help="re-entries of busted players (default 20)")
    parser.add_argument("--votes", type=int, default=20,
                        help="deal votes on the host's passed phone at the final table (default 20, rounded up "
                             "to whole ballots)")
    parser.add_argument("--rebuys", type=int, default=20, help="rebuys in the Monthly Final (default 20)")
    parser.add_argument("--min-samples", type=int, default=20,
                        help="the report marks an action with fewer samples than this (default 20: enough for a p95)")
    parser.add_argument("--final-checkins", type=int, default=40,
                        help="players checked in to last month's Monthly Final afterwards, ticket holders and "
                             "others (refused, then the host's override) in turn (default 40; 0: none)")
    parser.add_argument("--undo-every", type=int, default=5, help="every k-th bust-phase action is an undo (default 5)")
    parser.add_argument("--dq-every", type=int, default=13, help="every k-th bust-phase action is a DQ (default 13; "
                                                                 "an undo takes precedence, so keep it prime to --undo-every)")
    parser.add_argument("--hand-every", type=int, default=4,
                        help="every k-th bust-phase action is several out in one hand (default 4)")
    parser.add_argument("--refresh-every", type=int, default=0,
                        help="also a roster GET after every k-th host action (default 0: only after a phone's "
                             "check-in, as the stream makes the host's page refetch)")
    parser.add_argument("--max-seats", type=int, default=10, help="seats per table (default 10)")
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between the host's taps (default 0.1)")
    parser.add_argument("--seed", type=int, default=4, help="this script's choices (who busts…; default 4)")
    parser.add_argument("--seat-seed", type=int, help="fix the server's seat draws (SEAT_RNG_SEED; default: "
                                                      "the system's randomness, as in production)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers (default 1: README's command)")
    parser.add_argument("--port", type=int, help="loopback port (default: a free one)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for any one request or phase step")
    parser.add_argument("--profile", metavar="DIR", help="cProfile each request in the worker and count its SQL; "
                                                         "writes DIR/<kind>.prof and DIR/server.json")
    parser.add_argument("--no-server-times", dest="server_times", action="store_false",
                        help="do not time each request inside the worker (wall, CPU, SQL; on by default: the "
                             "report's server-time table)")
    parser.add_argument("--profile-top", type=int, default=0, help="with --profile, print the top N functions "
                                                                   "by cumulative time per kind")
    parser.add_argument("--json", metavar="FILE", help="also write the figures (every sample) as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (database, gunicorn.log)")
    parser.add_argument("--push", action="store_true", help="every player's phone subscribed to Web Push (a push "
                        "service on loopback): the host's actions timed while the server sends")
    opts = parser.parse_args(argv)
    if opts.players < 2 or opts.late < 0 or opts.phones < 0 or opts.max_seats < 2:
        parser.error("players ≥ 2, late ≥ 0, phones ≥ 0, max seats ≥ 2")
    if min(opts.draws, opts.finals, opts.settles) < 1:
        parser.error("draws, finals and settles ≥ 1")
    if opts.undo_every in (1, 2):
        parser.error("--undo-every 0 (never) or ≥ 3: an undo every other action would undo every bust-out")
    return opts


def main(argv=None) -> int:
    opts = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `kill`: still stop the server and the phones
    results = run(opts)
    print(report(results))
    if opts.profile_top and results.get("profile"):
        for kind, p in sorted(results["profile"].items(), key=lambda kv: order_key(kv[0])):
            if p.get("top"):
                print(f"\n=== {kind}: {p['n']} requests ===\n{p['top']}")
    if opts.json:
        for p in (results.get("profile") or {}).values():
            p.pop("top", None)
        Path(opts.json).write_text(json.dumps(results, indent=2, default=str))
    return 1 if results["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
