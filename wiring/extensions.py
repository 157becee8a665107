"""The app's extensions, created unbound and attached in create_app through init_app."""
import os

from flask_compress import Compress
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase
from werkzeug.routing import IntegerConverter, UnicodeConverter

from wiring import body_limit, precompressed, wire_headers


class Base(DeclarativeBase):
    # Named constraints, so that Alembic can alter them on SQLite and PostgreSQL alike.
    metadata = MetaData(naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    })


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address, default_limits=[])
compress = Compress()


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, connection_record):
    """WAL lets the clock's readers carry on while the host writes; foreign keys are off by default."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        # With WAL, NORMAL loses nothing when the app crashes (only an OS crash can lose the last
        # commits) and takes the 2.6 ms fsync off every host action.
        cursor.execute("PRAGMA synchronous=NORMAL")
        if not connection_record.info.get("memory"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()


class RowId(IntegerConverter):
    r"""`<int:…>` in every route: an id the database can hold (at most 2^31 - 1: ids are INTEGER
    columns, 32 bits on PostgreSQL, as blueprints.forms.ID_MAX). Werkzeug's own int converter
    matches any number of digits, and the database then fails on the query; a larger number simply
    matches no route (404). Only ASCII digits: Python's `\d` also takes '٣' or '３' for 3, so that
    another spelling of a URL would name the same row."""

    regex = r"[0-9]+"

    def __init__(self, url_map, fixed_digits: int = 0, min: int | None = None, max: int | None = 2**31 - 1,
                 signed: bool = False) -> None:
        super().__init__(url_map, fixed_digits, min, max, signed)


class PathText(UnicodeConverter):
    """`<slug>`, `<code>`, `<month>`… in every route: text without NUL or control characters. No
    slug, code or month holds one, and PostgreSQL refuses a NUL in a query (a 500); such a path
    simply matches no route (404)."""

    def __init__(self, url_map, minlength: int = 1, maxlength: int | None = None, length: int | None = None) -> None:
        super().__init__(url_map, minlength, maxlength, length)
        self.regex = "[^/\x00-\x1f\x7f]+"


def init_app(app) -> None:
    """Attach every extension to the app (before the blueprints: their routes use the converters)."""
    wire_headers.init_app(app)  # first: its hooks run after every other extension's
    app.url_map.converters["int"] = RowId
    app.url_map.converters["default"] = app.url_map.converters["string"] = PathText
    db.init_app(app)
    migrate.init_app(app, db, directory=os.path.join(app.root_path, "migrations"),
                     render_as_batch=True, compare_type=True)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = "Please log in as the host or organiser."
    body_limit.init_app(app)  # before CSRFProtect's hook, which reads the form
    csrf.init_app(app)
    limiter.init_app(app)
    compress.init_app(app)
    precompressed.init_app(app)  # after: a static file is compressed once, at the strongest level

