"""A full disk told truly: a write refused because the database's disk is full answers 503 naming
the full disk (page, htmx fragment, JSON) and writes nothing; the log says so; /healthz answers 503
with "disk": "full" when the instance folder's or the SQLite file's filesystem has less free space
than DISK_MIN_FREE_MB, and names nothing full otherwise."""
import contextlib
import logging

import pytest
import sqlalchemy as sa

from services.models import Member
from tests.conftest import csrf_token, login, make_app
from wiring import health
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("each driver says its disk is full in its own words (SQLITE_FULL, "
                                        "PostgreSQL's disk_full)")


def disk_full_error(on_postgresql: bool) -> Exception:
    """What the driver raises when a write finds the disk full."""
    if on_postgresql:
        import psycopg
        return psycopg.errors.DiskFull('could not extend file "base/16384/2619": No space left on device')
    import sqlite3
    return sqlite3.OperationalError("database or disk is full")


@contextlib.contextmanager
def disk_filled(on_postgresql: bool):
    """Inside: every INSERT, UPDATE or DELETE fails in the driver as on a full disk (SQLAlchemy wraps
    the driver's error as it would the real one); reads still answer."""
    dialect = db.engine.dialect
    execute, executemany = dialect.do_execute, dialect.do_executemany

    def writes(statement: str) -> bool:
        return statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")

    def do_execute(cursor, statement, parameters, context=None):
        if writes(statement):
            raise disk_full_error(on_postgresql)
        return execute(cursor, statement, parameters, context)

    def do_executemany(cursor, statement, parameters, context=None):
        if writes(statement):
            raise disk_full_error(on_postgresql)
        return executemany(cursor, statement, parameters, context)

    dialect.do_execute, dialect.do_executemany = do_execute, do_executemany
    try:
        yield
    finally:
        del dialect.do_execute, dialect.do_executemany


def _members() -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(Member))


def test_a_write_on_a_full_disk_is_a_503_naming_the_disk_and_nothing_is_written(app, client, night, on_postgresql,
                                                                                caplog):
    login(client, "host", "pw-host")
    night_id = night.id
    token = csrf_token(client, f"/host/events/{night_id}")
    before = _members()
    with disk_filled(on_postgresql), caplog.at_level(logging.WARNING, logger="wiring.health"):
        answer = client.post(f"/host/events/{night_id}/players", headers={"HX-Request": "true"},
                             data={"op": "join", "name": "On A Full Disk", "adult": "yes", "csrf_token": token})
    body = answer.get_data(as_text=True)
    assert answer.status_code == 503 and "disk is full" in body and "Nothing was changed" in body
    assert "not answering" not in body
    assert any(r.levelno == logging.ERROR and "disk is full" in r.getMessage() for r in caplog.records)
    db.session.remove()
    assert _members() == before
    assert "On A Full Disk" not in client.get(f"/host/events/{night_id}/players").get_data(as_text=True)


def test_a_full_disk_page_and_json_say_so(app, client, league, organiser, on_postgresql):
    login(client, "organiser", "pw-organiser")
    token = csrf_token(client, "/organiser/harbour-league/setup")
    with disk_filled(on_postgresql):
        assert client.get("/organiser/harbour-league/setup").status_code == 200  # reads still answer
        page = client.post("/organiser/harbour-league/venues", data={"name": "Anchor", "csrf_token": token})
        html = page.get_data(as_text=True)
        assert page.status_code == 503 and "The disk is full" in html and "operator" in html
        assert '<meta http-equiv="refresh"' not in html  # a POST is not retried by itself
        script = client.post("/organiser/harbour-league/venues", data={"name": "Anchor", "csrf_token": token},
                             headers={"Accept": "application/json"})
        assert script.status_code == 503 and script.get_json()["error"] == health.DISK_FULL


def test_an_outage_is_still_told_as_one(app, client, league, organiser, on_postgresql, caplog):
    import sqlite3
    outage = sa.exc.OperationalError("INSERT", {}, sqlite3.OperationalError("unable to open database file"))
    assert not health.disk_full(outage) and health.disk_full(
        sa.exc.OperationalError("INSERT", {}, disk_full_error(on_postgresql)))
    with caplog.at_level(logging.WARNING, logger="wiring.health"):
        assert health.refusal(outage) == health.DATABASE_DOWN
    assert "unable to open database file" in caplog.text  # the log names the cause


def test_healthz_names_a_full_disk(app, client, monkeypatch, caplog):
    assert client.get("/healthz").get_json()["disk"] == "ok"
    monkeypatch.setattr(health, "free_bytes", lambda path: 10 * 1024 * 1024)  # 10 MB left, under 64
    with caplog.at_level(logging.ERROR, logger="wiring.health"):
        answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.get_json()["disk"] == "full"
    assert answer.get_json()["database"] == "ok"
    assert "full" in caplog.text and "10 MB free" in caplog.text


def test_healthz_s_threshold_is_a_setting(db_path, monkeypatch):
    monkeypatch.setattr(health, "free_bytes", lambda path: 10 * 1024 * 1024)
    relaxed = make_app(db_path, DISK_MIN_FREE_MB=5)
    with relaxed.app_context():
        answer = relaxed.test_client().get("/healthz")
        assert answer.status_code == 200 and answer.get_json()["disk"] == "ok"
        db.session.remove()
        db.engine.dispose()


def test_healthz_checks_the_instance_folder_and_the_sqlite_file_s_folder(app, db_path, monkeypatch):
    asked = []
    monkeypatch.setattr(health, "free_bytes", lambda path: asked.append(path) or 10**12)
    app.test_client().get("/healthz")
    assert app.instance_path in asked
    if str(db_path).startswith("postgresql") is False and "://" not in str(db_path):
        assert str(db_path.parent) in asked
