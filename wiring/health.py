"""Is the app fit to serve: the database and Redis each answer and the disk has room (the health
endpoint), and which errors mean a service is down rather than a bug (answered 503, "try again", never
500), a full disk named as such."""
from __future__ import annotations

import logging
import os
import shutil

from flask import Flask, current_app
from sqlalchemy import exc, text

from wiring.extensions import db

log = logging.getLogger(__name__)
OK = "ok"
NOT_CONFIGURED = "not configured"
# What a request refused while the database is down tells the user (a page's, an API's, a line's tap).
DATABASE_DOWN = "The league's database is not answering just now. Nothing was changed: try again in a few seconds."
# A full disk is no outage that passes by itself: the words say so, and who can free it.
DISK_FULL = ("The server's disk is full, so the league's database cannot save anything. Nothing was changed: "
             "tell whoever runs this ShuffleUp (its operator) to free some disk space, then try again.")
# How each database says its disk is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full (SQLSTATE 53100)
# and the operating system's ENOSPC in its message.
_DISK_FULL_WORDS = ("database or disk is full", "no space left on device", "could not extend file")
FULL = "full"


def disk_full(error: BaseException) -> bool:
    """Whether a database error says its disk is full (see _DISK_FULL_WORDS), not that it is down."""
    cause = getattr(error, "orig", None) or error
    if getattr(cause, "sqlstate", None) == "53100":
        return True
    said = str(cause).lower()
    return any(words in said for words in _DISK_FULL_WORDS)


def refusal(error: BaseException) -> str:
    """What a request refused by a database fault (service_down) tells its user, logged with the cause
    (the log says "disk is full", or which error and its first line, never the statement's values)."""
    if disk_full(error):
        log.error("the database's disk is full: %s", str(getattr(error, "orig", None) or error).splitlines()[0][:200])
        return DISK_FULL
    cause = getattr(error, "orig", None) or error
    log.warning("the database is not answering: %s: %s", cause.__class__.__name__,
                (str(cause).splitlines() or [""])[0][:200])
    return DATABASE_DOWN
# … and what it tells when the action was committed before the database went (its answer was lost).
SAVED_THEN_DOWN = ("What you did was saved, but the league's database stopped answering before this screen could "
                   "show it: reload in a few seconds to see it.")
MAYBE_SAVED_THEN_DOWN = ("The league's database stopped answering while saving what you did, so it may or may not "
                         "have been saved: reload in a few seconds to see, before you tap again.")


def service_down(error: BaseException) -> bool:
    """Whether a database error means the server is unreachable or restarting (PostgreSQL stopped,
    the connection cut, SQLite locked past its busy timeout), not a fault of the request: such a
    request is refused with 503 and changes nothing; the pool reconnects by itself afterwards."""
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, exc.OperationalError | exc.InterfaceError | exc.DisconnectionError | exc.TimeoutError)


def _database() -> str:
    try:
        with db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return OK
    except Exception as problem:  # noqa: BLE001  (any failure is "down", never a 500)
        if disk_full(problem):
            log.error("health: the database's disk is full")
            return FULL
        log.warning("health: the database does not answer: %s", problem.__class__.__name__)
        return "down"


def _redis(app: Flask) -> str:
    url = app.config.get("REDIS_URL")
    if not url:
        return NOT_CONFIGURED
    try:
        client = app.extensions.get("health_redis")
        if client is None:
            import redis
            timeout = float(app.config.get("SERVICE_TIMEOUT_S") or 3)
            client = app.extensions["health_redis"] = redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout)
        client.ping()
        return OK
    except Exception as problem:  # noqa: BLE001
        log.warning("health: Redis does not answer: %s", problem.__class__.__name__)
        return "down"


def _disk_paths(app: Flask) -> list[str]:
    """Where the app writes: its instance folder (config, uploads spooled, backups) and, on SQLite, the
    database file's folder."""
    paths = [app.instance_path]
    uri = str(app.config.get("SQLALCHEMY_DATABASE_URI") or "")
    if uri.startswith("sqlite:///") and uri != "sqlite:///:memory:":
        paths.append(os.path.dirname(os.path.abspath(uri.removeprefix("sqlite:///"))))
    return paths


def free_bytes(path: str) -> int:
    """Free space on `path`'s filesystem for this user (shutil.disk_usage)."""
    return shutil.disk_usage(path).free


def _disk(app: Flask) -> str:
    """"full" when a filesystem the app writes to has less free space than DISK_MIN_FREE_MB (the log
    names which and how much), else "ok"; a folder that does not exist is not checked."""
    least = int(app.config.get("DISK_MIN_FREE_MB") or 0) * 1024 * 1024
    for path in _disk_paths(app):
        try:
            free = free_bytes(path)
        except OSError:
            continue
        if free < least:
            log.error("health: the disk of %s is full: %d MB free, under DISK_MIN_FREE_MB (%d)", path,
                      free // (1024 * 1024), least // (1024 * 1024))
            return FULL
    return OK


def check() -> dict[str, str]:
    """Each service's state: "ok", "down", or for Redis "not configured" (one process, notices in it),
    and the disk "ok" or "full". Two cheap round trips (SELECT 1, PING) and a statvfs per folder, no
    login, nothing written."""
    app = current_app._get_current_object()
    return {"database": _database(), "redis": _redis(app), "disk": _disk(app)}


def healthy(states: dict[str, str]) -> bool:
    """Fit to serve: nothing is down."""
    return all(state in (OK, NOT_CONFIGURED) for state in states.values())
