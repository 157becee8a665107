"""The health endpoint, the 503 while the database is down (never a 500), and the request log."""
import json
import logging
import socket
import sqlite3.dbapi2

import pytest
from sqlalchemy import exc

from tests.conftest import make_app
from wiring import health
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("the 503 while the database is down comes from each driver's own errors")


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def down_app(tmp_path):
    """An app whose SQLite file cannot be opened (its folder is missing): the database is down."""
    app = make_app(tmp_path / "missing" / "league.db")
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def test_healthz_answers_ok_without_login(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"database": "ok", "redis": "not configured", "disk": "ok"}
    assert response.headers["Cache-Control"] == "no-store"


def test_healthz_names_redis_when_it_is_down(db_path):
    app = make_app(db_path, REDIS_URL=f"redis://127.0.0.1:{closed_port()}/0", SERVICE_TIMEOUT_S=1)
    with app.app_context():
        response = app.test_client().get("/healthz")
        db.engine.dispose()
    assert response.status_code == 503
    assert response.get_json() == {"database": "ok", "redis": "down", "disk": "ok"}


def test_healthz_names_the_database_when_it_is_down(down_app):
    response = down_app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json() == {"database": "down", "redis": "not configured", "disk": "ok"}


def test_a_page_while_the_database_is_down_is_a_503_page_not_a_500(down_app):
    response = down_app.test_client().get("/leagues/harbour-league")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    page = response.get_data(as_text=True)
    assert "Back in a moment" in page and "Nothing was changed" in page
    assert '<meta http-equiv="refresh"' in page  # a GET tries again by itself


def test_the_api_while_the_database_is_down_answers_json_503(down_app):
    response = down_app.test_client().get("/api/events/1/clock")
    assert response.status_code == 503
    assert "not answering" in response.get_json()["error"]


def test_an_htmx_request_while_the_database_is_down_gets_the_fragment(down_app):
    response = down_app.test_client().get("/leagues/harbour-league", headers={"HX-Request": "true"})
    assert response.status_code == 503
    body = response.get_data(as_text=True)
    assert body.startswith('<p class="error" role="alert">') and "<html" not in body


def test_a_post_while_the_database_is_down_is_refused_without_a_retrying_page(down_app):
    down_app.config["WTF_CSRF_ENABLED"] = False
    response = down_app.test_client().post("/login", data={"username": "host", "password": "pw-host"})
    assert response.status_code == 503
    page = response.get_data(as_text=True)
    assert "Go back and tap again" in page and "http-equiv" not in page


def refuse_connections(app, monkeypatch) -> None:
    """The database down: every new connection refused by the driver SQLAlchemy connects through
    (sqlite3, or psycopg on a --db=postgresql run)."""
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        import psycopg

        def refused(*args, **kwargs):
            raise psycopg.OperationalError("connection refused")
        monkeypatch.setattr(psycopg, "connect", refused)
        return

    def refused(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")
    monkeypatch.setattr(sqlite3.dbapi2, "connect", refused)


def test_a_logged_in_host_while_the_database_goes_down_gets_503s(app, client, night, monkeypatch):
    from tests.conftest import csrf_token, login
    login(client, "host", "pw-host")
    token = csrf_token(client, f"/host/events/{night.id}")
    db.session.remove()
    db.engine.dispose()

    refuse_connections(app, monkeypatch)
    page = client.get(f"/host/events/{night.id}")
    assert page.status_code == 503 and "Back in a moment" in page.get_data(as_text=True)
    tapped = client.post(f"/host/events/{night.id}/players", headers={"HX-Request": "true"},
                         data={"op": "join", "name": "During Outage", "adult": "yes", "csrf_token": token})
    assert tapped.status_code == 503 and "Nothing was changed" in tapped.get_data(as_text=True)
    monkeypatch.undo()
    assert client.get(f"/host/events/{night.id}").status_code == 200  # back by itself
    assert "During Outage" not in client.get(f"/host/events/{night.id}/players").get_data(as_text=True)


def test_a_heartbeat_rounds_catch_up_read_during_an_outage_is_skipped_not_fatal(app, night, monkeypatch):
    read = app.extensions["notices"].stored_versions  # the hub's, as the live blueprint gave it
    assert read([night.id, night.id + 1000]) == {night.id: night.clock_version}  # no such night: left out
    db.session.remove()
    db.engine.dispose()

    refuse_connections(app, monkeypatch)
    assert read([night.id]) is None  # the streams send their heartbeats and wait on
    monkeypatch.undo()
    assert read([night.id]) == {night.id: night.clock_version}


def test_only_outages_count_as_a_service_down():
    assert health.service_down(exc.OperationalError("SELECT 1", {}, Exception("server closed the connection")))
    assert health.service_down(exc.DBAPIError("SELECT 1", {}, Exception("gone"), connection_invalidated=True))
    assert not health.service_down(exc.IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed")))
    assert not health.service_down(exc.DataError("INSERT", {}, Exception("bad value")))


def test_postgresql_gets_pre_ping_and_a_connect_timeout(tmp_path):
    from wiring.config import server_engine_options
    options = server_engine_options({"SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://u@h/db", "SERVICE_TIMEOUT_S": 2})
    assert options == {"pool_pre_ping": True, "connect_args": {"connect_timeout": 2}}


def _lines(caplog):
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "shuffleup.requests"]


def test_every_request_is_one_json_line(client, caplog):
    caplog.set_level(logging.INFO, logger="shuffleup.requests")
    response = client.get("/api/time?code=secret-code")
    lines = _lines(caplog)
    assert len(lines) == 1
    line = lines[0]
    assert set(line) == {"time", "method", "path", "status", "duration_ms", "request_id", "remote"}
    assert (line["method"], line["path"], line["status"]) == ("GET", "/api/time", 200)
    assert "secret-code" not in json.dumps(line)
    assert line["time"].endswith("Z") and line["duration_ms"] >= 0
    assert response.headers["X-Request-ID"] == line["request_id"] and len(line["request_id"]) == 32


def test_the_proxys_request_id_is_kept_and_a_garbled_one_replaced(client, caplog):
    caplog.set_level(logging.INFO, logger="shuffleup.requests")
    client.get("/healthz", headers={"X-Request-ID": "nginx-4f2a"})
    client.get("/healthz", headers={"X-Request-ID": "bad id {\"x\": 1}"})
    first, second = _lines(caplog)
    assert first["request_id"] == "nginx-4f2a"
    assert second["request_id"] != "bad id {\"x\": 1}" and len(second["request_id"]) == 32


def test_refusals_and_missing_pages_are_logged_with_their_status(client, caplog):
    caplog.set_level(logging.INFO, logger="shuffleup.requests")
    client.get("/api/events/999/clock")
    client.post("/login", data={"username": "x"})  # no CSRF token: refused
    assert [(line["path"], line["status"]) for line in _lines(caplog)] == [("/api/events/999/clock", 404),
                                                                           ("/login", 400)]


def test_a_stream_is_logged_when_it_starts(client, night, caplog):
    caplog.set_level(logging.INFO, logger="shuffleup.requests")
    response = client.get(f"/events/{night.id}/stream")
    response.close()
    (line,) = _lines(caplog)
    assert line["stream"] is True and line["status"] == 200


def test_the_request_log_can_be_turned_off(db_path, caplog):
    caplog.set_level(logging.INFO, logger="shuffleup.requests")
    app = make_app(db_path, REQUEST_LOG=False)
    with app.app_context():
        app.test_client().get("/healthz")
        db.engine.dispose()
    assert _lines(caplog) == []
