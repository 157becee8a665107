#!/usr/bin/env python3
"""Load test of the shared clock (issue "Beat both on every line"): one real gunicorn server
(gevent workers, the production command), N phones holding the clock's server-sent events
stream, and the host's taps.

    python tests/bench/clock_load.py                       # 500 phones, SQLite, 1 worker
    python tests/bench/clock_load.py --redis               # 2 workers, change notices via Redis
    python tests/bench/clock_load.py --pg                  # a fresh PostgreSQL database
    python tests/bench/clock_load.py --pg --redis          # both
    python tests/bench/clock_load.py --help

Phases, each reported:
  1. connect N SSE streams from this one process (asyncio, raw sockets) and wait for each one's
     first message (the clock fragment);
  2. idle: the server's CPU % (utime+stime of the gunicorn master and workers, /proc) over
     --idle seconds with all N connected, and its RSS (VmRSS);
  3. latency: --warmup taps (reported apart), then K host actions (default 200: every kind of
     clock tap in turn, ACTION_CYCLE, each with the right version) through the real form, sent
     over the host's line (one WebSocket, as the night screen sends its taps; --host-line
     keep-alive or fresh: as POSTs); for every action, the time from sending the tap to each
     phone's receipt of the message with that version (`id: <version>`):
     median/p95/p99/max over N×K deliveries, and the time until all N had it;
  3b. heartbeat round: for 21 s after the last tap, so that one of the worker's 20 s heartbeats
     (every stream woken at once) falls inside, GET /api/time every 20 ms: the slowest answer is
     how long a tap or a new phone waits then;
  4. restart: with the clock running, read /api/events/<id>/clock, `kill -9` the server's
     process group, start it again and read the clock: how far the position moved from where
     wall time says it should be (0 = exact);
  5. first load: bytes over the wire (Accept-Encoding: gzip, br) of the player's clock page
     and every asset it references.

--runs N repeats the whole run N times and ends with the median of each headline figure (the
docs quote the median of 3). Traffic goes to 127.0.0.1 only. Every wait is bounded. Not collected by pytest (the name does
not match test_*.py); tests/bench/test_clock_load.py runs `run()` at a tiny scale.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import http.cookiejar
import json
import os
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
import urllib.request
import uuid
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: `import app` for seeding
    sys.path.insert(0, str(ROOT))

PG_ADMIN = os.environ.get("SHUFFLEUP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
HOST_USER, HOST_PASSWORD = "host", "pw-bench-host"
SECRET = "bench-secret"
CLK_TCK = os.sysconf("SC_CLK_TCK")
TARGETS = {"median_ms": 20, "p99_ms": 100, "idle_cpu_pct": 5, "first_load_bytes": 40 * 1024}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine from /proc/stat: other work on it skews the figures."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def machine_busy_pct(before: tuple[int, int], after: tuple[int, int]) -> float:
    return 100 * (after[0] - before[0]) / max(1, after[1] - before[1])


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "median": statistics.median(values), "p95": percentile(values, 95),
            "p99": percentile(values, 99), "max": max(values), "min": min(values)}


# --- the database: fresh, migrated by the real CLI, seeded like the tests ------------------------

@contextlib.contextmanager
def database(kind: str, workdir: Path):
    """A fresh database URL: a SQLite file in `workdir`, or a new PostgreSQL database (dropped after)."""
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'league.db'}"
        return
    import psycopg
    name = "shuffleup_bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def server_env(url: str, redis_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SHUFFLEUP_SECRET_KEY=SECRET, DATABASE_URL=url, PYTHONUNBUFFERED="1")
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def tool(name: str) -> list[str]:
    """The venv's console script beside this Python, else `python -m name`."""
    script = Path(sys.executable).parent / name
    return [str(script)] if script.exists() else [sys.executable, "-m", name]


def migrate(url: str) -> None:
    """`flask --app app db upgrade` on the database, as README says."""
    subprocess.run([*tool("flask"), "--app", "app", "db", "upgrade"], cwd=ROOT, env=server_env(url, None),
                   check=True, capture_output=True, timeout=120)


def seed(url: str) -> int:
    """A league, a venue, a host login and tonight's event (tests/fixtures/tonight.py); returns the event id."""
    from app import create_app
    from tests.fixtures import tonight as tests_seed
    from wiring.extensions import db
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        event_id = tests_seed.tonight("Bench League", "The Rose & Crown", HOST_USER, HOST_PASSWORD).id
        db.session.remove()
        db.engine.dispose()
    return event_id


# --- the server: gunicorn in its own process group ------------------------------------------------

SERVER_CORE = 0  # --pin: the server's core; the client takes the others


def pin(pids: list[int], cpus: set[int]) -> None:
    """Every thread of the processes `pids` onto the cores `cpus` (as `taskset -a -p`)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(int(task.name), cpus)


def pin_client() -> None:
    """This process (the phones, the host) off the server's core: phones are other devices, and on a
    shared core the scheduler runs a woken client in the middle of the server's writes."""
    others = set(range(os.cpu_count() or 1)) - {SERVER_CORE}
    if others:
        os.sched_setaffinity(0, others)


class Server:
    """`gunicorn -k gevent -w W --worker-connections 2000 'app:create_app()'` on 127.0.0.1:port;
    with `cpus`, its processes run on those cores only."""

    def __init__(self, env: dict[str, str], workers: int, port: int, logfile: Path, extra_args=(),
                 cpus: set[int] | None = None) -> None:
        self.env, self.workers, self.port, self.logfile = env, workers, port, logfile
        self.extra_args = list(extra_args)  # e.g. an access log for clock_sync.py
        self.cpus = cpus
        self.proc: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> float:
        """Start and wait until /api/time answers (→ seconds it took)."""
        started = time.monotonic()
        with open(self.logfile, "ab") as out:
            self.proc = subprocess.Popen(
                [*tool("gunicorn"), "-k", "gevent", "-w", str(self.workers), "--worker-connections", "2000",
                 "--graceful-timeout", "3", "-b", f"127.0.0.1:{self.port}", *self.extra_args, "app:create_app()"],
                cwd=ROOT, env=self.env, stdout=out, stderr=out, start_new_session=True)
        deadline = started + timeout
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api/time", timeout=2) as reply:
                    reply.read()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    tail = self.logfile.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"gunicorn did not start on port {self.port}:\n{tail}") from None
                time.sleep(0.1)
        # every worker up (each answers /api/time once it has booted; wait for the count)
        deadline = time.monotonic() + timeout
        while len(self.pids()) < 1 + self.workers and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.cpus:
            pin(self.pids(), self.cpus)
        return time.monotonic() - started

    def pids(self) -> list[int]:
        """The master and its workers."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        pids = [self.proc.pid]
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
            pids += [int(c) for c in children]
        except OSError:
            pass
        return pids

    def cpu_seconds(self) -> float:
        """utime+stime of master and workers, in seconds."""
        total = 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
        return total / CLK_TCK

    def rss_kb(self) -> dict[int, int]:
        """VmRSS per process (kB): master first."""
        out = {}
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        out[pid] = int(line.split()[1])
            except OSError:
                pass
        return out

    def kill(self) -> None:
        """kill -9 the whole process group (master and workers at once)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def stop(self) -> None:
        """Quick shutdown (SIGQUIT: open streams need not finish), then SIGKILL if it lingers."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGQUIT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(15)
        self.kill()


@contextlib.contextmanager
def private_redis(workdir: Path):
    """A throwaway redis-server on a free loopback port (no other process's notices on its channel)."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield "redis://127.0.0.1:6379/0"
        return
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)


# --- the host: the real login form, then the clock form ------------------------------------------

HOST_AGENT = "shuffleup-bench-host"


class Host:
    """The host's browser: cookies, the CSRF token from the controls page."""

    def __init__(self, base: str, event_id: int, username: str = HOST_USER, password: str = HOST_PASSWORD) -> None:
        self.base, self.event_id = base, event_id
        self.username, self.password = username, password
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        # One User-Agent for the login and every tap, as one browser sends: Flask-Login's session
        # protection marks a session whose browser changed not fresh, and (this client keeping no
        # cookie the taps get back) every tap would then rewrite and re-sign the session cookie.
        self.opener.addheaders = [("User-Agent", HOST_AGENT)]
        self.token = ""

    def login(self) -> None:
        page = self.opener.open(self.base + "/login", timeout=10).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.opener.open(self.base + "/login", urllib.parse.urlencode(
            {"username": self.username, "password": self.password, "csrf_token": token}).encode(), timeout=10).read()
        page = self.opener.open(f"{self.base}/host/events/{self.event_id}", timeout=10).read().decode()
        self.token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def form(self, action: str, version: int, keep_alive: bool = False) -> tuple[bytes, bytes]:
        """(request head, body) of one clock action, as htmx sends it; `jump:N` jumps to item N (1-based).
        `keep_alive`: on the connection of the taps before (`HostLine`), as a browser sends it."""
        action, _, index = action.partition(":")
        fields = {"action": action, "version": str(version), "csrf_token": self.token}
        if index:
            fields["index"] = index
        if action == "shot":
            fields["seat"] = "T1 S4"
        body = urllib.parse.urlencode(fields).encode()
        head = (f"POST /host/events/{self.event_id}/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"User-Agent: {HOST_AGENT}\r\nCookie: {self.cookie()}\r\nHX-Request: true\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n").encode()
        return head, body

    def act(self, action: str, version: int) -> int:
        """A synchronous action (setup, not timed) → HTTP status."""
        head, body = self.form(action, version)
        host, port = urllib.parse.urlsplit(self.base).netloc.split(":")
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(head + body)
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        return int(reply.split(b" ", 2)[1])


def clock_json(base: str, event_id: int) -> dict:
    with urllib.request.urlopen(f"{base}/api/events/{event_id}/clock", timeout=10) as reply:
        return json.loads(reply.read())


def position_ms(clock: dict) -> int:
    """How far into the whole structure the clock is (ms): items before + time into this one."""
    durations = [item["minutes"] * 60_000 for item in clock["structure"]]
    index = clock["index"]
    return sum(durations[:index]) + durations[index] - clock["remaining_ms"] + clock["overtime_ms"]


# --- the phones: raw-socket SSE clients in one asyncio loop --------------------------------------

class Phone(asyncio.Protocol):
    """One SSE connection: an HTTP/1.1 GET, chunked decoding, messages split on blank lines.

    Each message's receipt time is taken (perf_counter) as data_received starts, before parsing.
    """

    def __init__(self, bench: Fanout, request: bytes) -> None:
        self.bench, self.request = bench, request
        self.raw = bytearray()
        self.text = bytearray()
        self.head_done = False
        self.chunked = False
        self.first: asyncio.Future = asyncio.get_running_loop().create_future()
        self.connected_at = 0.0
        self.received: dict[int, float] = {}
        self.message_bytes: list[int] = []
        self.heartbeats = 0
        self.closed: asyncio.Future = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.connected_at = time.perf_counter()
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.raw += data
        if not self.head_done:
            end = self.raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.raw[:end]).decode("latin-1")
            del self.raw[:end + 4]
            status = int(head.split(" ", 2)[1])
            if status != 200 and not self.first.done():
                self.first.set_exception(RuntimeError(f"stream answered {status}"))
                return
            self.chunked = "transfer-encoding: chunked" in head.lower()
            self.head_done = True
        if self.chunked:
            while True:
                nl = self.raw.find(b"\r\n")
                if nl < 0:
                    break
                size = int(bytes(self.raw[:nl]).split(b";")[0], 16)
                if len(self.raw) < nl + 2 + size + 2:
                    break
                self.text += self.raw[nl + 2:nl + 2 + size]
                del self.raw[:nl + 2 + size + 2]
        else:
            self.text += self.raw
            self.raw.clear()
        while (end := self.text.find(b"\n\n")) >= 0:
            message = bytes(self.text[:end])
            del self.text[:end + 2]
            self.message(message, now)
        self.bench.busy += time.perf_counter() - now

    def message(self, message: bytes, now: float) -> None:
        if message.startswith(b":"):
            self.heartbeats += 1
            self.bench.beats.append(now)
            return
        found = re.search(rb"(?m)^id: (\d+)$", message)
        if not found:
            return
        version = int(found.group(1))
        self.message_bytes.append(len(message) + 2)
        if version not in self.received:
            self.received[version] = now
            self.bench.arrived(version, now)
        if not self.first.done():
            self.first.set_result(version)

    def connection_lost(self, exc) -> None:
        if not self.first.done():
            self.first.set_exception(RuntimeError(f"stream closed before its first message: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)


class Fanout:
    """Counts, per version, how many phones have it; a future per version resolves when all have."""

    def __init__(self) -> None:
        self.phones: list[Phone] = []
        self.beats: list[float] = []  # when any phone got a heartbeat (a storm of them can stall the server)
        self.busy = 0.0  # seconds this process spent inside data_received: the measurement's own cost
        self.waiting: dict[int, tuple[int, asyncio.Future]] = {}

    def expect(self, version: int) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        have = sum(1 for p in self.phones if version in p.received)
        self.waiting[version] = (len(self.phones) - have, future)
        if have == len(self.phones):
            future.set_result(None)
        return future

    def arrived(self, version: int, now: float) -> None:
        if version in self.waiting:
            left, future = self.waiting[version]
            self.waiting[version] = (left - 1, future)
            if left - 1 == 0 and not future.done():
                future.set_result(now)


async def open_phones(fanout: Fanout, port: int, event_id: int, n: int, timeout: float) -> dict:
    """Open n streams (at most 100 connecting at once) and wait for every first message."""
    loop = asyncio.get_running_loop()
    request = (f"GET /events/{event_id}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode()
    gate = asyncio.Semaphore(100)
    started = time.perf_counter()

    async def one() -> float:
        async with gate:
            _, phone = await loop.create_connection(lambda: Phone(fanout, request), "127.0.0.1", port)
            fanout.phones.append(phone)
            await asyncio.wait_for(asyncio.shield(phone.first), timeout)
            return (phone.received[min(phone.received)] - phone.connected_at) * 1000

    firsts = await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), timeout + 30)
    return {"seconds_to_connect_all": time.perf_counter() - started, "first_message_ms": summary(firsts),
            "message_bytes": fanout.phones[0].message_bytes[0]}


async def post_action(port: int, head: bytes, body: bytes, sent_box: list) -> tuple[int, float]:
    """The host's POST on a fresh connection (connected before the clock starts) → (status, reply time)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sent_box.append(time.perf_counter())
    writer.write(head + body)
    reply = await asyncio.wait_for(reader.read(), 10)
    replied = time.perf_counter()
    writer.close()
    return int(reply.split(b" ", 2)[1]), replied


# --- WebSocket frames (RFC 6455), for the host's line and the Node clock's phones -------------------

def ws_frame(text: str | bytes, opcode: int = 0x1) -> bytes:
    """One masked frame (a text frame unless `opcode` says otherwise: 0xA a pong), as a client must
    send it (RFC 6455)."""
    payload = text.encode() if isinstance(text, str) else text
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, 0x80 | n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_frames(buffer: bytearray) -> list[tuple[int, bytes]]:
    """Take every complete server frame (unmasked) off the front of `buffer` → [(opcode, payload)]."""
    frames = []
    while len(buffer) >= 2:
        opcode, length, start = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
        if length == 126:
            if len(buffer) < 4:
                break
            length, start = int.from_bytes(buffer[2:4], "big"), 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length, start = int.from_bytes(buffer[2:10], "big"), 10
        if len(buffer) < start + length:
            break
        frames.append((opcode, bytes(buffer[start:start + length])))
        del buffer[:start + length]
    return frames


class HostLine:
    """The host's browser's one connection, kept open between taps as a browser keeps it (HTTP/1.1
    keep-alive, within gunicorn's `keepalive` seconds), and opened again once the server closed it.
    Like the Node clock's admin socket, which also stays open."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, head: bytes, body: bytes, sent_box: list) -> tuple[int, float]:
        """(status, reply time) of one POST; its send time goes in `sent_box`."""
        if self.writer is None or self.writer.is_closing() or self.reader.at_eof():
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        sent_box.append(time.perf_counter())
        self.writer.write(head + body)
        headers = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        length = re.search(rb"(?im)^content-length: *(\d+)", headers)
        if length is None:
            raise RuntimeError(f"a host's answer without a length: {headers[:200]!r}")
        await asyncio.wait_for(self.reader.readexactly(int(length.group(1))), 10)
        replied = time.perf_counter()
        if re.search(rb"(?im)^connection: *close", headers):
            self.close()
        return int(headers.split(b" ", 2)[1]), replied

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class HostSocket:
    """The host's line (blueprints/host/line.py): the night screen's one WebSocket, opened with the
    login's cookie and the page's Origin as the browser opens it; each tap is the controls' form as
    a text frame, each answer `{"status", "state"}` (a refusal's `{"status", "controls"}`). Like the
    Node clock's admin socket."""

    def __init__(self, port: int, event_id: int, cookie: str) -> None:
        self.port, self.event_id, self.cookie = port, event_id, cookie
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.buffer = bytearray()

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write((f"GET /host/events/{self.event_id}/clock/line HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                           f"Origin: http://127.0.0.1:{self.port}\r\nUser-Agent: {HOST_AGENT}\r\n"
                           f"Cookie: {self.cookie}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"the host's line was refused: {head[:200]!r}")

    async def tap(self, body: bytes, sent_box: list) -> tuple[int, float]:
        """(status, answer time) of one tap; its send time goes in `sent_box`."""
        if self.writer is None:
            await self.open()
        frame = ws_frame(body.decode())
        sent_box.append(time.perf_counter())
        self.writer.write(frame)
        while True:
            answer = None
            for opcode, payload in ws_frames(self.buffer):  # every frame read, a ping after the answer too
                if opcode == 0x8:
                    raise RuntimeError(f"the host's line closed: {payload[2:]!r}")
                if opcode == 0x9:  # the server's ping every 25 s: answered, as a browser does
                    self.writer.write(ws_frame(payload, 0xA))
                if opcode == 0x1 and answer is None:
                    answer = json.loads(payload)["status"], time.perf_counter()
            if answer is not None:
                return answer
            data = await asyncio.wait_for(self.reader.read(65536), 10)
            if not data:
                raise RuntimeError("the host's line closed")
            self.buffer += data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# How the host's taps travel (--host-line), as the log says it.
HOST_LINES = {"socket": "over the host's line (one WebSocket)", "keep-alive": "as POSTs on the host's one kept-alive "
              "connection", "fresh": "each POST on a fresh connection"}

# Every kind of tap the host's clock screen has (R-CLOCK-3/4), in an order that keeps the clock
# running and near its start: each cycle ends where it began.
ACTION_CYCLE = ("pause", "resume", "next", "previous", "plus", "minus", "shot", "shot_off", "jump:3", "jump:1")


async def host_actions(fanout: Fanout, server: Server, host: Host, event_id: int, k: int, gap: float,
                       timeout: float, warmup: int = 0, cycle: tuple[str, ...] = ACTION_CYCLE,
                       line: str = "socket") -> dict:
    """K taps of every kind in turn (`cycle`), each with the right version; per action the send
    time, each phone's receipt. `line` (HOST_LINES): "socket", every tap over the host's line, as
    the night screen sends them; "keep-alive", every tap a POST on the host's one connection, as
    the screen sends them without the line; "fresh", each POST on a fresh connection (connected
    before the time is taken).

    The first `warmup` taps are reported apart (each process compiles the host's fragment template
    and warms its caches on its first tap of the night) and left out of the figures."""
    clock = await asyncio.to_thread(clock_json, server.base, event_id)
    version = clock["version"]
    deliveries: list[float] = []
    all_received: list[float] = []
    replies: list[float] = []
    per_action = []
    warmups = []
    socket_line = HostSocket(server.port, event_id, host.cookie()) if line == "socket" else None
    kept = HostLine(server.port)
    for i in range(warmup + k):
        if i == warmup:
            cpu_before, machine_before = server.cpu_seconds(), machine_ticks()
        action = cycle[i % len(cycle)]
        head, body = host.form(action, version, line == "keep-alive")
        everyone = fanout.expect(version + 1)
        sent_box: list[float] = []
        busy = fanout.busy
        status, replied = await (socket_line.tap(body, sent_box) if socket_line
                                 else kept.post(head, body, sent_box) if line == "keep-alive"
                                 else post_action(server.port, head, body, sent_box))
        if status != 200:
            raise RuntimeError(f"{action} at version {version} answered {status}")
        sent = sent_box[0]
        try:
            await asyncio.wait_for(asyncio.shield(everyone), timeout)
        except TimeoutError:
            missing = sum(1 for p in fanout.phones if version + 1 not in p.received)
            raise RuntimeError(f"{missing} of {len(fanout.phones)} phones never heard version {version + 1}") from None
        busy = (fanout.busy - busy) * 1000
        version += 1
        times = [(p.received[version] - sent) * 1000 for p in fanout.phones]
        done = sent + max(times) / 1000
        beats = sum(1 for b in fanout.beats if sent - 0.5 <= b <= done)
        if i < warmup:
            warmups.append({"action": action, "version": version, "first_ms": round(min(times), 2),
                            "median_ms": round(statistics.median(times), 2), "all_ms": round(max(times), 2),
                            "post_reply_ms": round((replied - sent) * 1000, 2)})
            await asyncio.sleep(gap)
            continue
        deliveries += times
        all_received.append(max(times))
        replies.append((replied - sent) * 1000)
        per_action.append({"action": action, "version": version, "first_ms": round(min(times), 2),
                           "median_ms": round(statistics.median(times), 2), "all_ms": round(max(times), 2),
                           "post_reply_ms": round(replies[-1], 2), "client_busy_ms": round(busy, 2),
                           "heartbeats_near": beats})
        await asyncio.sleep(gap)
    kept.close()
    if socket_line:
        socket_line.close()
    cpu = server.cpu_seconds() - cpu_before
    machine = machine_busy_pct(machine_before, machine_ticks())
    kinds: dict[str, list[float]] = {}
    for tap in per_action:
        kinds.setdefault(tap["action"].partition(":")[0], []).append(tap["all_ms"])
    return {"deliveries_ms": summary(deliveries), "all_received_ms": summary(all_received),
            "all_received_by_kind_ms": {kind: summary(times) for kind, times in kinds.items()},
            "post_reply_ms": summary(replies), "per_action": per_action, "warmup": warmups, "last_sent": sent,
            "client_busy_ms": summary([p["client_busy_ms"] for p in per_action]),
            "server_cpu_ms_per_action": cpu * 1000 / k, "machine_busy_pct": machine,
            "server_cpu_us_per_delivery": cpu * 1e6 / (k * len(fanout.phones))}


async def probe(port: int, seconds: float, every: float = 0.1) -> list[float]:
    """GET /api/time every `every` s for `seconds` (one request at a time): how long the server keeps a
    newcomer waiting while the phones idle (a stall here delays a tap or a page load just the same)."""
    times: list[float] = []
    request = f"GET /api/time HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await asyncio.wait_for(reader.read(), 10)
        writer.close()
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(max(0.0, every - (time.perf_counter() - started)))
    return times


async def live_phases(server: Server, host: Host, event_id: int, opts) -> dict:
    """Phases 1–3 in one asyncio loop, with this process's garbage collector off (a full collection
    here takes ~70 ms and would be counted as the server's latency)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        return await _live_phases(server, host, event_id, opts)
    finally:
        gc.enable()
        gc.unfreeze()


async def _live_phases(server: Server, host: Host, event_id: int, opts) -> dict:
    out: dict = {}
    fanout = Fanout()
    out["rss_kb_before"] = server.rss_kb()
    log(f"[1] opening {opts.clients} SSE streams")
    out["connect"] = await open_phones(fanout, server.port, event_id, opts.clients, opts.timeout)
    log(f"    all {opts.clients} got their first message in {out['connect']['seconds_to_connect_all']:.2f} s")
    await asyncio.sleep(1)
    if opts.idle > 0:
        log(f"[2] idle for {opts.idle:.0f} s with {opts.clients} streams open")
        cpu0, t0, m0 = server.cpu_seconds(), time.monotonic(), machine_ticks()
        beats0 = sum(p.heartbeats for p in fanout.phones)
        await asyncio.sleep(opts.idle)
        cpu1, t1, m1 = server.cpu_seconds(), time.monotonic(), machine_ticks()
        out["idle"] = {"seconds": t1 - t0, "cpu_pct": (cpu1 - cpu0) / (t1 - t0) * 100,
                       "machine_busy_pct": machine_busy_pct(m0, m1),
                       "heartbeats": sum(p.heartbeats for p in fanout.phones) - beats0,
                       "open": sum(1 for p in fanout.phones if not p.closed.done())}
        log(f"    CPU {out['idle']['cpu_pct']:.2f} % of one core")
    out["rss_kb"] = server.rss_kb()
    log(f"    RSS {sum(out['rss_kb'].values()) / 1024:.1f} MiB (master + workers)")
    if opts.actions > 0:
        log(f"[3] {opts.warmup} warm-up + {opts.actions} host actions, {opts.gap:.2f} s apart, {HOST_LINES[opts.host_line]}")
        out["latency"] = await host_actions(fanout, server, host, event_id, opts.actions, opts.gap, opts.timeout,
                                            opts.warmup, opts.cycle, opts.host_line)
        out["latency"]["host_line"] = opts.host_line
        d = out["latency"]["deliveries_ms"]
        log(f"    receive − send: median {d['median']:.1f} ms, p99 {d['p99']:.1f} ms, max {d['max']:.1f} ms")
        if opts.heartbeat_round:
            # Every 20 s (HEARTBEAT_S) the worker wakes all its streams at once for a heartbeat: probe
            # for a little longer than that, so one round falls inside. What does a tap or a new
            # phone meet then?
            after, span, every = 0.0, 21.0, 0.02
            log(f"[3b] the heartbeat round: probing the server {after:.1f}–{after + span:.1f} s after the last tap")
            await asyncio.sleep(max(0.0, after - (time.perf_counter() - out["latency"]["last_sent"])))
            beats0, cpu0 = len(fanout.beats), server.cpu_seconds()
            probes = await probe(server.port, span, every)
            out["heartbeat_round"] = {"after_s": after, "seconds": span, "every_ms": every * 1000,
                                      "probe_ms": summary(probes), "heartbeats": len(fanout.beats) - beats0,
                                      "cpu_ms": (server.cpu_seconds() - cpu0) * 1000}
    out["lost_streams"] = sum(1 for p in fanout.phones if p.closed.done())
    for phone in fanout.phones:
        phone.transport.close()
    await asyncio.sleep(0.2)
    return out


# --- restart and first load ------------------------------------------------------------------------

def restart_exactness(server: Server, host: Host, event_id: int) -> dict:
    """kill -9 with the clock running, start again, compare the clock's position with wall time."""
    before = clock_json(server.base, event_id)
    if not before["running"]:
        host.act("resume", before["version"])
        before = clock_json(server.base, event_id)
    time.sleep(0.5)
    before = clock_json(server.base, event_id)
    killed = time.time()
    server.kill()
    boot = 0.0
    for attempt in range(20):  # the port may take a moment to free
        try:
            boot = server.start()
            break
        except RuntimeError:
            if attempt == 19:
                raise
            time.sleep(0.5)
    after = clock_json(server.base, event_id)
    elapsed = after["server_time_ms"] - before["server_time_ms"]
    expected_remaining = before["remaining_ms"] - elapsed
    return {
        "remaining_before_ms": before["remaining_ms"], "remaining_after_ms": after["remaining_ms"],
        "elapsed_ms": elapsed, "expected_remaining_ms": expected_remaining,
        "error_ms": after["remaining_ms"] - expected_remaining if after["index"] == before["index"] else None,
        "position_error_ms": position_ms(after) - (position_ms(before) + elapsed),
        "same_version": after["version"] == before["version"], "running_after": after["running"],
        "down_s": round(time.time() - killed, 2), "boot_s": round(boot, 2),
    }


class Refs(HTMLParser):
    """src/href of scripts, stylesheets, icons, manifests and preloads (not navigation links)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        url = None
        if tag in ("script", "img", "source") and a.get("src"):
            url = a["src"]
        elif tag == "link" and a.get("href") and (a.get("rel") or "").lower() in (
                "stylesheet", "icon", "manifest", "preload", "modulepreload", "apple-touch-icon"):
            url = a["href"]
        if url and not url.startswith("data:") and url not in self.urls:
            self.urls.append(url)


def fetch_wire(port: int, path: str) -> dict:
    """One GET as a phone's browser sends it on first load; every byte that comes back is counted."""
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: gzip, br\r\n"
               "Accept: */*\r\nUser-Agent: shuffleup-bench\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        raw = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (chunk := s.recv(65536)):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        decoded, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            decoded, rest = decoded + rest[:size], rest[size + 2:]
        body = decoded
    encoding = headers.get("content-encoding", "identity")
    if encoding == "gzip":
        import gzip
        plain = gzip.decompress(body)
    elif encoding == "br":
        import brotli
        plain = brotli.decompress(body)
    else:
        plain = body
    return {"path": path, "status": int(raw.split(b" ", 2)[1]), "encoding": encoding, "wire_bytes": len(raw),
            "body_bytes": len(body), "plain_bytes": len(plain), "plain": plain,
            "cache_control": headers.get("cache-control", "")}


def first_load(port: int, event_id: int) -> dict:
    """The player's clock page and every asset it references, compressed as a browser asks."""
    page = fetch_wire(port, f"/events/{event_id}")
    refs = Refs()
    refs.feed(page["plain"].decode())
    rows = [page] + [fetch_wire(port, urllib.parse.urlsplit(url).path) for url in refs.urls]
    for row in rows:
        row.pop("plain")
    total_wire = sum(r["wire_bytes"] for r in rows)
    return {"files": rows, "total_wire_bytes": total_wire, "total_body_bytes": sum(r["body_bytes"] for r in rows),
            "total_plain_bytes": sum(r["plain_bytes"] for r in rows)}


# --- the whole run ---------------------------------------------------------------------------------

def run(opts) -> dict:
    """Every phase; returns the figures (and prints progress to stderr)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < opts.clients + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, opts.clients + 1000), hard))
    workers = opts.workers or (2 if opts.redis else 1)
    workdir = Path(tempfile.mkdtemp(prefix="shuffleup-clock-load-"))
    results: dict = {"clients": opts.clients, "actions": opts.actions, "workers": workers,
                     "database": "postgresql" if opts.pg else "sqlite", "redis": bool(opts.redis),
                     "nproc": os.cpu_count(), "python": sys.version.split()[0],
                     "loadavg_before": os.getloadavg()[0], "pinned": bool(opts.pin)}
    server = None
    try:
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(database("postgresql" if opts.pg else "sqlite", workdir))
            redis_url = None
            if opts.redis:
                redis_url = opts.redis_url or stack.enter_context(private_redis(workdir))
            log(f"database: {url.split('@')[-1]}" + (f"; notices: {redis_url}" if redis_url else ""))
            migrate(url)
            event_id = seed(url)
            if opts.pin:
                pin_client()
            server = Server(server_env(url, redis_url), workers, opts.port or free_port(), workdir / "gunicorn.log",
                            cpus={SERVER_CORE} if opts.pin else None)
            results["boot_s"] = round(server.start(), 2)
            log(f"gunicorn: {workers} gevent worker(s) on {server.base} (booted in {results['boot_s']} s)")
            host = Host(server.base, event_id)
            host.login()
            status = host.act("start", clock_json(server.base, event_id)["version"])
            if status != 200:
                raise RuntimeError(f"could not start the clock: {status}")
            results.update(asyncio.run(live_phases(server, host, event_id, opts)))
            if opts.restart:
                log("[4] kill -9 and restart with the clock running")
                results["restart"] = restart_exactness(server, host, event_id)
                log(f"    position error {results['restart']['position_error_ms']} ms")
            if opts.first_load:
                log("[5] first load of the player's clock page")
                results["first_load"] = first_load(server.port, event_id)
                log(f"    {results['first_load']['total_wire_bytes']:,} bytes over the wire")
            server.stop()
            results["loadavg_after"] = os.getloadavg()[0]
    finally:
        if server is not None:
            server.kill()
        if opts.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return results


def report(r: dict) -> str:
    """The figures as text (Markdown-friendly)."""
    lines = [f"ShuffleUp clock load: {r['clients']} SSE clients, {r['workers']} gevent worker(s), "
             f"{r['database']}{' + Redis notices' if r['redis'] else ''}; nproc {r['nproc']}, Python {r['python']}; "
             f"load average {r['loadavg_before']:.2f} before, {r.get('loadavg_after', float('nan')):.2f} after"]
    c = r["connect"]
    first = c["first_message_ms"]
    lines.append(f"connect: all {r['clients']} streams open with first message in {c['seconds_to_connect_all']:.2f} s "
                 f"(first message {first['median']:.1f} ms median, {first['max']:.1f} ms max; "
                 f"{c['message_bytes']:,} bytes per clock message)")
    rss = r["rss_kb"]
    lines.append(f"RSS: {sum(rss.values()) / 1024:.1f} MiB total with {r['clients']} streams "
                 f"(per process kB: {', '.join(str(v) for v in rss.values())}; before streams "
                 f"{sum(r['rss_kb_before'].values()) / 1024:.1f} MiB)")
    if "idle" in r:
        i = r["idle"]
        flag = "OK" if i["cpu_pct"] < TARGETS["idle_cpu_pct"] else "MISSED"
        lines.append(f"idle: CPU {i['cpu_pct']:.2f} % of one core over {i['seconds']:.0f} s "
                     f"(target < {TARGETS['idle_cpu_pct']} %: {flag}); {i['heartbeats']} heartbeats; "
                     f"{i['open']} streams open; whole machine {i['machine_busy_pct']:.0f} % busy")
    if "latency" in r:
        L = r["latency"]
        d, a = L["deliveries_ms"], L["all_received_ms"]
        ok = d["median"] <= TARGETS["median_ms"] and d["p99"] <= TARGETS["p99_ms"]
        lines.append(f"latency over {d['n']} deliveries: median {d['median']:.1f} ms, p95 {d['p95']:.1f} ms, "
                     f"p99 {d['p99']:.1f} ms, max {d['max']:.1f} ms (target median ≤ 20, p99 ≤ 100: "
                     f"{'OK' if ok else 'MISSED'})")
        lines.append(f"until all {r['clients']} had it, over {a['n']} actions: median {a['median']:.1f} ms, "
                     f"p95 {a['p95']:.1f} ms, p99 {a['p99']:.1f} ms, max {a['max']:.1f} ms; host's tap answered "
                     f"in {L['post_reply_ms']['median']:.1f} ms median, p95 {L['post_reply_ms']['p95']:.1f} ms")
        lines.append("until all had it, by kind of tap (median / max ms): " + "; ".join(
            f"{kind} {k['median']:.0f}/{k['max']:.0f} (n={k['n']})"
            for kind, k in L.get("all_received_by_kind_ms", {}).items()))
        lines.append(f"server CPU per action {L['server_cpu_ms_per_action']:.1f} ms "
                     f"({L['server_cpu_us_per_delivery']:.0f} µs per delivery); this client's own parsing "
                     f"{L['client_busy_ms']['median']:.1f} ms per action (median; the measurement's floor); "
                     f"whole machine {L['machine_busy_pct']:.0f} % busy meanwhile")
        if L.get("warmup"):
            lines.append("warm-up taps, not counted (first / median / all, ms; the tap's answer): " + "; ".join(
                f"{p['action']} v{p['version']} {p['first_ms']:.0f}/{p['median_ms']:.0f}/{p['all_ms']:.0f}; "
                f"{p['post_reply_ms']:.0f}" for p in L["warmup"]))
        slowest = sorted(L["per_action"], key=lambda p: -p["all_ms"])[:5]
        lines.append("slowest 5 actions (first / median / all, ms): " + "; ".join(
            f"{p['action']} v{p['version']} {p['first_ms']:.0f}/{p['median_ms']:.0f}/{p['all_ms']:.0f}"
            + (f" [{p['heartbeats_near']} heartbeats]" if p.get("heartbeats_near") else "")
            for p in slowest))
    if r.get("heartbeat_round"):
        h = r["heartbeat_round"]
        lines.append(f"heartbeat round ({h['seconds']:.0f} s from {h['after_s']:.1f} s after the last tap, "
                     f"one 20 s heartbeat inside): {h['heartbeats']} heartbeats; GET /api/time every "
                     f"{h['every_ms']:.0f} ms answered in median {h['probe_ms']['median']:.1f} ms, max "
                     f"{h['probe_ms']['max']:.1f} ms; server CPU {h['cpu_ms']:.0f} ms, probes included")
    if "restart" in r:
        s = r["restart"]
        lines.append(f"restart: kill -9 → serving again in {s['down_s']} s; remaining {s['remaining_before_ms']} → "
                     f"{s['remaining_after_ms']} ms over {s['elapsed_ms']} ms of wall time: error "
                     f"{s['error_ms']} ms (position error {s['position_error_ms']} ms; "
                     f"{'exact' if s['position_error_ms'] == 0 else 'NOT exact'})")
    if "first_load" in r:
        f = r["first_load"]
        target = TARGETS["first_load_bytes"]
        lines.append(f"first load (Accept-Encoding: gzip, br): {f['total_wire_bytes']:,} bytes over the wire "
                     f"({f['total_body_bytes']:,} body, {f['total_plain_bytes']:,} uncompressed); target ≤ "
                     f"{target:,}: {'OK' if f['total_wire_bytes'] <= target else 'MISSED'}")
        for row in f["files"]:
            lines.append(f"  {row['path']}: {row['wire_bytes']:,} wire, {row['body_bytes']:,} body "
                         f"({row['encoding']}), {row['plain_bytes']:,} plain")
    return "\n".join(lines)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--clients", type=int, default=500, help="SSE connections (default 500)")
    parser.add_argument("-k", "--actions", type=int, default=200, help="host actions, every kind in turn "
                                                                         "(default 200)")
    parser.add_argument("--kinds", default=",".join(ACTION_CYCLE), help="the taps, in turn (default: every kind, "
                                                                         + ",".join(ACTION_CYCLE) + ")")
    parser.add_argument("--runs", type=int, default=1, help="whole runs, one after another; the figures are "
                                                            "their median (default 1; 3 for docs)")
    parser.add_argument("--idle", type=float, default=30, help="seconds of idle CPU measurement (default 30; 0 skips)")
    parser.add_argument("--warmup", type=int, default=2, help="host actions before the measured ones, "
                                                             "reported apart (default 2)")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between host actions (default 0.5)")
    parser.add_argument("--redis", action="store_true", help="change notices through Redis, 2 workers")
    parser.add_argument("--redis-url", help="use this Redis (default: a private redis-server on a free port, "
                                            "else redis://127.0.0.1:6379/0)")
    parser.add_argument("--pg", action="store_true", help=f"a fresh PostgreSQL database (admin URL from "
                                                          f"SHUFFLEUP_TEST_PG, default {PG_ADMIN})")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default 1; 2 with --redis)")
    parser.add_argument("--port", type=int, help="loopback port (default: a free one)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for any one phase step")
    parser.add_argument("--no-heartbeat-round", dest="heartbeat_round", action="store_false",
                        help="skip probing the server when the streams' heartbeats fall due (~23 s)")
    parser.add_argument("--pin", action="store_true",
                        help=f"the server on core {SERVER_CORE}, this client on the others (phones are other devices)")
    parser.add_argument("--host-line", choices=HOST_LINES, default="socket",
                        help="how the host's taps travel: over the host's line, the night screen's WebSocket "
                             "(socket, the default); as POSTs on one kept-alive connection, as the screen sends them "
                             "when the line is down (keep-alive); each POST on a new connection (fresh)")
    parser.add_argument("--no-restart", dest="restart", action="store_false", help="skip the kill -9 phase")
    parser.add_argument("--no-first-load", dest="first_load", action="store_false", help="skip the bytes phase")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (database, gunicorn.log)")
    opts = parser.parse_args(argv)
    if opts.clients < 1 or opts.actions < 0 or opts.idle < 0 or opts.runs < 1:
        parser.error("clients ≥ 1, actions ≥ 0, idle ≥ 0, runs ≥ 1")
    opts.cycle = tuple(kind.strip() for kind in opts.kinds.split(",") if kind.strip())
    if not opts.cycle:
        parser.error("--kinds names at least one tap")
    return opts


# The figures the docs quote, as (label, path into a run's results, unit): the median of the runs.
HEADLINE = (
    ("per-phone delivery median", ("latency", "deliveries_ms", "median"), "ms"),
    ("per-phone delivery p95", ("latency", "deliveries_ms", "p95"), "ms"),
    ("per-phone delivery p99", ("latency", "deliveries_ms", "p99"), "ms"),
    ("per-phone delivery max", ("latency", "deliveries_ms", "max"), "ms"),
    ("all phones have it, median", ("latency", "all_received_ms", "median"), "ms"),
    ("all phones have it, p95", ("latency", "all_received_ms", "p95"), "ms"),
    ("all phones have it, p99", ("latency", "all_received_ms", "p99"), "ms"),
    ("all phones have it, max", ("latency", "all_received_ms", "max"), "ms"),
    ("host's tap answered, median", ("latency", "post_reply_ms", "median"), "ms"),
    ("server CPU per action", ("latency", "server_cpu_ms_per_action"), "ms"),
    ("server CPU per delivery", ("latency", "server_cpu_us_per_delivery"), "µs"),
    ("idle CPU", ("idle", "cpu_pct"), "%"),
    ("whole machine busy during the taps", ("latency", "machine_busy_pct"), "%"),
)


def dig(results: dict, path: tuple[str, ...]):
    for key in path:
        if not isinstance(results, dict) or key not in results:
            return None
        results = results[key]
    return results


def medians(runs: list[dict]) -> dict[str, dict]:
    """Each headline figure's value in every run and their median."""
    out = {}
    for label, path, unit in HEADLINE:
        values = [v for r in runs if (v := dig(r, path)) is not None]
        if values:
            out[label] = {"median": statistics.median(values), "runs": values, "unit": unit}
    rss = [sum(r["rss_kb"].values()) / 1024 for r in runs if r.get("rss_kb")]
    if rss:
        out["RSS with every phone connected"] = {"median": statistics.median(rss), "runs": rss, "unit": "MiB"}
    return out


def median_report(runs: list[dict]) -> str:
    lines = [f"median of {len(runs)} runs (each run's value in brackets):"]
    for label, m in medians(runs).items():
        lines.append(f"  {label}: {m['median']:.1f} {m['unit']} [" + ", ".join(f"{v:.1f}" for v in m["runs"]) + "]")
    return "\n".join(lines)


def main(argv=None) -> int:
    opts = parse_args(argv)
    runs = []
    for number in range(opts.runs):
        if opts.runs > 1:
            log(f"=== run {number + 1} of {opts.runs}")
        runs.append(run(opts))
        print(report(runs[-1]), flush=True)
    if opts.runs > 1:
        print(median_report(runs))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"runs": runs, "medians": medians(runs)} if opts.runs > 1 else runs[0],
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
