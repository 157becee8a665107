"""Change notices: "event N is now at version V", from the process that changed it to every
process holding that event's live connections.

Without REDIS_URL the notices stay in this process; with it they travel through Redis pub/sub,
so a pause made through process A reaches a phone connected to process B (any worker, on any
machine, may serve any night: nothing is kept in one process only).
A notice carries the version and the message the changing process rendered for it once
(`Hub.rendered`), so no process reads the state again for it; a process that missed notices
(Redis drops them for a disconnected subscriber) finds them in its next heartbeat round's one read.
"""
from __future__ import annotations

import errno
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)
CHANNEL = "shuffleup:events"
HEARTBEAT_S = 20  # the default of the HEARTBEAT_S setting
BEAT_SLICE = 250  # heartbeats written between two yields of the heartbeat round


class Hub:
    """The in-process meeting point of publishers and waiting live connections.

    One threading.Event per event and generation (gevent's under its worker): publishing sets it
    once, every waiting stream wakes without contending for a shared lock, and the message for a
    version is rendered once and reused as bytes for every phone (measured: 58 µs per delivery,
    against 130 µs with one Condition for all; session 1 in docs/benchmarks-clock.md's history).
    """

    def __init__(self, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.heartbeat_s = heartbeat_s
        self._beats: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._lock = threading.Lock()
        self._versions: dict[int, int] = {}
        self._signals: dict[int, threading.Event] = {}
        self._rendered: dict[int, tuple[int, object]] = {}
        self._render_lock = threading.Lock()
        # (event ids) → {event id: stored version}, or None while the database is down: the heartbeat's
        # catch-up read, given by the app (blueprints/live.py); without it no catch-up is read
        self.stored_versions: Callable[[list[int]], dict[int, int] | None] | None = None
        self._direct: dict[int, dict[Phone, None]] = {}  # event → the phones this process writes to itself

    def publish(self, event_id: int, version: int) -> None:
        """Tell every waiting connection in this process (and, with Redis, in every process)."""
        self.deliver(event_id, version)

    def deliver(self, event_id: int, version: int) -> None:
        """Wake this process's waiters for a version newer than any seen here."""
        with self._lock:
            if version <= self._versions.get(event_id, -1):
                return
            self._versions[event_id] = version
            signal = self._signals.pop(event_id, None)
        if signal is not None:
            signal.set()
        self._write_all(event_id, version)

    def wait(self, event_id: int, seen: int) -> int | None:
        """Block until the event's version exceeds `seen` (→ the version) or the next heartbeat (→ None).

        No timer per wait: one heartbeat for the whole process wakes every waiter (`beat`), which
        saves a timer's start and stop on every delivery (session 2 in docs/benchmarks-clock.md's history).
        """
        self._keep_beating()
        with self._lock:
            current = self._versions.get(event_id, -1)
            if current > seen:
                return current
            signal = self._signals.get(event_id)
            if signal is None:
                signal = self._signals[event_id] = threading.Event()
        signal.wait()
        current = self._versions.get(event_id, -1)
        return current if current > seen else None

    def version(self, event_id: int) -> int:
        """The newest version this process has heard of for the event (-1: none)."""
        return self._versions.get(event_id, -1)

    def beat(self) -> None:
        """R-CLOCK-3: one heartbeat round. First one read of the stored versions of every event this
        process serves (`stored_versions`), in case a notice was lost on the way (Redis drops them for
        a disconnected subscriber; a publish can fail); an event found behind is delivered at once.
        Then every waiting connection wakes to send its heartbeat, and phones written to directly get
        theirs from this loop, a slice at a time so a host's tap is not queued behind thousands."""
        with self._lock:
            events = set(self._signals) | set(self._direct)
        if events and self.stored_versions is not None:
            try:
                stored = self.stored_versions(sorted(events)) or {}
            except Exception:  # the heartbeats still go out; the next round reads again
                log.exception("could not read the stored clock versions")
                stored = {}
            for event_id, version in stored.items():
                if version > self.version(event_id):
                    self.deliver(event_id, version)
        with self._lock:
            signals, self._signals = self._signals, {}
        for signal in signals.values():
            signal.set()
        written = 0
        for phones in list(self._direct.values()):
            for phone in list(phones):
                phone.send(HEARTBEAT_CHUNK if phone.chunked else HEARTBEAT)
                written += 1
                if written % BEAT_SLICE == 0:
                    time.sleep(0)  # under gevent: let a waiting tap and its deliveries run between slices

    # --- one writer per process -------------------------------------------------------------------
    # Under gunicorn's gevent worker a stream hands its socket to the hub after its first message:
    # a host action's message is then written to every phone of the process from one loop, in the
    # greenlet that delivers the notice, instead of waking one greenlet per phone (each wake runs
    # the WSGI iterator, gunicorn's chunk writer and gevent's sendall). A phone whose socket buffer
    # is full, or a version that is not rendered here yet, goes back to the phone's own greenlet.

    def join(self, event_id: int, phone: Phone, seen: int) -> None:
        """Write this event's next messages straight to `phone` (its greenlet waits on `phone.wake`)."""
        self._keep_beating()
        with self._lock:
            self._direct.setdefault(event_id, {})[phone] = None
            current = self._versions.get(event_id, -1)
        phone.version = seen
        if current > seen:
            self._write_one(event_id, phone, current)

    def serve(self, event_id: int, phone: Phone, seen: int, latest: Callable[[int], tuple[int, bytes]]) -> None:
        """The phone's own greenlet while the hub writes to its socket: it wakes only for what the
        writer leaves to it (the rest of a message a slow phone did not take; a version to render,
        `latest(version)` → (version, message)) and returns when the phone hangs up."""
        self.join(event_id, phone, seen)
        try:
            while not phone.dead:
                if not (phone.pending or phone.behind):
                    phone.wake.wait()
                    phone.wake.clear()
                    continue
                phone.busy = True
                try:
                    if phone.pending:
                        data, phone.pending = phone.pending, b""
                        phone.sock.sendall(data)
                    if phone.behind:
                        phone.behind = False
                        version, message = latest(self.version(event_id))
                        if version > phone.version:
                            phone.sock.sendall(phone.frame(message))
                            phone.version = version
                except OSError:
                    phone.dead = True
                finally:
                    phone.busy = False
        finally:
            self.leave(event_id, phone)

    def leave(self, event_id: int, phone: Phone) -> None:
        """Stop writing to `phone` (before its socket closes)."""
        with self._lock:
            phones = self._direct.get(event_id)
            if phones is not None:
                phones.pop(phone, None)
                if not phones:
                    del self._direct[event_id]

    def _write_all(self, event_id: int, version: int) -> None:
        phones = self._direct.get(event_id)
        if not phones:
            return
        cached = self._rendered.get(event_id)
        if not (cached and cached[0] >= version and isinstance(cached[1], bytes)):
            for phone in list(phones):
                phone.catch_up()  # not rendered here: the phone's greenlet renders (once per process) and sends
            return
        newest, message = cached
        chunk = frame(message, True)  # the bytes on the wire, made once for every phone of the event
        for phone in list(phones):
            if newest > phone.version:
                phone.send(chunk if phone.chunked else message, version=newest)

    def _write_one(self, event_id: int, phone: Phone, version: int) -> None:
        cached = self._rendered.get(event_id)
        if cached and cached[0] >= version and isinstance(cached[1], bytes):
            if cached[0] > phone.version:
                phone.send(phone.frame(cached[1]), version=cached[0])
        else:
            phone.catch_up()  # not rendered here: the phone's greenlet renders (once per process) and sends

    def _keep_beating(self) -> None:
        self._keep_running("_beats", self._beat_forever, "heartbeats")

    def _keep_running(self, attr: str, target: Callable[[], None], name: str) -> None:
        """Start the daemon thread kept in `attr` unless it is alive: once, whoever asks first."""
        thread = getattr(self, attr)
        if thread is not None and thread.is_alive():
            return
        with self._start_lock:
            thread = getattr(self, attr)
            if thread is None or not thread.is_alive():
                thread = threading.Thread(target=target, name=name, daemon=True)
                setattr(self, attr, thread)
                thread.start()

    def _beat_forever(self) -> None:
        while True:
            time.sleep(self.heartbeat_s)
            self.beat()

    def cached(self, event_id: int, version: int):
        """The rendered (version, message) if it is at least `version`, else None."""
        cached = self._rendered.get(event_id)
        return cached if cached and cached[0] >= version else None

    def keep(self, event_id: int, version: int, message: bytes) -> None:
        """Cache a message another process rendered, unless one as new is here already."""
        with self._render_lock:
            cached = self._rendered.get(event_id)
            if not cached or cached[0] < version:
                self._rendered[event_id] = (version, message)

    def rendered(self, event_id: int, version: int, render: Callable[[], tuple[int, object]]):
        """The stream's message for this version, made once per process however many phones listen.

        `render` returns (the version it actually made it for, the message: live/announce.py); a
        message newer than asked for is fine, an older cached one is replaced.
        """
        cached = self._rendered.get(event_id)
        if cached and cached[0] >= version:
            return cached
        with self._render_lock:
            cached = self._rendered.get(event_id)
            if cached and cached[0] >= version:
                return cached
            fresh = render()
            self._rendered[event_id] = fresh
            return fresh


HEARTBEAT = b": heartbeat\n\n"


def frame(message: bytes, chunked: bool) -> bytes:
    """The bytes on the wire: an HTTP/1.1 chunk, as gunicorn frames a streamed answer's first message;
    the message itself to HTTP/1.0."""
    return b"%X\r\n%s\r\n" % (len(message), message) if chunked else message


HEARTBEAT_CHUNK = frame(HEARTBEAT, True)


class Phone:
    """One phone's stream as the hub's writer sees it: a non-blocking socket and what it has sent.

    `send` writes without ever waiting: whatever the socket does not take at once (a phone on one
    bar of signal) is left in `pending` for the phone's own greenlet, which `wake` rouses; so is a
    version that must be rendered first (`behind`) and a closed connection (`dead`). Only one of the
    two writes at a time: while the greenlet sends (`busy`), the hub's writes wait in `behind`.
    """

    def __init__(self, sock, chunked: bool, wake: threading.Event) -> None:
        self.sock, self.chunked, self.wake = sock, chunked, wake
        self.version = -1
        self.pending = b""
        self.busy = self.behind = self.dead = False

    def frame(self, message: bytes) -> bytes:
        """The bytes on the wire for this phone (`frame`)."""
        return frame(message, self.chunked)

    def send(self, data: bytes, version: int | None = None) -> None:
        """Write `data`, already framed for this phone (`frame`), without waiting."""
        if self.dead:
            return
        if self.busy or self.pending:
            if version is not None:
                self.behind = True
            self.wake.set()
            return
        try:
            sent = os.write(self.sock.fileno(), data)
        except BlockingIOError:
            sent = 0
        except OSError as error:  # closed, reset, or a socket already given back (fileno -1: EBADF)
            if error.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EBADF, errno.ENOTCONN):
                log.warning("stream write failed: %s", error)
            self.dead = True
            self.wake.set()
            return
        if version is not None:
            self.version = version
        if sent < len(data):
            self.pending = data[sent:]
            self.wake.set()

    def catch_up(self) -> None:
        self.behind = True
        self.wake.set()


class RedisHub(Hub):
    """A Hub whose notices go through Redis pub/sub to every process."""

    def __init__(self, url: str, channel: str = CHANNEL, heartbeat_s: float = HEARTBEAT_S) -> None:
        super().__init__(heartbeat_s)
        import redis
        self._redis = redis.Redis.from_url(url, socket_keepalive=True, health_check_interval=30)
        self._listener: threading.Thread | None = None
        self.channel = channel

    def publish(self, event_id: int, version: int) -> None:
        """Send through Redis (this process hears it back like every other); deliver locally too,
        so this process's own phones don't wait on the round trip. The message made for this
        version goes along (a line of JSON, a few hundred bytes), so no other process has to read
        and make it again."""
        self.deliver(event_id, version)
        notice = f"{event_id}:{version}:".encode()
        cached = self._rendered.get(event_id)
        if cached and cached[0] == version and isinstance(cached[1], bytes):
            notice += cached[1]
        try:
            self._redis.publish(self.channel, notice)
        except Exception:  # the change is committed; other processes catch up at their heartbeat
            log.exception("could not publish a change notice to Redis")

    def wait(self, event_id: int, seen: int) -> int | None:
        self.listen()
        return super().wait(event_id, seen)

    def join(self, event_id: int, phone: Phone, seen: int) -> None:
        self.listen()
        super().join(event_id, phone, seen)

    def listen(self) -> None:
        """Start this process's one subscriber, once."""
        self._keep_running("_listener", self._run, "notices")

    def _run(self) -> None:
        while True:
            try:
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                for message in pubsub.listen():
                    event_id, version, rendered = message["data"].split(b":", 2)
                    if rendered:
                        self.keep(int(event_id), int(version), rendered)
                    self.deliver(int(event_id), int(version))
            except Exception:
                log.exception("Redis notices lost; reconnecting in 1 s")
                time.sleep(1)


def init_app(app) -> None:
    """Give the app its hub: Redis when REDIS_URL is set, else this process only."""
    url = app.config.get("REDIS_URL")
    # One channel per database: two leagues' servers sharing a Redis must not hear each other's events.
    database = hashlib.sha256(app.config["SQLALCHEMY_DATABASE_URI"].encode()).hexdigest()[:12]
    beat = app.config.get("HEARTBEAT_S", HEARTBEAT_S)
    app.extensions["notices"] = RedisHub(url, f"{CHANNEL}:{database}", beat) if url else Hub(beat)


def hub() -> Hub:
    """The current app's hub."""
    from flask import current_app
    return current_app.extensions["notices"]
