"""Backups of the whole league database and their restore, while a night runs (README "Running it
for real", docs/deploy.md).

SQLite: the online backup API of sqlite3 copies a consistent snapshot while the host keeps
writing (WAL: the copy reads one moment's pages, writers are not held up). PostgreSQL: `pg_dump`
in its custom format (one consistent snapshot too), restored with `pg_restore` in one transaction.
A restore checks the file first (a whole, readable backup of a ShuffleUp database whose schema
this code knows) and refuses to overwrite a database that holds anything unless told to.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import URL, Engine

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
# Tables every ShuffleUp database has had since the first migration.
CORE_TABLES = {"alembic_version", "leagues", "members", "events", "entries", "users"}


class BackupError(Exception):
    """The backup or restore could not be done; nothing was changed. The message says why."""


@dataclass(frozen=True)
class BackupFile:
    """What a checked backup file holds: the database kind and its schema's migration revision."""
    kind: str  # "sqlite" or "postgresql"
    revision: str


def kind_of(engine: Engine) -> str:
    """The database kind the app runs on: "sqlite" or "postgresql"."""
    name = engine.url.get_backend_name()
    if name not in ("sqlite", "postgresql"):
        raise BackupError(f"backups are made for SQLite and PostgreSQL, not {name}")
    return name


def _sqlite_path(engine: Engine) -> str:
    path = engine.url.database
    if not path or path == ":memory:" or engine.url.query.get("mode") == "memory":
        raise BackupError("an in-memory SQLite database has no file to back up or restore")
    return path


def _pg_environment(url: URL) -> dict[str, str]:
    """libpq's environment for pg_dump and pg_restore: the password stays out of the command line
    (where `ps` would show it)."""
    env = dict(os.environ)
    for variable, value in (("PGHOST", url.host), ("PGPORT", url.port), ("PGUSER", url.username),
                            ("PGPASSWORD", url.password), ("PGDATABASE", url.database),
                            ("PGSSLMODE", url.query.get("sslmode"))):
        if value:
            env[variable] = str(value)
    return env


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return found


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-1500:]}")
    return done


def backup(engine: Engine, file: str | os.PathLike) -> None:
    """Write a backup of the whole database to `file` (replaced whole when it exists, only once the
    copy is complete): a consistent snapshot even while a night is being played."""
    target = Path(file)
    partial = target.with_name(target.name + ".partial")
    try:
        if kind_of(engine) == "sqlite":
            source = sqlite3.connect(f"file:{_sqlite_path(engine)}?mode=ro", uri=True)
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
            finally:
                copy.close()
                source.close()
        else:
            _run([_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}"],
                 _pg_environment(engine.url))
        os.replace(partial, target)
    except sqlite3.Error as problem:
        raise BackupError(f"the database could not be read: {problem}") from None
    finally:
        partial.unlink(missing_ok=True)


def _sqlite_revision(path: Path) -> str:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if connection.execute("PRAGMA integrity_check").fetchone() != ("ok",):
                raise BackupError(f"{path} is damaged (SQLite's integrity check fails)")
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables >= CORE_TABLES:
                raise BackupError(f"{path} is an SQLite database but not a ShuffleUp one")
            row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as problem:
        raise BackupError(f"{path} cannot be read as a backup: {problem}") from None
    if row is None:
        raise BackupError(f"{path} has no schema revision")
    return row[0]


def _pg_revision(path: Path) -> str:
    env = dict(os.environ)
    listing = _run([_tool("pg_restore"), "--list", str(path)], env).stdout
    tables = {line.split(" TABLE DATA public ", 1)[1].split()[0] for line in listing.splitlines()
              if " TABLE DATA public " in line}
    if not tables >= CORE_TABLES:
        raise BackupError(f"{path} is a PostgreSQL dump but not of a ShuffleUp database")
    data = _run([_tool("pg_restore"), "--data-only", "--table=alembic_version", "--file=-", str(path)], env).stdout
    lines = data.splitlines()
    for at, line in enumerate(lines):
        if line.startswith("COPY public.alembic_version") and at + 1 < len(lines) and lines[at + 1] != "\\.":
            return lines[at + 1].strip()
    raise BackupError(f"{path} has no schema revision")


def check(file: str | os.PathLike, known_revisions: set[str]) -> BackupFile:
    """Read a backup file through before anything is restored from it: its kind (SQLite database
    or pg_dump archive), that it is whole and a ShuffleUp database, and that its schema is one this
    code knows (a backup from a newer version is refused). Raises BackupError saying what is wrong."""
    path = Path(file)
    try:
        with path.open("rb") as opened:
            head = opened.read(len(SQLITE_MAGIC))
    except OSError as problem:
        raise BackupError(f"{path} cannot be read: {problem.strerror}") from None
    if head.startswith(SQLITE_MAGIC):
        found = BackupFile("sqlite", _sqlite_revision(path))
    elif head.startswith(PG_MAGIC):
        found = BackupFile("postgresql", _pg_revision(path))
    else:
        raise BackupError(f"{path} is neither an SQLite backup nor a pg_dump archive")
    if found.revision not in known_revisions:
        raise BackupError(f"{path} has schema revision {found.revision!r}, which this version of ShuffleUp "
                          "does not know: restore it with the version that made it")
    return found


def is_empty(engine: Engine) -> bool:
    """Whether the database holds no rows (no tables yet, or a fresh migrated schema)."""
    with engine.connect() as connection:
        for table in inspect(connection).get_table_names():
            if table == "alembic_version":
                continue
            quoted = connection.dialect.identifier_preparer.quote(table)
            if connection.execute(text(f"SELECT 1 FROM {quoted} LIMIT 1")).first() is not None:  # noqa: S608
                return False
    return True


def restore(engine: Engine, file: str | os.PathLike, known_revisions: set[str], *, replace: bool = False) -> BackupFile:
    """Put the database back as the backup `file` holds it: checked first (`check`), refused onto a
    database that holds anything unless `replace`, and done whole or not at all. Stop the app's
    processes first: their connections would keep writing to what is being replaced."""
    found = check(file, known_revisions)
    kind = kind_of(engine)
    if found.kind != kind:
        raise BackupError(f"the backup is of a {found.kind} database and this app runs on {kind}")
    if not replace and not is_empty(engine):
        raise BackupError("the database already holds a league: add --replace to overwrite it")
    engine.dispose()
    if kind == "sqlite":
        try:
            source = sqlite3.connect(f"file:{Path(file)}?mode=ro", uri=True)
            target = sqlite3.connect(_sqlite_path(engine))
            try:
                source.backup(target)  # page by page into the target, in one write transaction
            finally:
                target.close()
                source.close()
        except sqlite3.Error as problem:
            raise BackupError(f"the restore failed, the database is as it was: {problem}") from None
    else:
        command = [_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
                   f"--dbname={engine.url.database}"]
        if replace:
            command += ["--clean", "--if-exists"]
        _run([*command, str(file)], _pg_environment(engine.url))
    return found
