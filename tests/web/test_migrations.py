"""The migrations bring a database with data in it to the current schema, and back down, and up again,
on SQLite and on PostgreSQL alike (whichever this run uses, tests/conftest.py's --db)."""
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade

from tests.conftest import make_app
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "the migrations' DDL is each dialect's own (SQLite rebuilds a table to alter it)")


@pytest.fixture
def empty_app(empty_database):
    app = make_app(empty_database)
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def differences() -> list:
    """What Alembic finds between the database and the models' metadata, types included."""
    with db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "render_as_batch": True})
        return compare_metadata(context, db.metadata)


def table_names() -> list[str]:
    with db.engine.connect() as conn:
        return sorted(set(sa.inspect(conn).get_table_names()) - {"alembic_version"})


def insert_league(conn) -> None:
    """League 1, as every schema from 0001 on stores it."""
    conn.execute(sa.text("INSERT INTO leagues (id, name, slug, kind, timezone, pass_down, payout_percent, "
                         "shot_clock_seconds, settings, created_at) VALUES (1, 'L', 'l', 'free', 'UTC', TRUE, 10, "
                         "70, '{}', '2026-01-01')"))


def test_0003_fills_secrets_for_existing_rows(empty_app):
    upgrade(revision="0002")
    # Booleans written as the literals both databases accept (PostgreSQL refuses 0 and 1).
    with db.engine.begin() as conn:
        insert_league(conn)
        conn.execute(sa.text("INSERT INTO venues (id, league_id, name, address) VALUES (1, 1, 'Rose', '')"))
        for n in (1, 2):
            conn.execute(sa.text("INSERT INTO members (id, league_id, name, name_key, under_21, card_code, "
                                 f"created_at) VALUES ({n}, 1, 'P{n}', 'p{n}', FALSE, 'card{n}', '2026-01-01')"))
            conn.execute(sa.text("INSERT INTO events (id, league_id, venue_id, event_type, date, status, clock_index, "
                                 "clock_item_elapsed_ms, clock_started, clock_version, created_at) VALUES "
                                 f"({n}, 1, 1, 'nightly', '2026-11-0{n}', 'settled', 0, 0, FALSE, 0, '2026-01-01')"))
        conn.execute(sa.text("INSERT INTO entries (event_id, member_id, status, position, points, prize, created_at) "
                             "VALUES (1, 1, 'played', 1, 150, 0, '2026-01-01')"))
    upgrade()
    with db.engine.connect() as conn:
        codes = [row[0] for row in conn.execute(sa.text("SELECT check_in_code FROM events"))]
        secrets = [row[0] for row in conn.execute(sa.text("SELECT cookie_secret FROM members"))]
        entry = conn.execute(sa.text("SELECT pre_registered, chips_removed, points FROM entries")).one()
    assert all(len(code) >= 20 for code in codes) and len(set(codes)) == 2
    assert all(len(secret) >= 30 for secret in secrets) and len(set(secrets)) == 2
    assert (bool(entry[0]), entry[1], entry[2]) == (False, 0, 150)
    downgrade(revision="base")
    assert table_names() == []


def test_0015_gives_each_venue_its_own_permanent_link(empty_app):
    upgrade(revision="0014")
    with db.engine.begin() as conn:
        insert_league(conn)
        for n in (1, 2):
            conn.execute(sa.text(f"INSERT INTO venues (id, league_id, name, address) VALUES ({n}, 1, 'V{n}', '')"))
    upgrade(revision="0015")
    with db.engine.connect() as conn:
        codes = [row[0] for row in conn.execute(sa.text("SELECT link_code FROM venues"))]
        reviewed = conn.execute(sa.text("SELECT settings_reviewed_at FROM leagues")).scalar()
    assert all(len(code) >= 20 for code in codes) and len(set(codes)) == 2 and reviewed is None
    downgrade(revision="-1")  # 0015 alone, whatever comes before it
    assert "replaced_venue_links" not in table_names()


def test_up_to_head_down_to_base_and_up_again_gives_the_models(empty_app):
    upgrade()
    tables = table_names()
    assert "events" in tables and differences() == []
    downgrade(revision="base")
    assert table_names() == []
    upgrade()
    assert table_names() == tables and differences() == []


def test_the_models_equal_the_migrations_head(app):
    """A model change without its migration (or the reverse) shows here: Alembic compares the
    migrated database with the models' metadata, types included."""
    assert differences() == []


def test_0014_refuses_logins_that_differ_only_in_case_and_changes_nothing(empty_app, capfd):
    """Which of two such logins is meant is their owners' call: the upgrade stops, names them and the
    command that renames one (which works on the older schema), and the next upgrade goes through."""
    upgrade(revision="0013")
    with db.engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO leagues (id, name, slug, kind, timezone, pass_down, payout_percent, "
                             "shot_clock_seconds, settings, created_at) VALUES (1, 'L', 'l', 'free', 'UTC', TRUE, 10, "
                             "70, '{}', '2026-01-01')"))
        for n, name in enumerate(("hana", "HANA", "Kim"), start=1):
            conn.execute(sa.text("INSERT INTO users (id, username, display_name, password_hash, role, league_id, "
                                 f"session_token) VALUES ({n}, '{name}', '{name}', 'x', 'host', 1, 'token{n}')"))
    with pytest.raises(SystemExit):  # `flask db upgrade` prints the reason and exits 1
        upgrade()
    said = capfd.readouterr().err
    assert "'hana' (id 1), 'HANA' (id 2). Nothing was changed" in said and "rename-login" in said
    db.session.rollback()
    with db.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0013"
        assert "username_key" not in {c["name"] for c in sa.inspect(conn).get_columns("users")}
    out = empty_app.test_cli_runner().invoke(args=["league", "rename-login", "HANA", "hana2"])
    assert out.exit_code == 0, out.output
    upgrade()
    with db.engine.connect() as conn:
        keys = conn.execute(sa.text("SELECT username, username_key FROM users ORDER BY id")).all()
    assert [tuple(row) for row in keys] == [("hana", "hana"), ("hana2", "hana2"), ("Kim", "kim")]
