"""Structured request logs: one JSON line per request on the `shuffleup.requests` logger (time,
method, path without its query, status, duration, request id), for a log collector to read.

The query string is left out: check-in and member-card codes and search terms ride in it. The id
comes from the proxy's X-Request-ID when it sends a sane one (nginx: `$request_id`), so the app's
line and nginx's match, and goes back on the response. A stream's line is written when it starts
(`"stream": true`): its duration is the time to the first byte, not the hours it stays open.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
import time
import uuid

from flask import Flask, Response, request

log = logging.getLogger("shuffleup.requests")
STARTED = "shuffleup.started"
REQUEST_ID = "shuffleup.request_id"
SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class JsonLines(logging.Formatter):
    """The record's message is already a JSON object: write it as is, one line."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage()


def _start() -> None:
    request.environ[STARTED] = time.perf_counter()
    given = request.headers.get("X-Request-ID", "")
    request.environ[REQUEST_ID] = given if SANE_ID.fullmatch(given) else uuid.uuid4().hex


def request_id() -> str:
    """This request's id (the proxy's, or one made here)."""
    return request.environ.get(REQUEST_ID) or ""


def _finish(response: Response) -> Response:
    started = request.environ.get(STARTED)
    if started is None:  # a request that failed before its first hook
        _start()
        started = request.environ[STARTED]
    response.headers.setdefault("X-Request-ID", request_id())
    line = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "method": request.method,
        "path": request.path,
        "status": response.status_code,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        "request_id": request_id(),
        "remote": request.remote_addr,
    }
    if response.is_streamed:
        line["stream"] = True
    log.info(json.dumps(line, ensure_ascii=False))
    return response


def init_app(app: Flask) -> None:
    """Log every request unless REQUEST_LOG is off. Without a handler of its own (a logging config
    from gunicorn's --log-config, say), the logger writes to stderr, which gunicorn, systemd and
    docker collect; it never repeats into the root logger."""
    if not app.config.get("REQUEST_LOG"):
        return
    # Alembic's env.py runs logging.config.fileConfig, which disables every logger that exists
    # then: an upgrade in this process (the tests, `make run`'s first start) would silence this one.
    log.disabled = False
    if not log.handlers and not app.testing:  # tests read the records through pytest's caplog
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    app.before_request(_start)
    app.after_request(_finish)
