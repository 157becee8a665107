"""A whole league to one file and back (services/export.py) on the 5-year league (~200,000 results at
SHUFFLEUP_BENCH_SCALE=full). Targets: export <= 10 s, import into an empty database <= 30 s, memory
during each <= 300 MiB. Timed twice: inside this process (the service alone), and as the organiser
runs it, `flask league export` / `flask league import` in a child process (start-up included), whose
peak resident memory the child reports as it exits (Linux's VmHWM: every page the process held,
Python's, SQLite's page cache and the libraries', not only Python's allocations). Plain
`make test` runs each once at small scale and checks the answers: the round trip gives back the same
file, and both memory bounds hold (tracemalloc's peak in-process, the child's peak RSS)."""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from services import export
from services.models import League
from tests.bench import history
from tests.conftest import database_uri, make_app
from wiring.extensions import db

MEMORY_LIMIT = 300 * 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]


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


# The child runs Flask's command line itself and, as it exits, prints its own high-water mark of resident
# memory (VmHWM, Linux): that of this process image only. (ru_maxrss from wait4 would also count the
# test process's pages the child held between fork and exec: 150 MiB of pytest, not the command's.)
LAUNCH = """import atexit, sys
def peak():
    with open("/proc/self/status") as status:
        print("peak " + next(line for line in status if line.startswith("VmHWM:")), end="", file=sys.stderr)
atexit.register(peak)
sys.argv[0] = "flask"
from flask.cli import main
main()
"""


def _cli(database, *args: str) -> tuple[float, int, str]:
    """`flask --app app league ARGS` in a child process on `database`, as the organiser runs it: its wall
    time (start-up included), its peak resident set size in bytes (VmHWM) and what it printed."""
    env = {**os.environ, "DATABASE_URL": database_uri(database)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LAUNCH, "--app", "app", "league", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stdout + done.stderr
    peak = re.search(r"^peak VmHWM:\s+(\d+) kB$", done.stderr, flags=re.M)
    assert peak, done.stderr
    return seconds, int(peak.group(1)) * 1024, done.stdout


def _report(benchmark, what: str, runs: list[tuple[float, int]]) -> None:
    peak = max(rss for _, rss in runs)
    benchmark.extra_info["peak_rss_mib"] = round(peak / 2**20, 1)
    benchmark.extra_info["seconds"] = [round(seconds, 3) for seconds, _ in runs]
    print(f"\n{what}: {len(runs)} runs, wall {', '.join(f'{s:.2f}' for s, _ in runs)} s, "
          f"peak RSS {', '.join(f'{rss / 2**20:.0f}' for _, rss in runs)} MiB")


def test_export_cli(benchmark, history_db, tmp_path):
    """`flask league export` of the 5-year league: wall time and the child's peak RSS."""
    path, built = history_db
    target = tmp_path / "cli.json"
    runs = []

    def export_cli():
        seconds, rss, printed = _cli(path, "export", "--league", history.LEAGUE, str(target))
        runs.append((seconds, rss))
        return printed

    printed = benchmark.pedantic(export_cli, rounds=3 if history.FULL else 1, warmup_rounds=0)
    _report(benchmark, "flask league export", runs)
    assert f"Exported {history.LEAGUE}: " in printed and os.path.getsize(target) > built.results * 20
    assert max(rss for _, rss in runs) < MEMORY_LIMIT


def test_import_cli(benchmark, migrated_db, tmp_path, league_file, history_db):
    """`flask league import` of the 5-year league's file into an empty database (a fresh copy of the
    migrated one each round, not timed): wall time and the child's peak RSS."""
    _, built = history_db
    path = tmp_path / "empty-cli.db"
    runs = []

    def empty_database():
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{path}{suffix}"):
                os.remove(f"{path}{suffix}")
        shutil.copy(migrated_db, path)
        return (), {}

    def import_cli():
        seconds, rss, printed = _cli(path, "import", str(league_file))
        runs.append((seconds, rss))
        return printed

    printed = benchmark.pedantic(import_cli, setup=empty_database, rounds=3 if history.FULL else 1, warmup_rounds=0)
    _report(benchmark, "flask league import", runs)
    assert f"Imported {history.LEAGUE}: " in printed and max(rss for _, rss in runs) < MEMORY_LIMIT
    app = make_app(path)
    with app.app_context():
        again = tmp_path / "again-cli.json"
        _export(again)
        db.session.remove()
        db.engine.dispose()
    assert _digest(again) == _digest(league_file)  # the CLI's import round-trips too
