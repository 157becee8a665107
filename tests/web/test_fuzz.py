"""Fuzzing every route of the URL map (hypothesis): anonymous, as a player, as tonight's host, as
the organiser and as the operator, with malformed values of every kind in the path, the query and the form (huge and
negative numbers, `²`, 5,000 digits, NUL, control, zero-width and right-to-left characters, long
text, lists where one value is expected, missing fields, forged or missing CSRF tokens, stale
versions, unknown ids, bad months). No input may answer 5xx, and a refusal (4xx) writes nothing:
every table is dumped before and after each refused request and compared.

The budget is fixed and the examples derandomized, so every run sends the same requests; the totals
of the last run are written by `fuzz_figures` (docs/reliability.md, "Fuzzing")."""
import datetime as dt
import os
import re
from collections import Counter
from urllib.parse import quote, urlencode

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from itsdangerous import URLSafeSerializer, URLSafeTimedSerializer

from blueprints.play.member_cookie import COOKIE
from services import logins, venue_links
from services.models import Entry, Event, Member, User
from tests.conftest import csrf_token, login
from tests.fixtures import tonight as seed
from tests.fixtures.host import host_op
from tests.fixtures.logins import make_operator, password_token, setup_token
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "random input on every route reaches the SQL, and the two databases refuse different values")

# Per role and per test: 5 roles x 2 tests x 150 = 1,500 requests, every table compared around each
# refusal. SHUFFLEUP_FUZZ_EXAMPLES=5000 explores further (a longer run, by hand).
EXAMPLES = int(os.environ.get("SHUFFLEUP_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
ROLES = ["anonymous", "player", "host", "organiser", "operator"]
TALLY: Counter = Counter()
STATUSES: Counter = Counter()  # (endpoint, method, status): what the fuzz reached  # requests, 5xx, refusals that wrote: the figures of this run

# --- malformed values ------------------------------------------------------------------------------
HOSTILE_NUMBERS = ["", " ", "-1", "0", "-0", "+7", "1.5", "1e3", "0x10", "²", "٣", "1_000", " 12 ", "12abc",
                   str(2**31), str(2**63 - 1), str(2**63), str(2**64), "-" + str(2**63 + 1), "9" * 5000,
                   "NaN", "inf", "null", "[]", "{}", "true"]
HOSTILE_TEXT = ["", " ", "\x00", "a\x00b", "\x1b[31m", "\x07", "\r\n", "\t", "\u200b", "Jack Burke\u200b",
                "\u202eevaD htimS", "\u2066x\u2069", "\ufeff", "\ud7ff", "é", "日本語", "😀" * 50, "x" * 5000,
                "<script>alert(1)</script>", "' OR 1=1 --", "%00", "../../etc/passwd", "${{7*7}}", "{{ 7*7 }}",
                "javascript:alert(1)", "//evil.example", "https://evil.example/", "\\\\evil", "%",
                "a" * 81, "b" * 121, "0001-01-01", "9999-12-31", "2026-13-01", "2026-02-30", "yes", "no", "on"]
HOSTILE_MONTHS = ["2026-13", "2026-00", "0000-01", "0001-01", "9999-12", "2026-1", "26-11", "2026/11", "2026-11-01",
                  "-2026-11", "2026-11\x00", "２０２６-１１", "9" * 5000]
QUERY_KEYS = ["code", "q", "month", "year", "next", "was", "stream", "since", "version", "page", "event", "x"]
FORM_KEYS = ["op", "name", "adult", "under_21", "contact", "reason", "why", "anyway", "seat", "out", "dq_entry",
             "dq_chips", "bonus_entry", "kind", "action", "index", "version", "journal_top", "vote", "member",
             "event", "code", "username", "password", "display_name", "address", "venue", "date", "start_time",
             "event_type", "host", "template", "method", "major", "minutes", "small_blind", "big_blind", "ante",
             "label", "colour_up", "sign_out_others", "next", "buy_in", "guarantee", "pool_share", "again", "current",
             "timezone", "confirm", "l1-username", "l1-display_name", "seen", "size", "x"]
OPS = ["undo", "confirm", "reject", "id", "walk_in", "prereg", "deduct", "join", "bust", "bust_hand", "dq", "draw",
       "break", "final", "move_to", "bonus", "deal", "deal_off", "save", "template", "add", "remove", "up", "down",
       "duplicate", "start", "pause", "resume", "next", "previous", "plus", "minus", "jump", "shot", "shot_off",
       "hand_for_hand_on", "hand_for_hand_off", "next_hand", "clear_arrivals"]


def hostile() -> st.SearchStrategy[str]:
    """Any malformed value: a listed one, or text hypothesis makes up (any code point but surrogates)."""
    return st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.sampled_from(HOSTILE_TEXT),
                     st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
                     st.integers(min_value=-(2**70), max_value=2**70).map(str))


# --- the night everyone fuzzes -----------------------------------------------------------------------
class World:
    """Tonight at the Rose with seated players, a player's phone, another league's night (access
    between leagues) and the values a request could plausibly carry."""

    def __init__(self, app, night, league):
        self.app = app
        host_phone = app.test_client()
        login(host_phone, "host", "pw-host")
        for name in ("Ann Lee", "Bob Ray", "Cat Dee", "Dan Eve", "Eli Fox", "Fay Gum"):
            host_op(host_phone, night, "join", name=name, adult="yes")
        host_op(host_phone, night, "draw")
        other = seed.tonight(league="Other League", venue="Anchor", username="other", password="pw-other")
        # Links, so that the forms behind them are reached (a refused form must write nothing there too):
        # the set-up link dies with the operator made next (its form is web-tested in test_first_day).
        setup = setup_token()
        make_operator("operator", "pw-the-server")
        host_login = db.session.scalar(db.select(User).where(User.username == "host"))
        password_link = password_token(host_login)
        past = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly",
                     date=dt.date.today() - dt.timedelta(days=7), status="settled")
        db.session.add(past)
        db.session.commit()
        # The Rose's poster was lost once: its old link answers 410, the new one opens tonight's check-in.
        replaced = night.venue.link_code
        venue_links.replace_link(night.venue, venue_links.fingerprint(replaced), None)
        db.session.commit()
        self.member = db.session.scalar(db.select(Member).where(Member.name == "Ann Lee"))
        entries = db.session.scalars(db.select(Entry).order_by(Entry.id)).all()
        members = db.session.scalars(db.select(Member).order_by(Member.id)).all()
        users = db.session.scalars(db.select(User).order_by(User.id)).all()
        today = dt.date.today()
        self.path_values = {
            "event_id": [str(night.id)] * 4 + [str(other.id), str(past.id)],
            "slug": [league.slug, "other-league"],
            "month": [today.strftime("%Y-%m"), "2026-11"],
            "year": [str(today.year)],
            "code": [night.check_in_code, other.check_in_code, night.venue.link_code, replaced,
                     other.venue.link_code],
            "venue_id": [str(night.venue_id), str(other.venue_id)],
            "size": ["a4", "tent"],
            "card_code": [self.member.card_code],
            "filename": ["css/app.css", "js/app.js", "../app.py"],
            "token": [setup, password_link, "not-a-link"],
            "user_id": [str(u.id) for u in users] + ["0"],
            "change": list(logins.CHANGES),
        }
        self.plausible = {
            "id": [str(e.id) for e in entries] + [str(m.id) for m in members] + [str(u.id) for u in users],
            "version": [str(night.clock_version), "0", str(night.clock_version + 1)],
            "yes": ["yes", "no", "on", "1"],
            "seen": [venue_links.fingerprint(night.venue.link_code), venue_links.fingerprint(replaced)],
        }
        self.league, self.night = league, night

    def client(self, role: str, token: str | None):
        """A fresh phone as `role`, its session holding `token` as the CSRF secret (so a valid token
        costs no request)."""
        phone = self.app.test_client()
        if role == "player":
            member = db.session.get(Member, self.member.id)
            cookie = URLSafeSerializer(self.app.secret_key, salt="member-cookie").dumps([member.id, member.cookie_secret])
            phone.set_cookie(COOKIE, cookie)
        with phone.session_transaction() as session:
            session["csrf_token"] = token
            if role in ("host", "organiser", "operator"):
                user = db.session.scalar(db.select(User).where(User.username == role))
                session["_user_id"], session["_fresh"] = user.get_id(), True
        return phone

    def csrf(self, raw: str) -> str:
        return URLSafeTimedSerializer(self.app.secret_key, salt="wtf-csrf-token").dumps(raw)


# What a refusal writes by design: a one-time link's form refused is a failed try, counted on the link
# (services.logins.LINK_TRIES), so ten kill it.
COUNTED = {"login_links": {"failed_tries"}}


def dump() -> dict:
    """Every row of every table (but the COUNTED columns), read on a connection of its own (only what
    was committed)."""
    with db.engine.connect() as conn:
        return {table.name: sorted(map(repr, conn.execute(sa.select(
                    *(c for c in table.columns if c.name not in COUNTED.get(table.name, ())))).all()))
                for table in db.metadata.sorted_tables}


@pytest.fixture
def world(app, night, league):
    return World(app, night, league)


def routes(app) -> list[tuple[str, str, str]]:
    """(endpoint, method, rule) for every route of the URL map."""
    return sorted((rule.endpoint, method, rule.rule) for rule in app.url_map.iter_rules()
                  for method in sorted(set(rule.methods or ()) - {"HEAD", "OPTIONS"}))


def draw_path(data, world: World, rule: str) -> str:
    def value(match):
        name = match.group(2)
        # mostly a real value, so that the query and the form reach the code behind the route
        raw = data.draw(st.one_of(st.sampled_from(world.path_values.get(name, ["x"])), st.integers(0, 3)
                                  .flatmap(lambda n: st.sampled_from(world.path_values.get(name, ["x"])) if n else
                                           st.one_of(st.sampled_from(HOSTILE_MONTHS), hostile()))), label=name)
        return quote(raw, safe="") or "%20"
    return re.sub(r"<(?:([^<>:]+):)?(\w+)>", value, rule)  # a converter with arguments too: any(a4, tent)


def draw_query(data) -> str:
    keys = data.draw(st.lists(st.sampled_from(QUERY_KEYS), max_size=3), label="query keys")
    pairs = [(key, data.draw(hostile(), label=key)) for key in keys]
    odd = data.draw(st.sampled_from(["", "&&", "=", "a=1&a=2", "%zz", "%00=%00", "code", "q=%E2%80%AE"]), label="odd")
    text = urlencode(pairs)
    return "?" + "&".join(part for part in (text, odd) if part) if text or odd else ""


def draw_form(data, world: World) -> dict:
    keys = data.draw(st.lists(st.sampled_from(FORM_KEYS), max_size=6, unique=True), label="form keys")
    if data.draw(st.integers(0, 2), label="with op") and "op" not in keys:
        keys.insert(0, "op")
    form: dict = {}
    for key in keys:
        if key == "op":
            op = data.draw(st.sampled_from(OPS), label="op")
            arg = data.draw(st.integers(0, 3).flatmap(lambda n: st.just("") if n == 0 else hostile() if n == 1
                                                      else st.sampled_from(world.plausible["id"])), label="op arg")
            form[key] = f"{op}:{arg}" if arg else op
        else:
            plausible = world.plausible["version" if key in ("version", "journal_top") else
                                        "yes" if key in ("adult", "under_21", "anyway", "vote") else
                                        "seen" if key == "seen" else "id"]
            one = st.integers(0, 2).flatmap(lambda n, p=plausible: st.sampled_from(p) if n else hostile())
            form[key] = data.draw(st.one_of(one, st.lists(one, min_size=2, max_size=3)), label=key)
    return form


def fuzz_one(data, world: World, role: str, post_only: bool) -> None:
    """One request as `role`; the answer is never 5xx, and a refusal leaves every table as it was."""
    app = world.app
    endpoint, method, rule = data.draw(st.sampled_from([r for r in routes(app) if r[1] != "GET" or not post_only]),
                                       label="route")
    path = draw_path(data, world, rule) + draw_query(data)
    headers = {"HX-Request": "true"} if data.draw(st.booleans(), label="htmx") else {}
    phone = world.client(role, "fuzz-secret")
    kwargs = {}
    if method != "GET":
        form = draw_form(data, world)
        csrf = data.draw(st.sampled_from(["valid"] * 12 + ["missing", "forged", "other", "hostile"]), label="csrf")
        if csrf != "missing":
            form["csrf_token"] = {"valid": world.csrf("fuzz-secret"), "forged": world.csrf("another-secret"),
                                  "other": "IjEyMyI.forged.signature"}.get(csrf) or data.draw(hostile())
        body = data.draw(st.sampled_from(["form"] * 8 + ["json", "bytes"]), label="body")
        if body == "json":  # the right fields, the wrong kind of body
            kwargs["json"] = form
        elif body == "bytes":
            kwargs.update(data=data.draw(st.binary(max_size=200)), content_type=data.draw(st.sampled_from(
                ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain", "application/json"])))
        else:
            kwargs["data"] = form
    before = dump()
    response = phone.open(path, method=method, headers=headers, **kwargs)
    status = response.status_code
    db.session.remove()  # what a server does at the end of every request
    TALLY["requests"] += 1
    STATUSES[(endpoint, method, status)] += 1
    if status >= 500:
        TALLY["5xx"] += 1
    assert status < 500, f"{role} {method} {path} {kwargs} -> {status}"
    if 400 <= status < 500:
        TALLY["refused"] += 1
        wrote = dump() != before
        TALLY["refusals that wrote"] += wrote
        assert not wrote, f"{role} {method} {path} {kwargs} -> {status} wrote to the database"


@pytest.mark.parametrize("role", ROLES)
@FUZZ
@given(data=st.data())
def test_no_route_answers_5xx_or_writes_on_a_refusal(world, role, data):
    fuzz_one(data, world, role, post_only=False)


@pytest.mark.parametrize("role", ROLES)
@FUZZ
@given(data=st.data())
def test_no_form_answers_5xx_or_writes_on_a_refusal(world, role, data):
    fuzz_one(data, world, role, post_only=True)


def test_the_fuzzer_reaches_every_route_and_role(app):
    """The URL map the fuzz draws from is the pinned one: a new route is fuzzed as soon as it exists."""
    from tests.web.test_url_map import URL_MAP
    assert {line.split()[0] for line in URL_MAP.read_text().splitlines()} == {r[0] for r in routes(app)}


def test_the_fuzzer_forges_nothing_a_real_phone_cannot_do(world, client):
    """Its valid CSRF token is the one the app itself hands out, and its logged-in phones are the
    ones a login makes (so refusals it sees are the app's, not the harness's)."""
    phone = world.client("host", "fuzz-secret")
    assert phone.get(f"/host/events/{world.night.id}").status_code == 200
    response = phone.post(f"/host/events/{world.night.id}/clock", headers={"HX-Request": "true"},
                          data={"csrf_token": world.csrf("fuzz-secret"), "action": "start",
                                "version": str(db.session.get(Event, world.night.id).clock_version)})
    assert response.status_code == 200
    assert "/organiser/harbour-league/months/" in world.client("organiser", "s").get("/organiser/").location
    assert "/login" in world.client("anonymous", "s").get("/organiser/").location
    assert world.client("operator", "s").get("/operator/").status_code == 200
    assert world.client("player", "s").get("/me").status_code == 200
    assert "Ann Lee" in world.client("player", "s").get("/me").get_data(as_text=True)
    assert csrf_token(client, "/login")


@pytest.mark.parametrize(("path", "status"), [
    # ids are INTEGER columns: PostgreSQL refused 2^31 in the query (500 there, found by this fuzz)
    ("/events/2147483648", 404), ("/host/events/2147483648/players", 404), ("/api/events/2147483648/clock", 404),
    ("/leagues/harbour-league/seasons/2147483648", 404),
    # '٣' (Arabic-Indic three) and '３' (fullwidth) matched `\d` and named event 3
    ("/events/%D9%A3", 404), ("/api/events/%EF%BC%91/clock", 404),
    # a NUL in a slug or code reached PostgreSQL's query (500 there)
    ("/api/leagues/%00", 404), ("/leagues/harbour-league%00", 404), ("/check-in/%00", 404), ("/cards/a%1Fb", 404),
])
def test_what_the_fuzz_found_stays_fixed(world, path, status):
    assert world.client("host", "s").get(path).status_code == status
    assert world.client("anonymous", "s").get(path.replace("/host", "")).status_code == status
