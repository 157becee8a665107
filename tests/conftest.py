"""Shared fixtures: an app on a fresh database brought up by the real migrations, SQLite by default,
PostgreSQL with `--db=postgresql` (or SHUFFLEUP_TEST_DATABASE=postgresql): one database migrated per
session and copied for each test (a file copy on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL)."""
import os
import re
import shutil
import uuid
from pathlib import Path

import pytest
from flask import g, request_started
from flask_migrate import upgrade

from app import create_app
from services import leagues
from wiring.extensions import db

# A cheap password hash: the tests set thousands of passwords, and scrypt costs ~50 ms each by design.
TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": True,
               "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1"}
# The server the PostgreSQL runs use (trust auth on loopback); each run's databases carry a name of
# their own, as other runs may share the server.
PG = os.environ.get("SHUFFLEUP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
DATABASES = ("sqlite", "postgresql")


def pytest_addoption(parser):
    parser.addoption("--db", choices=DATABASES, default=os.environ.get("SHUFFLEUP_TEST_DATABASE", "sqlite"),
                     help="the database the web and services tests run on (default: SQLite, or "
                          "$SHUFFLEUP_TEST_DATABASE)")


def pytest_collection_modifyitems(config, items):
    """A test runs on both databases only for a reason it states (`make test-pg` runs those)."""
    for item in items:
        for mark in item.iter_markers("both_databases"):
            if not (mark.args and str(mark.args[0]).strip()):
                raise pytest.UsageError(f"{item.nodeid}: both_databases needs the reason it runs on PostgreSQL too")


def pytest_report_header(config):
    return f"database: {config.getoption('--db')}"


def database_uri(database) -> str:
    """The SQLAlchemy URI of `database`: a SQLite file's path or a PostgreSQL URL."""
    text = str(database)
    return text if "://" in text else f"sqlite:///{text}"


def make_app(database, **extra):
    """An app on `database` (a SQLite file's path or a PostgreSQL URL), the test config plus `extra`."""
    uri = database_uri(database)
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": uri}
    if uri.startswith("postgresql"):
        # Tests need no durability: not waiting for the WAL flush on each commit makes a busy
        # machine's PostgreSQL runs several times faster (this session's setting only).
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {"connect_args": {"options": "-c synchronous_commit=off"}}
    app = create_app({**config, **extra})
    # The `app` fixture keeps one app context open for the whole test, and Flask reuses an open
    # context for requests, so `g` (the logged-in user, the CSRF token) would leak from one test
    # client to another. Start every request with an empty `g`, as a server does.
    request_started.connect(lambda sender, **kwargs: g.__dict__.clear(), app, weak=False)
    return app


class SQLiteFiles:
    """Databases as files under pytest's temporary folders."""

    kind = "sqlite"

    def empty(self, folder: Path) -> Path:
        return folder / f"league-{uuid.uuid4().hex[:8]}.db"

    def copy(self, source: Path, folder: Path) -> Path:
        path = self.empty(folder)
        shutil.copy(source, path)
        return path

    def drop(self, database: Path) -> None:
        """Nothing to do: pytest clears its temporary folders."""


class PostgreSQLDatabases:
    """Databases on the test server, named shuffleup_t_<random> so that runs never meet; a copy is
    `CREATE DATABASE … TEMPLATE source` (the source must have no connection open).

    Creating and dropping a database costs 1–2 s on a busy machine, so each test process copies the
    migrated one once (`working`) and `reset` brings that copy back to the template's state between
    tests: every row deleted and every sequence restarted, in one transaction (the migrations write
    no rows but alembic_version's, which stays)."""

    kind = "postgresql"

    def __init__(self, server: str = PG) -> None:
        self.server = server
        self.base = server.rsplit("/", 1)[0]
        self.made: list[str] = []

    def _admin(self, sql: str) -> None:
        import psycopg
        with psycopg.connect(self.server, autocommit=True) as admin:
            admin.execute(sql)

    def empty(self, folder=None, template: str | None = None) -> str:
        name = "shuffleup_t_" + uuid.uuid4().hex[:12]
        self._admin(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        self.made.append(name)
        return f"{self.base}/{name}"

    def copy(self, source: str, folder=None) -> str:
        return self.empty(template=source.rsplit("/", 1)[1])

    def drop(self, database: str) -> None:
        name = database.rsplit("/", 1)[1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self.made:
            self.made.remove(name)

    def reset(self, database: str, template: str) -> str:
        """`database` as a fresh copy of `template` again; a new copy if something still holds it."""
        import psycopg

        from services import models  # noqa: F401  (the tables, in foreign-key order)
        tables = [table.name for table in reversed(db.metadata.sorted_tables)]
        try:
            with psycopg.connect(database, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '5s'")
                conn.execute("SET synchronous_commit = off")
                with conn.transaction():
                    for table in tables:
                        conn.execute(f'DELETE FROM "{table}"')
                    for (sequence,) in conn.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"):
                        conn.execute(f'ALTER SEQUENCE "{sequence}" RESTART')
            return database
        except psycopg.Error:
            self.drop(database)
            return self.copy(template)


def close(app) -> None:
    """Let go of every connection the app holds (a PostgreSQL copy needs its source idle)."""
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture(scope="session")
def databases(request):
    """How this run makes its databases (SQLiteFiles or PostgreSQLDatabases); on PostgreSQL, any
    database of this run still there at the end is dropped."""
    if request.config.getoption("--db") != "postgresql":
        yield SQLiteFiles()
        return
    databases = PostgreSQLDatabases()
    yield databases
    for name in list(databases.made):
        databases.drop(f"{databases.base}/{name}")


@pytest.fixture(scope="session")
def on_postgresql(databases) -> bool:
    return databases.kind == "postgresql"


@pytest.fixture
def empty_database(databases, tmp_path):
    """A database with no tables (for the migration tests)."""
    database = databases.empty(tmp_path)
    yield database
    databases.drop(database)


@pytest.fixture(scope="session")
def migrated_db(databases, tmp_path_factory):
    """One database migrated to head per test session; each test gets its own copy."""
    database = databases.empty(tmp_path_factory.mktemp("template"))
    app = make_app(database)
    with app.app_context():
        upgrade()
    close(app)
    yield database
    databases.drop(database)


@pytest.fixture(scope="session")
def pg_working_copy(databases, migrated_db):
    """PostgreSQL only: this process's copy of the migrated database, reset before each test."""
    holder = [databases.copy(migrated_db)]
    yield holder
    databases.drop(holder[0])


@pytest.fixture
def db_path(request, databases, migrated_db, tmp_path):
    """This test's copy of the migrated database (a path on SQLite, a URL on PostgreSQL)."""
    if databases.kind == "sqlite":
        return databases.copy(migrated_db, tmp_path)
    holder = request.getfixturevalue("pg_working_copy")
    holder[0] = databases.reset(holder[0], migrated_db)
    return holder[0]


@pytest.fixture
def app(db_path):
    app = make_app(db_path)
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


def csrf_token(client, path="/login"):
    """The CSRF token a page gives this client (as a browser would read it from the form)."""
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def login(client, username, password):
    """Log in through the real form, CSRF token included."""
    return client.post("/login", data={"username": username, "password": password,
                                       "csrf_token": csrf_token(client)})


@pytest.fixture
def league(app):
    """A free-to-play league with pass-down, committed."""
    league = leagues.create_league("Harbour League", "free")
    db.session.commit()
    return league


@pytest.fixture
def organiser(app, league):
    """An organiser login of the league (username organiser, password pw-organiser)."""
    from services.models import User
    user = User(username="organiser", display_name="Olive", role="organiser", league_id=league.id)
    user.set_password("pw-organiser")
    host = User(username="host", display_name="Harry", role="host", league_id=league.id)
    host.set_password("pw-host")
    db.session.add_all([user, host])
    db.session.commit()
    return user
