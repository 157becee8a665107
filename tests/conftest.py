"""Shared fixtures: an app on a fresh SQLite database brought up by the real migrations."""
import re
import shutil

import pytest
from flask import g, request_started
from flask_migrate import upgrade

from app import create_app
from services import leagues
from wiring.extensions import db

TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": True}


def make_app(path, **extra):
    """An app on the SQLite file at `path` (the test config plus `extra`)."""
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", **extra})
    # The `app` fixture keeps one app context open for the whole test, and Flask reuses an open
    # context for requests, so `g` (the logged-in user, the CSRF token) would leak from one test
    # client to another. Start every request with an empty `g`, as a server does.
    request_started.connect(lambda sender, **kwargs: g.__dict__.clear(), app, weak=False)
    return app


@pytest.fixture(scope="session")
def migrated_db(tmp_path_factory):
    """One database migrated to head per test session; each test gets its own copy."""
    path = tmp_path_factory.mktemp("template") / "league.db"
    app = make_app(path)
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return path


@pytest.fixture
def db_path(migrated_db, tmp_path):
    path = tmp_path / "league.db"
    shutil.copy(migrated_db, path)
    return path


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
