"""Faults on real processes (docs/reliability.md "Faults"): a worker killed mid-burst, Redis and
PostgreSQL restarted mid-night, a phone offline for ten minutes. Nothing acknowledged is lost,
requests during an outage are refused cleanly (503, never 500), and the app recovers by itself.

The shared PostgreSQL (5432) and Redis (6379) are never stopped (other runs use them): each test
that stops a service starts its own, a redis-server on a free port or a PostgreSQL cluster made
with initdb in a temporary folder, and removes it afterwards, pass or fail. Each test appends
what it measured to test-artifacts/faults.jsonl (docs/reliability.md reads the medians from it).
"""
from __future__ import annotations

import datetime as dt
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psycopg
import pytest
import redis
from flask_migrate import upgrade

from app import create_app
from league import clock, structures
from tests.fixtures import tonight as seed
from tests.fixtures.host import host_op
from tests.services.test_multiprocess import PG, ROOT, free_port, pg_url  # noqa: F401  (a fixture)
from wiring.extensions import db

pytestmark = pytest.mark.services
PG_BIN = Path("/usr/lib/postgresql/15/bin")
FIGURES = Path(ROOT) / "test-artifacts" / "faults.jsonl"
WAIT_S = 60  # the longest any step may take before the test fails (a deadline, not a measurement)


def record(test: str, **figures) -> None:
    """Append this run's figures for docs/reliability.md."""
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    with FIGURES.open("a") as out:
        out.write(json.dumps({"test": test, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                              **figures}) + "\n")


# --- the services: private ones that a test may stop ---------------------------------------------

class PrivateRedis:
    """A redis-server of this test's own on a free port, nothing saved to disk."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: redis.Redis(port=self.port, socket_timeout=1).ping(), "redis-server to start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    server.start()
    yield server
    server.stop()


class PrivatePostgres:
    """A PostgreSQL cluster of this test's own (initdb in a temporary folder, run as the postgres
    user, on a free port, trust authentication on loopback), which the test may stop and start."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="shuffleup-pg-"))
        shutil.chown(self.folder, "postgres", "postgres")
        self.data = self.folder / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/shuffleup"
        self._as_postgres(PG_BIN / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--no-sync",
                          "-E", "UTF8")

    def _as_postgres(self, *command) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *map(str, command)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.folder)

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off"
        self._as_postgres(PG_BIN / "pg_ctl", "-D", self.data, "-o", options, "-l", self.folder / "log", "-w",
                          "start")

    def stop(self) -> None:
        """A fast shutdown: every connection is cut, as in a restart by the host's provider."""
        self._as_postgres(PG_BIN / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m",
                        "immediate", "-w", "stop"], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def private_pg():
    server = PrivatePostgres()
    try:
        server.start()
        with psycopg.connect(server.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
            admin.execute("CREATE DATABASE shuffleup")
        yield server
    finally:
        server.remove()


def wait_for(check, what: str, deadline_s: float = WAIT_S):
    """Call `check` until it returns something true without raising; fail after the deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            found = check()
            if found:
                return found
        except Exception:  # noqa: BLE001, S110  (not yet)
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# --- the app: gunicorn processes as in production ------------------------------------------------

def seed_night(url: str, league: str = "Faults", username: str = "host") -> int:
    """The schema by the real migrations (once) and tonight's event of a new league, hosted by
    `username` (password pw-host); its id."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade()
        event_id = seed.tonight(league, "Rose", username=username).id
        db.session.remove()
        db.engine.dispose()
    return event_id


class Server:
    """One gunicorn master with its gevent worker, serving the app on a free port."""

    def __init__(self, database_url: str, redis_url: str | None = None, **settings) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update({"DATABASE_URL": database_url, "SHUFFLEUP_SECRET_KEY": "shared-secret",
                    "SHUFFLEUP_REQUEST_LOG": "false"})
        if redis_url:
            env["REDIS_URL"] = redis_url
        env.update({f"SHUFFLEUP_{name}": str(value) for name, value in settings.items()})
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (closed by stop)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "--graceful-timeout", "3",
             "-b", f"127.0.0.1:{self.port}", "app:create_app()"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=self.log)
        self.wait_ready()

    def wait_ready(self) -> None:
        def ready():
            if self.process.poll() is not None:
                self.log.seek(0)
                raise RuntimeError("the app did not start: " + self.log.read().decode()[-2000:])
            return urllib.request.urlopen(self.base + "/api/time", timeout=2).status == 200
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                if ready():
                    return
            except RuntimeError:
                raise
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("timed out waiting for the app to start")
            time.sleep(0.1)

    def worker_pids(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in children]

    def errors_logged(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def first_error(self) -> str:
        """The first 500's traceback in the app's log, for a failing test to show."""
        logged = self.errors_logged()
        return logged[logged.find("Exception on"):][:4000]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # quick shutdown: open streams need not finish
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.close()


@pytest.fixture
def servers():
    """Start Server(...)s through this; every one is stopped afterwards, pass or fail."""
    started: list[Server] = []

    def start(*args, **kwargs) -> Server:
        server = Server(*args, **kwargs)
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


class Browser:
    """One phone's browser: its own cookies, the CSRF token its pages give it."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.token = ""

    def request(self, path: str, data: dict | None = None, htmx: bool = False, timeout: float = 10):
        """(status, body); status None when the connection failed (the worker died under it)."""
        headers = {"HX-Request": "true"} if htmx else {}
        body = None
        if data is not None:
            body = urllib.parse.urlencode({"csrf_token": self.token, **data}).encode()
        try:
            with self.opener.open(urllib.request.Request(self.base + path, data=body, headers=headers),
                                  timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode()
        except (OSError, http.client.HTTPException):
            return None, ""

    def login(self, username: str = "host", password: str = "pw-host") -> int | None:
        status, page = self.request("/login")
        if status != 200:
            return status
        self.token = TOKEN.search(page).group(1)
        status, page = self.request("/login", {"username": username, "password": password})
        if status == 200 and (found := TOKEN.search(page)):
            self.token = found.group(1)
        return status

    def logged_in(self, username: str = "host") -> bool:
        """Whether the login landed on the logged-in pages (not back on the form)."""
        status, page = self.request("/host/")
        return status == 200 and "Log out" in page

    def version(self, event_id: int) -> int:
        status, body = self.request(f"/api/events/{event_id}/clock")
        assert status == 200, (status, body)
        return json.loads(body)["version"]

    def tap(self, event_id: int, action: str, version: int | None = None):
        """A tap on the clock's controls with the version the screen shows."""
        seen = self.version(event_id) if version is None else version
        return self.request(f"/host/events/{event_id}/clock", {"action": action, "version": str(seen)}, htmx=True)

    def join(self, event_id: int, name: str):
        return self.request(f"/host/events/{event_id}/players", {"op": "join", "name": name, "adult": "yes"},
                            htmx=True)


class Stream:
    """A phone's open clock stream (server-sent events)."""

    def __init__(self, port: int, event_id: int, last_event_id: int | None = None) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
        self.connection.request("GET", f"/events/{event_id}/stream", headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def next_message(self, deadline_s: float = WAIT_S) -> tuple[int, str] | None:
        """(version, data) of the next message, or None by the deadline."""
        deadline = time.monotonic() + deadline_s
        version, data = None, []
        self.connection.sock.settimeout(max(0.05, deadline_s))
        while time.monotonic() < deadline:
            try:
                line = self.response.fp.readline().decode()
            except TimeoutError:
                return None
            if not line:
                return None
            if line.startswith("id: "):
                version = int(line[4:])
            elif line.startswith("data: "):
                data.append(line[6:].rstrip("\n"))
            elif line == "\n" and version is not None:
                return version, "\n".join(data)
        return None

    def wait_version(self, at_least: int, deadline_s: float = WAIT_S) -> int | None:
        """The first version ≥ `at_least` this phone hears, or None by the deadline."""
        deadline = time.monotonic() + deadline_s
        while (left := deadline - time.monotonic()) > 0:
            message = self.next_message(left)
            if message is None:
                return None
            if message[0] >= at_least:
                return message[0]
        return None

    def heartbeats(self, count: int, deadline_s: float = WAIT_S) -> bool:
        """Whether `count` heartbeats arrive (each one after the stream's catch-up read) by the deadline."""
        deadline = time.monotonic() + deadline_s
        while count and time.monotonic() < deadline:
            line = self.response.fp.readline().decode()
            if not line:
                return False
            count -= line.startswith(": heartbeat")
        return count == 0

    def close(self) -> None:
        self.connection.close()


def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'league.db'}"


# --- the faults ----------------------------------------------------------------------------------

class Database:
    """Plain SQL on the league's database, whichever kind, from outside the app."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine

        from wiring.config import database_url
        self.engine = create_engine(database_url(url))

    def rows(self, sql: str, **params) -> list[tuple]:
        from sqlalchemy import text
        with self.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql), params)]

    def one(self, sql: str, **params) -> tuple:
        (row,) = self.rows(sql, **params)
        return row

    def close(self) -> None:
        self.engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def night_database(request, tmp_path):
    """The league's database for the burst: an SQLite file (WAL, a laptop's set-up) or a fresh
    PostgreSQL database on the shared server (a hosted league's)."""
    if request.param == "sqlite":
        return sqlite_url(tmp_path)
    return request.getfixturevalue("pg_url")


def test_kill_9_of_a_worker_mid_burst_loses_no_acknowledged_action(night_database, servers):
    """Four phones of one night's host check in new players as fast as the app answers, while the
    host of a second night taps +1 min / -1 min on its paused clock; the worker is killed with
    SIGKILL in the middle, gunicorn starts a new one and the phones carry on. Every join the app
    acknowledged is in the database, none twice; the clock holds exactly the taps that were
    committed: every acknowledged one, and the one in flight at the kill if (and only if) the
    clock's version says it was. (Two nights, so that the joins never make a clock tap stale.)"""
    url = night_database
    event_id = seed_night(url)
    clock_id = seed_night(url, league="Clock Night", username="host2")
    server = servers(url)
    clock_host = Browser(server.base)
    assert clock_host.login("host2") == 200
    assert clock_host.tap(clock_id, "start")[0] == 200
    assert clock_host.tap(clock_id, "pause")[0] == 200
    database = Database(url)
    elapsed_before, index_before, version_before = database.one(
        "SELECT clock_item_elapsed_ms, clock_index, clock_version FROM events WHERE id = :id", id=clock_id)

    acknowledged, attempted = set(), set()
    taps = {"acknowledged": 0, "unanswered": 0, "committed_unanswered": 0, "minutes": 0}
    killed, stop, lock = threading.Event(), threading.Event(), threading.Lock()
    after_kill = {"joins": 0, "taps": 0}

    def checker(n: int) -> None:
        phone = Browser(server.base)
        phone.login()
        i = 0
        while not stop.is_set():
            name = f"Player {n}-{i:03d}"
            i += 1
            with lock:
                attempted.add(name)
            status, body = phone.join(event_id, name)
            if status == 200 and f"New member {name}" in body:
                with lock:
                    acknowledged.add(name)
                    after_kill["joins"] += killed.is_set()
            elif status not in (None, 503):  # a dead worker, or the database busy past its timeout
                raise AssertionError(f"a join answered {status}")

    def clock_hand() -> None:
        version, n = version_before, 0
        while not stop.is_set():
            action, minutes = ("plus", 1) if n % 2 == 0 else ("minus", -1)
            n += 1
            status, _ = clock_host.tap(clock_id, action, version)
            if status == 200:
                taps["acknowledged"] += 1
                taps["minutes"] += minutes
                after_kill["taps"] += killed.is_set()
                version += 1
                continue
            # no answer (the worker died under it) or refused: the clock's version tells whether it was done
            taps["unanswered"] += status is None
            now = wait_for(lambda: clock_host.version(clock_id) + 1, "the clock to answer") - 1
            if now == version + 1:
                taps["committed_unanswered"] += 1
                taps["minutes"] += minutes
            assert now in (version, version + 1), "nobody else taps this clock"
            version = now

    failures: list[BaseException] = []

    def failing_loudly(target, *args):
        def run():
            try:
                target(*args)
            except BaseException as failure:  # a thread's failure fails the test, after the clean-up
                failures.append(failure)
                stop.set()
        return threading.Thread(target=run)

    threads = [failing_loudly(checker, n) for n in range(4)] + [failing_loudly(clock_hand)]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: len(acknowledged) >= 30 and taps["acknowledged"] >= 10, "the burst to get going")
        (worker,) = server.worker_pids()
        os.kill(worker, signal.SIGKILL)
        killed.set()
        acknowledged_at_kill = len(acknowledged)
        wait_for(lambda: server.worker_pids() and server.worker_pids() != [worker], "gunicorn's new worker")
        wait_for(lambda: after_kill["joins"] >= 20 and after_kill["taps"] >= 10,
                 "the phones to carry on with the new worker")
    finally:
        stop.set()
        for thread in threads:
            thread.join(WAIT_S)
    assert not failures, failures

    present = [name for (name,) in database.rows(
        "SELECT m.name FROM entries e JOIN members m ON m.id = e.member_id WHERE e.event_id = :id", id=event_id)]
    elapsed_after, index_after, version_after, running = database.one(
        "SELECT clock_item_elapsed_ms, clock_index, clock_version, clock_running_since_ms FROM events WHERE id = :id",
        id=clock_id)
    (journalled,) = database.one("SELECT count(*) FROM actions WHERE event_id = :id AND kind = 'join'", id=event_id)
    database.close()
    lost = acknowledged - set(present)
    assert not lost, f"acknowledged joins lost: {sorted(lost)}"
    assert len(present) == len(set(present)) and set(present) <= attempted
    assert journalled == len(present)  # each one an undoable host action
    # the clock: exactly the committed taps, to the millisecond, still paused at the same level
    assert version_after - version_before == taps["acknowledged"] + taps["committed_unanswered"]
    assert elapsed_before - elapsed_after == 60_000 * taps["minutes"]
    assert index_after == index_before and running is None
    # and the new worker serves both nights as stored
    phone = Browser(server.base)
    assert json.loads(phone.request(f"/api/events/{event_id}/clock")[1])["players_left"] == len(present)
    assert json.loads(phone.request(f"/api/events/{clock_id}/clock")[1])["state"]["item_elapsed_ms"] == elapsed_after
    record(f"kill_9_mid_burst_{url.split(':')[0]}", joins_acknowledged=len(acknowledged), joins_acknowledged_before_kill=acknowledged_at_kill,
           joins_in_database=len(present), joins_lost=len(lost), clock_taps_acknowledged=taps["acknowledged"],
           clock_taps_unanswered=taps["unanswered"], clock_taps_committed_unanswered=taps["committed_unanswered"],
           clock_taps_lost=0)


def channels(server: PrivateRedis) -> list[bytes]:
    return redis.Redis(port=server.port, socket_timeout=1).pubsub_channels("shuffleup:events:*")


def test_redis_stopped_and_restarted_with_two_workers(pg_url, private_redis, servers):  # noqa: F811
    """Two app processes share a private Redis. With Redis stopped, the host's taps and logins on
    either process keep working and a phone on the other process still hears every change (at its
    heartbeat); with Redis back, both reconnect by themselves and changes travel at once again."""
    event_id = seed_night(pg_url)
    a = servers(pg_url, private_redis.url, HEARTBEAT_S=2)
    b = servers(pg_url, private_redis.url, HEARTBEAT_S=2)
    phone = Stream(b.port, event_id)
    try:
        assert phone.next_message()[0] == 0
        host = Browser(a.base)
        assert host.login() == 200 and host.logged_in()
        assert host.tap(event_id, "start")[0] == 200
        assert phone.wait_version(1) == 1
        wait_for(lambda: channels(private_redis), "B's subscriber")

        private_redis.stop()
        assert host.tap(event_id, "pause")[0] == 200  # the host's taps go on
        changed, version = time.monotonic(), host.version(event_id)
        assert phone.wait_version(version) == version  # B's phone falls back to its heartbeat's re-read
        fallback_s = time.monotonic() - changed
        assert host.join(event_id, "Redis Down")[0] == 200
        for server in (a, b):  # and logins (the limiter counts in memory meanwhile)
            someone = Browser(server.base)
            assert someone.login() == 200 and someone.logged_in()
        health = Browser(a.base).request("/healthz")
        assert health[0] == 503 and json.loads(health[1]) == {"database": "ok", "redis": "down", "disk": "ok"}
        version = host.version(event_id)
        assert phone.wait_version(version) == version

        private_redis.start()
        restarted = time.monotonic()
        wait_for(lambda: channels(private_redis), "B's subscriber to come back")
        # then a change made through A reaches B's phone through Redis again
        while True:
            assert host.tap(event_id, "plus")[0] == 200
            version = host.version(event_id)
            if phone.wait_version(version, 0.5) == version:
                recovered_s = time.monotonic() - restarted
                break
            assert time.monotonic() - restarted < WAIT_S, "changes never travelled through Redis again"
        assert Browser(b.base).login() == 200
        assert json.loads(Browser(a.base).request("/healthz")[1]) == {"database": "ok", "redis": "ok", "disk": "ok"}
        for server in (a, b):
            assert "Exception on" not in server.errors_logged()  # Flask's line for a 500
    finally:
        phone.close()
    record("redis_restart", recovered_s=round(recovered_s, 2), fallback_s=round(fallback_s, 2), heartbeat_s=2)


def test_postgresql_restarted_mid_night(private_pg, servers):
    """The league's PostgreSQL is stopped mid-night (a fast shutdown cuts every connection) and
    started again. Meanwhile every request is refused with 503 and a reason (no 500) and nothing is
    written; once it is back the same app process serves again, no restart, nothing lost."""
    event_id = seed_night(private_pg.url)
    server = servers(private_pg.url, HEARTBEAT_S=1)  # the stream re-reads the clock every second
    (worker,) = server.worker_pids()
    host = Browser(server.base)
    assert host.login() == 200
    assert host.tap(event_id, "start")[0] == 200
    for name in ("Before One", "Before Two", "Before Three"):
        assert host.join(event_id, name)[0] == 200
    phone = Browser(server.base)
    screen = Stream(server.port, event_id)  # a TV's clock stream, open through the outage
    assert screen.next_message() is not None

    private_pg.stop()
    outage = {
        "host page": host.request(f"/host/events/{event_id}"),
        "join": host.join(event_id, "During Outage"),
        "clock tap": host.request(f"/host/events/{event_id}/clock", {"action": "pause", "version": "0"}, htmx=True),
        "clock json": phone.request(f"/api/events/{event_id}/clock"),
        "public page": phone.request("/leagues/faults"),
        "login": (Browser(server.base).login(), ""),  # the form itself needs no database; logging in does
        "health": phone.request("/healthz"),
    }
    assert {what: status for what, (status, _) in outage.items()} == dict.fromkeys(outage, 503), \
        server.first_error()
    assert "not answering" in outage["host page"][1] and "Nothing was changed" in outage["join"][1]
    assert json.loads(outage["health"][1]) == {"database": "down", "redis": "not configured", "disk": "ok"}
    assert screen.heartbeats(3)  # the TV's stream stays open, its re-reads failing quietly meanwhile

    private_pg.start()
    restarted = time.monotonic()
    wait_for(lambda: host.request(f"/host/events/{event_id}")[0] == 200, "the app to serve again")
    recovered_s = time.monotonic() - restarted
    assert host.join(event_id, "After Restart")[0] == 200
    assert server.worker_pids() == [worker]  # the same process: no restart
    try:  # the TV's stream lived through it and shows the join made after
        assert screen.wait_version(host.version(event_id)) == host.version(event_id)
    finally:
        screen.close()

    with psycopg.connect(private_pg.url) as check:
        names = {name for (name,) in check.execute(
            "SELECT m.name FROM entries e JOIN members m ON m.id = e.member_id WHERE e.event_id = %s", (event_id,))}
        running = check.execute("SELECT clock_running_since_ms FROM events WHERE id = %s", (event_id,)).fetchone()[0]
    assert names == {"Before One", "Before Two", "Before Three", "After Restart"}
    assert running is not None  # the pause refused during the outage was not applied
    assert "Exception on" not in server.errors_logged()  # Flask's line for a 500
    record("postgresql_restart", recovered_s=round(recovered_s, 2))


def clock_of(message: str) -> dict:
    """The clock a stream message carries (its one line of JSON: what the phone ticks from)."""
    return json.loads(message)


def test_a_phone_offline_for_ten_minutes_comes_back_to_the_right_state(tmp_path, servers):
    """A phone's stream drops (the phone in a pocket, no signal) while the night goes on for ten
    minutes: the clock runs on, the host checks two players in and moves to the next level. The ten
    minutes are made by moving the clock's start ten minutes back in the database, not by waiting.
    Reconnecting with the last version it had, the phone's first message is tonight as it is now:
    the current version, the stored clock state exactly, the level that ten minutes later means."""
    url = sqlite_url(tmp_path)
    event_id = seed_night(url)
    server = servers(url)
    host = Browser(server.base)
    assert host.login() == 200
    assert host.tap(event_id, "start")[0] == 200
    phone = Stream(server.port, event_id)
    version, message = phone.next_message()
    before = clock_of(message)
    assert before["state"]["running_since_ms"] is not None and before["state"]["index"] == 0
    phone.close()  # offline

    database = sqlite3.connect(tmp_path / "league.db", isolation_level=None)
    database.execute("UPDATE events SET clock_running_since_ms = clock_running_since_ms - 600000 WHERE id = ?",
                     (event_id,))
    for name in ("Late One", "Late Two"):
        assert host.join(event_id, name)[0] == 200
    assert host.tap(event_id, "next")[0] == 200

    phone = Stream(server.port, event_id, last_event_id=version)
    try:
        back_version, back_message = phone.next_message()
    finally:
        phone.close()
    stored = database.execute(
        "SELECT clock_version, clock_index, clock_item_elapsed_ms, clock_running_since_ms, clock_started, structure "
        "FROM events WHERE id = ?", (event_id,)).fetchone()
    database.close()
    now = clock_of(back_message)
    assert back_version == now["version"] == stored[0] > version
    assert now["state"] == {"index": stored[1], "item_elapsed_ms": stored[2], "running_since_ms": stored[3],
                            "started": bool(stored[4])}
    assert now["players_left"] == before["players_left"] + 2
    # what the phone shows from it: the level after the ten minutes and the host's "next"
    with urllib.request.urlopen(f"{server.base}/api/events/{event_id}/clock", timeout=WAIT_S) as answer:
        whole = json.load(answer)  # the structure the phone holds: the tap's message names it by digest
    assert whole["structure_digest"] == now["structure_digest"]
    structure = structures.from_json(whole["structure"], submitted=False)
    state = clock.ClockState(stored[1], stored[2], stored[3], bool(stored[4]), stored[0])
    # the host's "next" came ten minutes (and a few seconds) after the start: one item on from there
    offline = before["state"]
    at_next = clock.view(structure, clock.ClockState(offline["index"], offline["item_elapsed_ms"],
                                                     offline["running_since_ms"] - 600_000, True, version), stored[3])
    shown = clock.view(structure, state, now["server_time_ms"])
    assert shown.index == at_next.index + 1 and shown.running
    # what the server derives (the whole clock, read just after): the same item, the same level
    assert (whole["index"], whole["level"]) == (shown.index, shown.level_number)
    record("phone_offline_ten_minutes", level_before=clock.view(structure, clock.ClockState(
        offline["index"], offline["item_elapsed_ms"], offline["running_since_ms"], True, version),
        before["server_time_ms"]).level_number, level_after=shown.level_number, versions_missed=back_version - version)


# --- backup and restore on PostgreSQL (the SQLite side is in tests/web/test_backup.py) ----------

def snapshot(url: str) -> dict[str, list[tuple]]:
    """Every table's rows, in order: two databases with the same snapshot hold the same league."""
    with psycopg.connect(url) as connection:
        tables = [name for (name,) in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        return {table: connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()  # noqa: S608
                for table in tables}


def cli(url: str, *args: str):
    """`flask league …` on an app over `url`."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["league", *args])
        db.session.remove()
        db.engine.dispose()
    return result


@pytest.fixture
def second_pg_url():
    """Another fresh (empty: no tables) database on the shared server, dropped afterwards."""
    name = "shuffleup_test_restore_" + os.urandom(5).hex()
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield PG.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_backup_of_a_live_night_and_restore_on_postgresql(pg_url, second_pg_url, tmp_path):  # noqa: F811
    """pg_dump of a night while a host action's transaction is open holds the committed night
    exactly; restored into an empty database it is the same night; a restore onto a league is
    refused without --replace and puts the backup back with it."""
    from tests.conftest import login
    event_id = seed_night(pg_url)
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": pg_url})
    with app.app_context():
        client = app.test_client()
        login(client, "host", "pw-host")
        night = types.SimpleNamespace(id=event_id)
        for name in ("Ann Lee", "Bo Chan", "Cy Park"):
            assert host_op(client, night, "join", name=name, adult="yes").status_code == 200
        db.session.remove()
        db.engine.dispose()

    writer = psycopg.connect(pg_url)  # a host action being written at the moment of the backup
    writer.execute("UPDATE events SET clock_version = clock_version + 1")
    committed = snapshot(pg_url)
    backup = tmp_path / "night.dump"
    try:
        result = cli(pg_url, "backup", str(backup))
    finally:
        writer.commit()
        writer.close()
    assert result.exit_code == 0, result.output
    assert "Backed up the postgresql database" in result.output

    result = cli(second_pg_url, "restore", str(backup))
    assert result.exit_code == 0, result.output
    assert snapshot(second_pg_url) == committed
    assert committed["members"] and committed["entries"]

    refused = cli(pg_url, "restore", str(backup))
    assert refused.exit_code != 0 and "add --replace" in refused.output
    assert snapshot(pg_url) != committed  # the write after the backup is still there: nothing restored
    replaced = cli(pg_url, "restore", str(backup), "--replace")
    assert replaced.exit_code == 0, replaced.output
    assert snapshot(pg_url) == committed


def medians(path: Path = FIGURES) -> dict[str, dict[str, float]]:
    """Each test's figures over the runs recorded in test-artifacts/faults.jsonl: the median of each
    number (docs/reliability.md), with the count of runs."""
    import statistics
    runs: dict[str, list[dict]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        runs.setdefault(row.pop("test"), []).append(row)
    return {test: {"runs": len(rows), **{key: statistics.median(row[key] for row in rows) for key in rows[0]
                                         if isinstance(rows[0][key], int | float) and not isinstance(rows[0][key], bool)}}
            for test, rows in runs.items()}


if __name__ == "__main__":  # .venv/bin/python -m tests.services.test_faults
    for test, figures in medians().items():
        print(test, json.dumps(figures))
