"""Rate limits on what anyone can do without a login (wiring/rate_limits.py, R-MEM-1/2): check-in per
address and per night's link, member-card claims per address and wrong codes from all addresses
together, one-time codes per member, pre-registration per member, the venue link per address, and
logins that stop a guesser without locking the real user out. Each refusal is a 429 that says what
to do and writes nothing; each limit holds with the limiter's Redis down (counted in memory)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from services.models import MemberCode
from tests.conftest import csrf_token
from tests.fixtures.pages import text
from tests.fixtures.phones import CODE_RE, claim, join
from tests.fixtures.rows import count, every_row, member
from wiring.extensions import db

ROOT = Path(__file__).resolve().parents[2]


def at(app, address):
    """A phone at `address` (its own cookies)."""
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = address
    return phone


def new_code(phone) -> str:
    """The phone's member asks for a one-time code to move their card; its digits."""
    page = phone.post("/me/move", data={"csrf_token": csrf_token(phone, "/me")}).get_data(as_text=True)
    return "".join(CODE_RE.search(page).groups())


# ---- check-in ----

def test_r_mem_1_check_ins_from_one_address_are_limited_and_the_refusal_writes_nothing(app, night):
    app.config["CHECK_IN_RATE_LIMIT"] = "3 per minute"
    assert [join(at(app, "203.0.113.5"), night, f"Flood {n}").status_code for n in range(3)] == [303] * 3
    before = every_row()
    refused = join(at(app, "203.0.113.5"), night, "Flood 4")
    assert refused.status_code == 429 and "Too many check-ins from here" in text(refused)
    assert "ask the host to check you in" in text(refused) and "no-store" in refused.headers["Cache-Control"]
    assert every_row() == before and member("Flood 4") is None
    assert join(at(app, "203.0.113.6"), night, "Other phone").status_code == 303  # another address is not held up
    assert at(app, "203.0.113.5").get(f"/check-in/{night.check_in_code}").status_code == 200  # reading is not limited


def test_r_mem_1_check_ins_through_one_link_are_limited_from_any_address(app, night):
    app.config["CHECK_IN_LINK_RATE_LIMIT"] = "3 per minute"
    assert join(at(app, "198.51.100.9"), night, "").status_code == 422  # refused: not counted against the link
    assert [join(at(app, f"198.51.100.{n}"), night, f"Joiner {n}").status_code for n in range(3)] == [303] * 3
    before = every_row()
    refused = join(at(app, "198.51.100.77"), night, "Joiner 77")
    assert refused.status_code == 429 and every_row() == before


# ---- member-card codes ----

def test_r_mem_1_wrong_codes_from_every_address_together_are_limited(app, night):
    """A guesser with many addresses: each wrong code counts against them all; once the limit is
    reached even a right code waits (and is not used up)."""
    app.config["CLAIM_GUESS_LIMIT"] = "3 per minute"
    join(owner := at(app, "192.0.2.1"), night, "Ann Lee")
    code = new_code(owner)
    wrong = "0" * 10 if code != "0" * 10 else "1" * 10
    assert [claim(at(app, f"192.0.2.{n}"), wrong).status_code for n in range(10, 13)] == [422] * 3
    before = every_row()
    refused = claim(at(app, "192.0.2.50"), code)
    assert refused.status_code == 429 and "Too many tries" in text(refused)
    assert every_row() == before and db.session.scalar(db.select(MemberCode.used_at)) is None


def test_r_mem_1_a_right_code_does_not_count_as_a_guess(app, night):
    app.config["CLAIM_GUESS_LIMIT"] = "1 per minute"
    phones = [at(app, f"192.0.2.{n}") for n in range(3)]
    for n, phone in enumerate(phones):
        join(phone, night, f"Player {n}")
    for phone in phones:
        assert claim(at(app, "192.0.2.99"), new_code(phone)).status_code == 303


def test_r_mem_1_a_member_asks_for_a_limited_number_of_codes(app, night):
    app.config["MOVE_CODE_RATE_LIMIT"] = "2 per hour"
    join(phone := at(app, "192.0.2.1"), night, "Ann Lee")
    new_code(phone)
    new_code(phone)
    before = every_row()
    refused = phone.post("/me/move", data={"csrf_token": csrf_token(phone, "/me")})
    assert refused.status_code == 429 and "Use the last code you were shown" in text(refused)
    assert every_row() == before and count(MemberCode) == 1
    # another member's phone at the same address is not held up
    join(other := at(app, "192.0.2.1"), night, "Bob Ray")
    assert CODE_RE.search(other.post("/me/move", data={"csrf_token": csrf_token(other, "/me")}).get_data(as_text=True))


def test_r_mem_1_every_live_code_is_ten_digits_and_claims_with_any_spacing(app, night):
    join(phone := at(app, "192.0.2.1"), night, "Ann Lee")
    code = new_code(phone)
    assert len(code) == 10 and code.isdigit()
    assert claim(app.test_client(), f" {code[:3]}-{code[3:6]} {code[6:]} ").status_code == 303
    assert claim(app.test_client(), code[:6]).status_code == 422  # six digits are no longer a code


# ---- the venue link ----

def test_r_mem_1_the_venue_link_is_limited_per_address(app, night):
    app.config["VENUE_LINK_RATE_LIMIT"] = "2 per minute"
    link = f"/venue/{night.venue.link_code}"
    phone = at(app, "203.0.113.20")
    assert [phone.get(link).status_code for _ in range(2)] == [303, 303]
    refused = phone.get(link)
    assert refused.status_code == 429 and "scan the poster again" in text(refused)
    assert at(app, "203.0.113.21").get(link).status_code == 303


# ---- pre-registration ----

def test_r_late_3_pre_registration_taps_are_limited_per_member_not_per_address(app, night, league):
    from services.models import Event
    friday = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly",
                   date=league.today().replace(year=league.today().year + 1), status="scheduled")
    db.session.add(friday)
    db.session.commit()
    app.config["PREREG_RATE_LIMIT"] = "2 per minute"
    join(ann := at(app, "192.0.2.1"), night, "Ann Lee")
    join(bob := at(app, "192.0.2.1"), night, "Bob Ray")
    url = f"/events/{friday.id}/prereg"
    assert ann.post(url, data={"csrf_token": csrf_token(ann, "/me")}).status_code == 303
    assert ann.post(url + "/cancel", data={"csrf_token": csrf_token(ann, "/me")}).status_code == 303
    before = every_row()
    refused = ann.post(url, data={"csrf_token": csrf_token(ann, "/me")})
    assert refused.status_code == 429 and "Too many taps" in text(refused) and every_row() == before
    assert bob.post(url, data={"csrf_token": csrf_token(bob, "/me")}).status_code == 303


# ---- logins ----

def _login(app, address, username, password):
    phone = at(app, address)
    return phone.post("/login", data={"username": username, "password": password,
                                      "csrf_token": csrf_token(phone)}).status_code


def test_r_mem_2_ten_wrong_passwords_from_an_attackers_address_do_not_lock_the_host_out(app, organiser, monkeypatch):
    from blueprints import auth
    waits = []
    monkeypatch.setattr(auth, "slow_down", waits.append)
    attacker = at(app, "203.0.113.66")
    token = csrf_token(attacker)
    tries = [attacker.post("/login", data={"username": "host", "password": f"guess {n}", "csrf_token": token}
                           ).status_code for n in range(11)]
    assert tries == [401] * 10 + [429]  # the guesser is blocked
    before = every_row()
    assert _login(app, "198.51.100.7", "host", "pw-host") == 302  # the host, from the pub, logs in
    assert every_row() == before
    # ... after a wait: ten wrong tries at the username this minute slow each next one down
    assert waits == [app.config["LOGIN_SLOW_DOWN_S"]]


def test_r_mem_2_guesses_from_many_addresses_are_slowed_and_the_host_still_logs_in(app, organiser, monkeypatch):
    from blueprints import auth
    waits = []
    monkeypatch.setattr(auth, "slow_down", waits.append)
    codes = [_login(app, f"203.0.113.{n // 10}", "host", f"guess {n}") for n in range(40)]
    assert codes == [401] * 40 and len(waits) == 30  # every try after the tenth waited
    assert _login(app, "198.51.100.7", "host", "pw-host") == 302
    assert _login(app, "198.51.100.8", "organiser", "pw-organiser") == 302 and len(waits) == 31  # only "host" waits


def test_r_mem_2_the_pair_limit_blocks_one_username_from_one_address_only(app, organiser, monkeypatch):
    from blueprints import auth
    monkeypatch.setattr(auth, "slow_down", lambda seconds: None)
    app.config["LOGIN_RATE_LIMIT"] = "100 per minute"
    app.config["LOGIN_PAIR_RATE_LIMIT"] = "3 per minute"
    assert [_login(app, "203.0.113.1", "host", "wrong") for _ in range(4)] == [401, 401, 401, 429]
    assert _login(app, "203.0.113.1", "organiser", "pw-organiser") == 302  # another login from there
    assert _login(app, "203.0.113.2", "host", "pw-host") == 302  # the same login from elsewhere


# ---- with the limiter's Redis down ----

# In a process of its own, as tests/web/test_hardening.py's: the limiter keeps the storage of the
# first app that set it up. Every limit lowered; each route tried past it; the answers printed.
REDIS_DOWN = """
import json, tempfile
from flask_migrate import upgrade
from tests.conftest import csrf_token, make_app
from tests.fixtures.tonight import tonight
from tests.fixtures.phones import CODE_RE, claim, join
from blueprints import auth
from wiring.extensions import db
from services.models import Event
app = make_app(tempfile.mkdtemp() + "/l.db", RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0",
               CHECK_IN_RATE_LIMIT="2 per minute", CLAIM_GUESS_LIMIT="2 per minute", VENUE_LINK_RATE_LIMIT="2 per minute",
               MOVE_CODE_RATE_LIMIT="2 per hour", PREREG_RATE_LIMIT="2 per minute", CHECK_IN_LINK_RATE_LIMIT="4 per minute")
auth.slow_down = lambda seconds: waits.append(seconds)
waits = []
with app.app_context():
    upgrade()
    night = tonight()
    coming = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly",
                   date=night.date.replace(year=night.date.year + 1), status="scheduled")
    db.session.add(coming)
    db.session.commit()
    def at(address):
        phone = app.test_client()
        phone.environ_base["REMOTE_ADDR"] = address
        return phone
    out = {}
    owner = at("192.0.2.30")
    join(owner, night, "Ann Lee")
    out["check_in"] = [join(at("192.0.2.1"), night, f"Flood {n}").status_code for n in range(3)]  # a phone each
    out["check_in_link"] = [join(at(f"192.0.2.{n + 10}"), night, f"Link {n}").status_code for n in range(2)]
    move = lambda: owner.post("/me/move", data={"csrf_token": csrf_token(owner, "/me")})
    first = move()
    code = "".join(CODE_RE.search(first.get_data(as_text=True)).groups())
    out["move_code"] = [first.status_code, move().status_code, move().status_code]
    wrong = "0" * 10 if code != "0" * 10 else "1" * 10
    out["claim"] = [claim(at(f"192.0.2.{n + 40}"), wrong).status_code for n in range(3)]
    link = f"/venue/{night.venue.link_code}"
    venue = at("192.0.2.60")
    out["venue"] = [venue.get(link).status_code for _ in range(3)]
    url = f"/events/{coming.id}/prereg"
    out["prereg"] = [owner.post(url + ("/cancel" if n % 2 else ""), data={"csrf_token": csrf_token(owner, "/me")}).status_code
                     for n in range(3)]
    def log_in(address, password):
        phone = at(address)
        return phone.post("/login", data={"username": "host", "password": password,
                                          "csrf_token": csrf_token(phone)}).status_code
    out["login"] = [log_in(f"198.51.100.{n}", "guess") for n in range(11)] + [log_in("198.51.100.99", "pw-host")]
    out["waits"] = len(waits)
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def redis_down() -> dict:
    """Each limit's answers with nothing listening at the limiter's Redis (port 1: refused at once)."""
    done = subprocess.run([sys.executable, "-c", REDIS_DOWN], cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-2000:]
    return json.loads(lines[-1])


@pytest.mark.parametrize("route,answers", [
    ("check_in", [303, 303, 429]), ("move_code", [200, 200, 429]), ("claim", [422, 422, 429]),
    ("venue", [303, 303, 429]), ("prereg", [303, 303, 429]),
])
def test_each_limit_holds_in_memory_with_the_limiters_redis_down(redis_down, route, answers):
    assert redis_down[route] == answers


def test_the_link_limit_and_the_login_slow_down_hold_with_redis_down(redis_down):
    # Ann's and the flood's two joins, then one more, through the link's four a minute
    assert redis_down["check_in_link"] == [303, 429]
    assert redis_down["login"] == [401] * 11 + [302] and redis_down["waits"] == 2
