"""Odd input answers a clear 4xx, never a 500: ids too large for the database, the rate limiter's
storage down (R-MEM-2: hosts and organisers must still be able to log in)."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.both_databases(
    "ids past the database's integer range: PostgreSQL refuses what SQLite would store")

ROOT = Path(__file__).resolve().parents[2]
HUGE = str(2**63)  # one past the largest BIGINT


@pytest.mark.parametrize("path", [f"/events/{2**31}", f"/host/events/{2**31}/players", f"/events/{HUGE}", f"/api/events/{HUGE}/clock", f"/events/{HUGE}/results",
                                  f"/host/events/{HUGE}", f"/events/{'9' * 5000}"])
def test_an_id_too_large_for_the_database_is_not_found(client, path):
    assert client.get(path).status_code == 404


def test_the_largest_id_the_database_holds_is_looked_up(client):
    # ids are INTEGER columns (32 bits on PostgreSQL, which refuses a larger number in the query)
    assert client.get(f"/api/events/{2**31 - 1}/clock").status_code == 404  # looked up, not there


# In a process of its own: the limiter is one object per process, and keeps the storage of the
# first app that set it up (the test session's, in memory).
REDIS_DOWN = """
import sys, tempfile
from flask_migrate import upgrade
from tests.conftest import csrf_token, make_app
from wiring.extensions import db
from services.models import League, User
app = make_app(tempfile.mkdtemp() + "/l.db", RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0", **dict(EXTRA))
with app.app_context():
    upgrade()
    league = League(name="L", slug="l", kind="free")
    db.session.add(league)
    db.session.flush()
    user = User(username="organiser", display_name="O", role="organiser", league_id=league.id)
    user.set_password("pw-organiser")
    db.session.add(user)
    db.session.commit()
    client = app.test_client()
    codes = [client.post("/login", data={"username": "organiser", "password": password,
                                         "csrf_token": csrf_token(client)}).status_code
             for password in ["pw-organiser"] + ["wrong"] * 12]
    print(codes)
"""


def redis_down_logins(**extra) -> str:
    """The status codes of one good login and 12 wrong ones, with nothing listening at the
    limiter's Redis (port 1: every storage call is refused at once)."""
    script = REDIS_DOWN.replace("dict(EXTRA)", repr(extra))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]


def test_logins_work_with_the_rate_limiters_redis_down():
    codes = redis_down_logins()
    assert codes.startswith("[302, ") and codes.endswith("429]")  # in, then the limit holds in memory


def test_without_the_fallback_redis_down_would_fail_logins():
    """The test above can fail: without the fallback the first login raises (a 500 in production;
    the test client lets the exception through)."""
    failed = redis_down_logins(RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=False, RATELIMIT_SWALLOW_ERRORS=False)
    assert "redis.exceptions.ConnectionError" in failed
