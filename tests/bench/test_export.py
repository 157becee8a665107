"""A whole league to one file and back (services/export.py) on the 5-year league (~200,000 results at
SHUFFLEUP_BENCH_SCALE=full). Targets: export <= 10 s, import into an empty database <= 30 s, memory
during each <= 300 MiB. Plain `make test` runs each once at small scale and checks the answers: the
round trip gives back the same file, and the memory bound holds (tracemalloc's peak)."""
import hashlib
import os
import shutil
import tracemalloc

import pytest

from services import export
from services.models import League
from tests.bench import history
from tests.conftest import make_app
from wiring.extensions import db

MEMORY_LIMIT = 300 * 1024 * 1024


def _export(path) -> int:
    league = db.session.scalar(db.select(League).where(League.name == history.LEAGUE))
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        rows = export.export_league(league, out)
    db.session.rollback()  # end the read transaction
    return rows


def _digest(path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


@pytest.fixture
def league_file(history_db, tmp_path):
    """The league exported once (not timed), for the import benchmark."""
    path, _ = history_db
    app = make_app(path)
    target = tmp_path / "league.json"
    with app.app_context():
        _export(target)
        db.session.remove()
        db.engine.dispose()
    return target


def test_export_league(benchmark, history_app, tmp_path):
    _, built = history_app
    target = tmp_path / "league.json"
    rows = benchmark.pedantic(_export, args=(target,), rounds=3 if history.FULL else 1, warmup_rounds=0)
    assert rows > built.results + built.events + built.tickets  # and the members, venues, league
    assert os.path.getsize(target) > built.results * 20


def test_import_league(benchmark, migrated_db, tmp_path, league_file, history_db):
    _, built = history_db
    path = tmp_path / "empty.db"
    state = {}

    def empty_database():
        """A fresh copy of the migrated database (not timed), and an app on it."""
        if "app" in state:
            db.session.remove()
            db.engine.dispose()
            state["context"].pop()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{path}{suffix}"):
                os.remove(f"{path}{suffix}")
        shutil.copy(migrated_db, path)
        state["app"] = make_app(path)
        state["context"] = state["app"].app_context()
        state["context"].push()
        return (), {}

    def import_file():
        with open(league_file, "rb") as source:
            summary = export.import_league(source)
        db.session.commit()
        return summary

    summary = benchmark.pedantic(import_file, setup=empty_database, rounds=3 if history.FULL else 1, warmup_rounds=0)
    try:
        assert summary.rows["entries"] == built.results and summary.rows["tickets"] == built.tickets
        again = tmp_path / "again.json"
        _export(again)
        assert _digest(again) == _digest(league_file)  # the round trip: the same file
    finally:
        db.session.remove()
        db.engine.dispose()
        state["context"].pop()


def test_export_and_import_memory(migrated_db, tmp_path, league_file, history_db):
    """Both stream: the peak of Python's allocations stays under the bound, whatever the league's size."""
    path, _ = history_db
    app = make_app(path)
    tracemalloc.start()
    try:
        with app.app_context():
            _export(tmp_path / "measured.json")
            db.session.remove()
            db.engine.dispose()
        _, exporting = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        target = tmp_path / "empty.db"
        shutil.copy(migrated_db, target)
        empty = make_app(target)
        with empty.app_context():
            with open(league_file, "rb") as source:
                export.import_league(source)
            db.session.commit()
            db.session.remove()
            db.engine.dispose()
        _, importing = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert exporting < MEMORY_LIMIT and importing < MEMORY_LIMIT
    print(f"\npeak memory: export {exporting / 2**20:.0f} MiB, import {importing / 2**20:.0f} MiB")
