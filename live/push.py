"""Web Push: the server's VAPID key pair (RFC 8292) and the sender that takes a committed host action's
messages to the players' phones (aes128gcm, RFC 8291, through pywebpush).

A service leaves its messages in the session (services.push.tell); once the transaction commits they
go to a queue (this process's own, or with REDIS_URL the one in Redis: live/push_queue.py), and a small
pool of sender threads (greenlets under gunicorn's gevent worker) reads each message's phones, encrypts
and posts, so a host's tap only hands its messages over (tens of microseconds) and never waits for a
push service. A push service that fails or
answers 429/5xx is tried again after 1, 2, 4, 8 and 16 seconds; one that answers 404 or 410 has
forgotten the phone, and so does the server (its subscription is deleted).
"""
from __future__ import annotations

import base64
import heapq
import itertools
import json
import logging
import os
import threading
import time
from typing import Any
from urllib.parse import urlsplit

# pywebpush is imported with the app, not by the first message: it brings aiohttp and takes a quarter
# of a second of CPU to import, which a sender thread would otherwise spend holding the GIL while the
# host's next request waits (the host action's slowest times in docs/push.md's first figures).
import requests
from cryptography.hazmat.primitives import serialization
from flask import Flask
from pywebpush import WebPusher
from sqlalchemy import event as sa_event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from live.push_queue import Claim, RedisQueue

log = logging.getLogger(__name__)
KEY_FILE = "vapid_private.pem"  # beside config.py's secret key in instance/, never committed
RETRY_DELAYS_S = (1, 2, 4, 8, 16)
TTL_S = 3600  # a move an hour old is news to nobody: the push service may drop it after that
SENDERS = 4
PUMP_WAIT_S = 1.0  # with Redis: the longest a message due later waits past its time to be claimed
VAPID_EXPIRY_S = 12 * 3600  # a VAPID signature's life (RFC 8292 allows 24 h)
VAPID_RENEW_S = 3600  # signed again an hour before it expires


def load_or_make_key(instance_path: str) -> Any:
    """The server's VAPID key pair from instance/vapid_private.pem, made there on first run (readable by
    the server's user only; two workers starting at once make it once: the file is created exclusively)."""
    from py_vapid import Vapid
    path = os.path.join(instance_path, KEY_FILE)
    if not os.path.exists(path):
        vapid = Vapid()
        vapid.generate_keys()
        pem = vapid.private_pem()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(pem)
    return Vapid.from_file(path)


def public_key(vapid: Any) -> str:
    """The application server key a browser subscribes with: the uncompressed P-256 point, base64url."""
    raw = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Sender:
    """The queue of messages due and the threads that post them (one Sender per app).

    Without REDIS_URL (or while Redis is down) the queue is this process's own: a heap by due time that
    this process's sender threads work through. With it, a message goes to Redis (live/push_queue.py):
    due now, to a list; due later (a penalty's end, registration closing), to a sorted set by due time.
    Any process's pump claims it from there atomically (so two processes never hold one message at once),
    with a lease, and hands it to its threads; the thread answers for the claim once the message is sent
    or dropped, queueing its retries in the same step. A restart loses nothing that was waiting in Redis,
    and a process that dies while sending loses nothing it held: its lease runs out and another process's
    pump claims the message again (sent at least once).
    """

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._heap: list[tuple[float, int, dict, Claim | None]] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._pid: int | None = None
        self._pumping = False
        self._idle = threading.Condition(self._cv)
        self._busy = 0
        self._vapid_headers: dict[str, tuple[float, dict]] = {}
        self.sent = 0  # messages a push service accepted (tests and the benchmark read these)
        self.dropped = 0
        self.shared = RedisQueue.from_config(app.config)

    def put(self, item: dict, at: float | None = None) -> None:
        """Queue one message for sending at `at` (epoch seconds; its own `due`, or now, when None)."""
        self.put_many([item], at)

    def put_many(self, items: list[dict], at: float | None = None) -> None:
        """Queue messages (one Redis round trip for them all); Redis down: this process sends them."""
        timed = [(item, at if at is not None else (item.get("due") or 0.0)) for item in items]
        if self.shared is not None and self.shared.put(timed):
            if self.app.config.get("PUSH_SEND_HERE", True):
                with self._cv:
                    self._start(pump=True)  # this process's pump takes its share of them
            return
        with self._cv:
            self._start(pump=self.app.config.get("PUSH_SEND_HERE", True))
            for item, when in timed:
                heapq.heappush(self._heap, (when, next(self._order), item, None))
            self._cv.notify(len(timed))

    def serve(self) -> None:
        """Send from this process from now on, what any process queued in Redis too (a sender process's
        `flask league push-sender`)."""
        with self._cv:
            self._start(pump=True)

    def _start(self, pump: bool) -> None:
        # Called holding self._cv. Threads don't survive a fork: each process (gunicorn worker) starts its
        # own on first use; the pump only where this process sends for others too (a web process with
        # PUSH_SEND_HERE off sends only its own, and only while Redis is down).
        if self._pid != os.getpid():
            self._pid, self._pumping = os.getpid(), False
            for number in range(self.app.config.get("PUSH_SENDERS", SENDERS)):
                threading.Thread(target=self._run, name=f"push-sender-{number}", daemon=True).start()
        if pump and self.shared is not None and not self._pumping:
            self._pumping = True
            threading.Thread(target=self._pump, name="push-pump", daemon=True).start()

    def _pump(self) -> None:
        """With Redis: claim what is due from the shared queue and hand it to this process's threads,
        taking no more than they can start on (the other processes take the rest)."""
        while True:
            with self._cv:
                while len(self._heap) + self._busy >= 2 * self.app.config.get("PUSH_SENDERS", SENDERS):
                    self._idle.wait(timeout=1.0)
            claim = self.shared.claim(timeout_s=PUMP_WAIT_S)
            if claim is not None:
                with self._cv:
                    heapq.heappush(self._heap, (0.0, next(self._order), claim.item, claim))
                    self._cv.notify()

    def _take(self) -> tuple[dict, Claim | None]:
        with self._cv:
            while True:
                now = time.time()
                if self._heap and self._heap[0][0] <= now:
                    self._busy += 1
                    _, _, item, claim = heapq.heappop(self._heap)
                    return item, claim
                self._cv.wait(timeout=(self._heap[0][0] - now) if self._heap else None)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing is due and no message is being sent, here or in Redis (tests; the benchmark)."""
        end = time.time() + timeout
        with self._cv:
            while (self._busy or any(entry[0] <= time.time() for entry in self._heap)
                   or (self.shared is not None and self.shared.due_count())):
                if time.time() >= end:
                    return False
                self._idle.wait(timeout=0.05)
        return True

    def _run(self) -> None:
        session = requests.Session()
        while True:
            item, claim = self._take()
            retries: list[tuple[dict, float]] = []
            try:
                with self.app.app_context():
                    self._send(item, session, claim, retries)
            except Exception:  # a bad item must not stop the sender (nor come back at every lease)
                log.exception("push: could not send a message")
            finally:
                self._answer_for(claim, retries)
                with self._cv:
                    self._busy -= 1
                    self._idle.notify_all()

    def _send(self, item: dict, session, claim: Claim | None, retries: list[tuple[dict, float]]) -> None:
        if "endpoint" in item:  # a retry of one phone's message
            if self._still_mine(claim):
                self._post(item, session, retries)
            return
        if not self._still_mine(claim):
            return
        for target in targets_of(item):
            if not self._still_mine(claim):
                return  # another process claimed it after this one's lease ran out: it sends it whole
            self._post(target, session, retries)

    def _still_mine(self, claim: Claim | None) -> bool:
        """A claimed message is still this process's to send: its lease, renewed once a quarter of it
        has gone (a message of many phones, or one that waited here behind others), is not another's."""
        if claim is None or self.shared is None or time.time() - claim.kept_at < self.shared.lease_s / 4:
            return True
        return self.shared.keep(claim)

    def _answer_for(self, claim: Claim | None, retries: list[tuple[dict, float]]) -> None:
        """A claimed message's claim released and its retries queued, in one step (Redis down: the
        retries wait here, and the claim lapses: the message may be sent again, never lost)."""
        if claim is not None and self.shared is not None and self.shared.done(claim, retries) is not None:
            return
        for retry, at in retries:
            self.put(retry, at=at)

    def _headers(self, endpoint: str) -> dict:
        """The VAPID Authorization for the endpoint's push service (RFC 8292), signed once per service
        and reused until an hour before it expires (a signature per message was one more ES256 signing
        in the sender's CPU for every phone: about 0.05 ms of its 1-3 ms)."""
        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        now = time.time()
        cached = self._vapid_headers.get(audience)
        if cached is None or cached[0] < now + VAPID_RENEW_S:
            expires = int(now) + VAPID_EXPIRY_S
            claims = {"sub": self.app.config.get("PUSH_CONTACT") or "mailto:operator@shuffleup.invalid",
                      "aud": audience, "exp": expires}
            cached = self._vapid_headers[audience] = (expires, self.app.extensions["push_vapid"].sign(claims))
        return dict(cached[1])

    def _post(self, target: dict, session, retries: list[tuple[dict, float]]) -> None:
        from services import push as subscriptions
        from wiring.extensions import db
        status = None
        try:
            subscription = {"endpoint": target["endpoint"], "keys": {"p256dh": target["p256dh"],
                                                                      "auth": target["auth"]}}
            response = WebPusher(subscription, requests_session=session).send(
                json.dumps(target["message"]), self._headers(target["endpoint"]), ttl=TTL_S,
                content_encoding="aes128gcm", timeout=self.app.config.get("PUSH_TIMEOUT_S", 10))
            status = response.status_code
        except Exception:  # the push service is unreachable: tried again
            log.warning("push: %s unreachable", target["endpoint"].split("/")[2], exc_info=True)
        if status is not None and status < 300:
            self.sent += 1
        elif status in (404, 410):
            subscriptions.forget(target["endpoint"])
            db.session.commit()
        elif status is None or status == 429 or status >= 500:
            if target["tries"] >= len(RETRY_DELAYS_S):
                self.dropped += 1
                return
            delay = RETRY_DELAYS_S[target["tries"]] * self.app.config.get("PUSH_BACKOFF_SCALE", 1.0)
            retries.append(({**target, "tries": target["tries"] + 1}, time.time() + delay))
        else:  # 400, 403, 413: this message can't be sent as it is; trying again would not change that
            self.dropped += 1
            log.warning("push: %s refused a message (%s)", target["endpoint"].split("/")[2], status)


def targets_of(item: dict) -> list[dict]:
    """The phones a message goes to, read when it is sent: nothing if it is no longer news (still_true),
    its words composed, its members' subscriptions, each member claimed first when it is told once only
    (R-LATE-3, R-QUAL-4). The read's transaction is ended: the posting holds none open."""
    from services import push as subscriptions
    from wiring.extensions import db
    try:
        if item.get("check") and not still_true(item["check"]):
            return []
        message = subscriptions.compose(item)
        if message is None:
            return []
        phones = subscriptions.subscriptions_of(subscriptions.audience(item))
        rows = [(s.member_id, s.endpoint, s.p256dh, s.auth) for s in phones]
        if item.get("once"):
            members = {row[0] for row in rows}
            # Read first: a member told already costs no write (on SQLite, every write waits its turn
            # with the host's actions), and only the rest are claimed, one transaction each.
            members -= subscriptions.already_told(members, *item["once"])
            db.session.rollback()
            told = {member_id for member_id in sorted(members) if _first_to_tell(member_id, item["once"])}
            rows = [row for row in rows if row[0] in told]
        db.session.rollback()
    finally:
        db.session.rollback()
    return [{"endpoint": endpoint, "p256dh": p256dh, "auth": auth, "message": message, "tries": 0}
            for _, endpoint, p256dh, auth in rows]


def _first_to_tell(member_id: int, once: list) -> bool:
    """R-LATE-3, R-QUAL-4: this sender tells the member a once-only message: its row committed, in a
    transaction of its own (a sender, or a process, that finds the row there already tells nobody)."""
    from services import push as subscriptions
    from wiring.extensions import db
    try:
        subscriptions.note_told(member_id, *once)
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return False
    return True


def still_true(check: list) -> bool:
    """R-PEN-2, R-LATE-3: a message sent later is still news: the penalty it announces the end of has not
    been ended early or extended meanwhile; registration still closes when the message said (the clock
    was not paused, skipped or edited since: each of those scheduled a new message)."""
    from services.models import Penalty
    from wiring.extensions import db
    kind, *facts = check
    if kind == "registration":
        from services.clocks import registration_still_closing_at
        return registration_still_closing_at(facts[0], facts[1])
    if kind == "penalty":
        penalty = db.session.get(Penalty, facts[0])
        ok = penalty is not None and penalty.ended_at is None and penalty.until is not None \
            and penalty.until.isoformat() == facts[1]
        db.session.rollback()
        return ok
    return False


def _queue_committed(session: Session) -> None:
    outbox = session.info.pop("push_outbox", None)
    if not outbox:
        return
    from flask import current_app, has_app_context
    sender: Sender | None = current_app.extensions.get("push") if has_app_context() else None
    if sender is not None:
        sender.put_many(outbox)


def _drop_rolled_back(session: Session) -> None:
    session.info.pop("push_outbox", None)


def init_app(app: Flask) -> None:
    """The key pair (made on first run) and the sender; messages are queued after every commit."""
    app.extensions["push_vapid"] = load_or_make_key(app.config.get("PUSH_KEY_DIR") or app.instance_path)
    app.extensions["push"] = Sender(app)
    if not sa_event.contains(Session, "after_commit", _queue_committed):
        sa_event.listen(Session, "after_commit", _queue_committed)
        sa_event.listen(Session, "after_rollback", _drop_rolled_back)
