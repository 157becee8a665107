"""Benchmark fixtures: the 5-year league, built once per session into a SQLite file migrated by the real
migrations and cached under the session's pytest tmp dir.

Scale: SHUFFLEUP_BENCH_SCALE=full (set by `make bench`) builds ~200,000 results; otherwise (plain
`make test`, where pytest.ini's --benchmark-disable runs each benchmark once as a test) a small league
builds in about a second. Either way the tests check their answers.
"""
import asyncio
import shutil
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.bench import history
from tests.conftest import make_app
from wiring.extensions import db


@pytest.fixture(autouse=True)
def asyncio_run_beside_the_browsers_loop(monkeypatch):
    """The load clients start with asyncio.run, which refuses to run beside a running event loop; under
    pytest-xdist a worker may have run browser tests first, and Playwright's sync API keeps its loop
    running in the worker's main thread for the rest of the session. There the clients' asyncio.run
    runs in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    own = asyncio.run

    def run(coroutine, **options):
        with ThreadPoolExecutor(1) as thread:
            return thread.submit(own, coroutine, **options).result()

    monkeypatch.setattr(asyncio, "run", run)


@pytest.fixture(scope="session")
def history_db(migrated_db, tmp_path_factory):
    """(path, History): the league's SQLite file, built once per session."""
    path = tmp_path_factory.mktemp("bench") / "history.db"
    shutil.copy(migrated_db, path)
    app = make_app(path)
    with app.app_context():
        started = time.perf_counter()
        built = history.build()
        seconds = time.perf_counter() - started
        db.session.remove()
        db.engine.dispose()
    print(f"\nbuilt {built.results:,} results in {built.events:,} events ({seconds:.1f} s)")
    return path, built


@pytest.fixture
def history_app(history_db):
    """An app context on the built league (the benchmarks only read it)."""
    path, built = history_db
    app = make_app(path)
    with app.app_context():
        yield app, built
        db.session.remove()
        db.engine.dispose()
