"""`flask league backup` and `league restore` on SQLite: a backup taken while a night is being
written is the committed night exactly; restored into an empty database it is the same night;
a restore checks its file and never overwrites a league unless told to."""
import sqlite3
import threading

import pytest

from tests.conftest import SQLiteFiles, close, make_app
from tests.fixtures.host import fill, host_op, tap
from tests.fixtures.roster import draw_seats
from wiring.extensions import db


# SQLite's online backup, on SQLite files whatever database the run uses (--db): PostgreSQL's
# backup is pg_dump's.
@pytest.fixture(scope="module")
def migrated_db(tmp_path_factory):
    from flask_migrate import upgrade
    path = tmp_path_factory.mktemp("sqlite-template") / "league.db"
    app = make_app(path)
    with app.app_context():
        upgrade()
    close(app)
    return path


@pytest.fixture
def db_path(migrated_db, tmp_path):
    return SQLiteFiles().copy(migrated_db, tmp_path)


def dump(path) -> list[str]:
    """Every table's schema and rows, as SQL: two databases with the same dump hold the same league."""
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.fixture
def played(client, night):
    """A night under way: six players in, seats drawn, the clock running."""
    fill(client, night, 6)
    draw_seats(night)
    tap(client, night, "start")
    db.session.remove()
    return night


def restore_into(path, backup, *args):
    """Run `league restore` on a new app over the SQLite file at `path`."""
    app = make_app(path)
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["league", "restore", str(backup), *args])
        db.session.remove()
        db.engine.dispose()
    return result


def test_a_backup_of_a_live_night_restores_to_the_same_night(runner, played, db_path, tmp_path):
    # a host action is being written at the moment of the backup: it is not in it (not committed yet)
    writer = sqlite3.connect(db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE events SET clock_version = clock_version + 1")
    committed = dump(db_path)
    result = runner.invoke(args=["league", "backup", str(tmp_path / "night.db")])
    writer.execute("COMMIT")
    writer.close()
    assert result.exit_code == 0, result.output
    assert "Backed up the sqlite database" in result.output
    assert dump(tmp_path / "night.db") == committed

    result = restore_into(tmp_path / "restored.db", tmp_path / "night.db")
    assert result.exit_code == 0, result.output
    assert dump(tmp_path / "restored.db") == committed

    # and the restored database serves the night: the same clock and players
    restored = make_app(tmp_path / "restored.db")
    with restored.app_context():
        clock = restored.test_client().get(f"/api/events/{played.id}/clock").get_json()
        db.engine.dispose()
    assert clock["running"] is True and clock["players_left"] == 6


def test_a_backup_while_the_host_keeps_writing_is_consistent(runner, played, db_path, tmp_path):
    stop = threading.Event()
    written = []

    def keep_writing():
        connection = sqlite3.connect(db_path, isolation_level=None, timeout=5)
        league_id = connection.execute("SELECT id FROM leagues").fetchone()[0]
        n = 0
        while not stop.is_set():
            n += 1
            connection.execute("INSERT INTO venues (league_id, name, address, link_code) VALUES (?, ?, '', ?)",
                               (league_id, f"Pub {n}", f"busy-pub-link-{n:06d}"))
            written.append(n)
        connection.close()

    thread = threading.Thread(target=keep_writing)
    thread.start()
    try:
        while len(written) < 50:  # the writes are under way
            assert thread.is_alive(), "the writer stopped"
            threading.Event().wait(0.01)
        result = runner.invoke(args=["league", "backup", str(tmp_path / "busy.db")])
    finally:
        stop.set()
        thread.join()
    assert result.exit_code == 0, result.output
    copy = sqlite3.connect(tmp_path / "busy.db")
    assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    pubs = sorted(int(name[4:]) for (name,) in copy.execute("SELECT name FROM venues WHERE name LIKE 'Pub %'"))
    copy.close()
    # one moment's state: every write up to some point, none after it
    assert pubs == list(range(1, len(pubs) + 1)) and 50 <= len(pubs) <= len(written)


def test_restore_refuses_a_database_that_holds_a_league(runner, client, played, db_path, tmp_path):
    runner.invoke(args=["league", "backup", str(tmp_path / "night.db")])
    host_op(client, played, "join", name="After the backup", adult="yes")
    before = dump(db_path)
    result = restore_into(db_path, tmp_path / "night.db")
    assert result.exit_code != 0
    assert "already holds a league: add --replace" in result.output and "nothing was restored" in result.output
    assert dump(db_path) == before


def test_restore_with_replace_puts_the_backup_back(runner, client, played, db_path, tmp_path):
    committed = dump(db_path)
    runner.invoke(args=["league", "backup", str(tmp_path / "night.db")])
    host_op(client, played, "join", name="After the backup", adult="yes")
    db.session.remove()
    db.engine.dispose()
    result = restore_into(db_path, tmp_path / "night.db", "--replace")
    assert result.exit_code == 0, result.output
    assert dump(db_path) == committed


def test_restore_into_a_migrated_empty_database(runner, played, migrated_db, tmp_path):
    committed = dump(runner.app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///"))
    runner.invoke(args=["league", "backup", str(tmp_path / "night.db")])
    empty = tmp_path / "empty.db"
    empty.write_bytes(migrated_db.read_bytes())  # `flask db upgrade` and nothing else
    result = restore_into(empty, tmp_path / "night.db")
    assert result.exit_code == 0, result.output
    assert dump(empty) == committed


@pytest.mark.parametrize(("content", "reason"), [
    (b"date,venue\n2026-11-01,Rose\n", "neither an SQLite backup nor a pg_dump archive"),
    (b"SQLite format 3\x00" + b"\x00" * 200, "cannot be read as a backup"),
    (b"PGDMP" + b"\x00" * 50, "pg_restore failed"),
])
def test_restore_checks_the_file_first(tmp_path, content, reason):
    bad = tmp_path / "bad.backup"
    bad.write_bytes(content)
    result = restore_into(tmp_path / "target.db", bad)
    assert result.exit_code != 0
    assert reason in result.output and "nothing was restored" in result.output
    assert not (tmp_path / "target.db").exists() or dump(tmp_path / "target.db") == []


def test_restore_refuses_an_sqlite_database_that_is_not_shuffleups(tmp_path):
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE notes (body TEXT)")
    connection.commit()
    connection.close()
    result = restore_into(tmp_path / "target.db", other)
    assert result.exit_code != 0 and "not a ShuffleUp one" in result.output


def test_restore_refuses_a_schema_this_version_does_not_know(runner, played, tmp_path):
    runner.invoke(args=["league", "backup", str(tmp_path / "night.db")])
    connection = sqlite3.connect(tmp_path / "night.db")
    connection.execute("UPDATE alembic_version SET version_num = '9999'")
    connection.commit()
    connection.close()
    result = restore_into(tmp_path / "target.db", tmp_path / "night.db")
    assert result.exit_code != 0 and "schema revision '9999'" in result.output


def test_a_backup_into_a_missing_folder_is_refused_and_writes_nothing(runner, played, tmp_path):
    result = runner.invoke(args=["league", "backup", str(tmp_path / "no" / "such" / "night.db")])
    assert result.exit_code != 0 and "no backup was written" in result.output
    assert not (tmp_path / "no").exists()
