"""Web Push: the server's VAPID key pair (RFC 8292) and the sender that takes a committed host action's
messages to the players' phones (aes128gcm, RFC 8291, through pywebpush).

A service leaves its messages in the session (services.push.tell); once the transaction commits they
go to an in-process queue, and one small pool of sender threads (greenlets under gunicorn's gevent
worker) posts them, so a host's tap never waits for a push service. A push service that fails or
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

from cryptography.hazmat.primitives import serialization
from flask import Flask
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)
KEY_FILE = "vapid_private.pem"  # beside config.py's secret key in instance/, never committed
RETRY_DELAYS_S = (1, 2, 4, 8, 16)
TTL_S = 3600  # a move an hour old is news to nobody: the push service may drop it after that
SENDERS = 4


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
    """The queue of messages due and the threads that post them (one Sender per app)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._heap: list[tuple[float, int, dict]] = []
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._pid: int | None = None
        self._idle = threading.Condition(self._cv)
        self._busy = 0
        self.sent = 0  # messages a push service accepted (tests and the benchmark read these)
        self.dropped = 0

    def put(self, item: dict, at: float | None = None) -> None:
        """Queue one message for sending at `at` (epoch seconds; now when None)."""
        with self._cv:
            self._start()
            heapq.heappush(self._heap, (at if at is not None else (item.get("due") or 0.0), next(self._order), item))
            self._cv.notify()

    def _start(self) -> None:
        # Threads don't survive a fork: each process (gunicorn worker) starts its own on first use.
        if self._pid == os.getpid():
            return
        self._pid = os.getpid()
        for number in range(self.app.config.get("PUSH_SENDERS", SENDERS)):
            threading.Thread(target=self._run, name=f"push-sender-{number}", daemon=True).start()

    def _take(self) -> dict:
        with self._cv:
            while True:
                now = time.time()
                if self._heap and self._heap[0][0] <= now:
                    self._busy += 1
                    return heapq.heappop(self._heap)[2]
                self._cv.wait(timeout=(self._heap[0][0] - now) if self._heap else None)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing is due and no message is being sent (tests; the benchmark)."""
        end = time.time() + timeout
        with self._cv:
            while self._busy or any(at <= time.time() for at, _, _ in self._heap):
                if time.time() >= end:
                    return False
                self._idle.wait(timeout=0.05)
        return True

    def _run(self) -> None:
        import requests
        session = requests.Session()
        while True:
            item = self._take()
            try:
                with self.app.app_context():
                    self._send(item, session)
            except Exception:  # a bad item must not stop the sender
                log.exception("push: could not send a message")
            finally:
                with self._cv:
                    self._busy -= 1
                    self._idle.notify_all()

    def _send(self, item: dict, session) -> None:
        from services import push as subscriptions
        from wiring.extensions import db
        if item.get("check") and not still_true(item["check"]):
            return
        if "endpoint" in item:  # a retry of one phone's message
            targets = [item]
        else:
            targets = [{"endpoint": s.endpoint, "p256dh": s.p256dh, "auth": s.auth, "message": item["message"],
                        "tries": 0} for s in subscriptions.subscriptions_of([item["member"]])]
            db.session.rollback()  # end the read: the sending below holds no transaction open
        for target in targets:
            self._post(target, session)

    def _post(self, target: dict, session) -> None:
        from pywebpush import WebPushException, webpush

        from services import push as subscriptions
        from wiring.extensions import db
        claims = {"sub": self.app.config.get("PUSH_CONTACT") or "mailto:operator@shuffleup.invalid"}
        status = None
        try:
            keys = {"p256dh": target["p256dh"], "auth": target["auth"]}
            response = webpush({"endpoint": target["endpoint"], "keys": keys}, json.dumps(target["message"]),
                               vapid_private_key=self.app.extensions["push_vapid"],
                               vapid_claims=claims, ttl=TTL_S, timeout=self.app.config.get("PUSH_TIMEOUT_S", 10),
                               requests_session=session)
            status = response.status_code
        except WebPushException as problem:
            status = problem.response.status_code if problem.response is not None else None
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
            self.put({**target, "tries": target["tries"] + 1}, at=time.time() + delay)
        else:  # 400, 403, 413: this message can't be sent as it is; trying again would not change that
            self.dropped += 1
            log.warning("push: %s refused a message (%s)", target["endpoint"].split("/")[2], status)


def still_true(check: list) -> bool:
    """R-PEN-2: a message sent later is still news: the penalty it announces the end of has not been
    ended early or extended meanwhile."""
    from services.models import Penalty
    from wiring.extensions import db
    kind, *facts = check
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
        for item in outbox:
            sender.put(item)


def _drop_rolled_back(session: Session) -> None:
    session.info.pop("push_outbox", None)


def init_app(app: Flask) -> None:
    """The key pair (made on first run) and the sender; messages are queued after every commit."""
    app.extensions["push_vapid"] = load_or_make_key(app.config.get("PUSH_KEY_DIR") or app.instance_path)
    app.extensions["push"] = Sender(app)
    if not sa_event.contains(Session, "after_commit", _queue_committed):
        sa_event.listen(Session, "after_commit", _queue_committed)
        sa_event.listen(Session, "after_rollback", _drop_rolled_back)
