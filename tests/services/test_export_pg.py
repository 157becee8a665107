"""A league file between SQLite and PostgreSQL (services/export.py): exported from SQLite, imported into
PostgreSQL and exported again, it is the same file; PostgreSQL's id sequences move on past the imported
ids, so the next member, night or ruling gets a new id; a refused file writes nothing there either."""
import io
import os
import uuid

import psycopg
import pytest
from flask_migrate import upgrade

from app import create_app
from services import demo, export, leagues
from services.models import League, Member
from wiring.extensions import db

pytestmark = pytest.mark.services
PG = os.environ.get("SHUFFLEUP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture
def pg_app():
    """An app on a fresh PostgreSQL database migrated to head, dropped afterwards."""
    name = "shuffleup_test_" + uuid.uuid4().hex[:10]
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    app = create_app({"TESTING": True, "SECRET_KEY": "export-secret",
                      "SQLALCHEMY_DATABASE_URI": PG.rsplit("/", 1)[0] + "/" + name})
    with app.app_context():
        upgrade()
        db.session.remove()
    yield app
    with app.app_context():
        db.engine.dispose()
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_a_sqlite_league_round_trips_through_postgresql(app, pg_app):
    assert demo.load_if_empty()
    out = io.StringIO()
    export.export_league(db.session.scalar(db.select(League)), out)
    first = out.getvalue()
    with pg_app.app_context():
        with pytest.raises(export.ExportFileError):
            export.import_league(io.BytesIO(first[:-200].encode()))
        db.session.rollback()
        assert db.session.scalar(db.select(db.func.count()).select_from(League)) == 0
        export.import_league(io.BytesIO(first.encode()))
        db.session.commit()
        again = io.StringIO()
        league = db.session.scalar(db.select(League))
        export.export_league(league, again)
        assert again.getvalue() == first
        highest = db.session.scalar(db.select(db.func.max(Member.id)))
        member = Member.named(league.id, "Newcomer After Import")
        db.session.add(member)
        other = leagues.create_league("Second League", "cash")
        db.session.commit()
        assert member.id > highest and other.id > league.id
        db.session.remove()
