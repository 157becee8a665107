"""Is the app fit to serve: the database and Redis each answer (the health endpoint), and which
errors mean a service is down rather than a bug (answered 503, "try again", never 500)."""
from __future__ import annotations

import logging

from flask import Flask, current_app
from sqlalchemy import exc, text

from wiring.extensions import db

log = logging.getLogger(__name__)
OK = "ok"
NOT_CONFIGURED = "not configured"
# What a request refused while the database is down tells the user (a page's, an API's, a line's tap).
DATABASE_DOWN = "The league's database is not answering just now. Nothing was changed: try again in a few seconds."
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


def check() -> dict[str, str]:
    """Each service's state: "ok", "down", or for Redis "not configured" (one process, notices in it).
    Two cheap round trips (SELECT 1, PING), no login, nothing written."""
    return {"database": _database(), "redis": _redis(current_app._get_current_object())}


def healthy(states: dict[str, str]) -> bool:
    """Fit to serve: nothing is down."""
    return all(state in (OK, NOT_CONFIGURED) for state in states.values())
