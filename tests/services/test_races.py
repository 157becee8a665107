"""Phones acting on one night at the same moment, as a crowded pub does, on both databases: SQLite (a
file, WAL, one writer at a time) and PostgreSQL (READ COMMITTED, row locks), each phone a thread of
its own. The last players voting yes at once (R-PAY-2) agree the deal; the same new name from several
phones (R-MEM-1) makes one member and a refusal for the others, never a 500; two hosts busting
players at once (R-PTS-5) give each their own place; many screens tapping the clock with the version
they saw (R-CLOCK-3) move it once."""
import threading

import pytest
from flask_migrate import upgrade
from itsdangerous import URLSafeSerializer

from blueprints.play.member_cookie import COOKIE
from league.statuses import DealStatus, EntryStatus
from services.models import Action, Entry, Event, Member
from tests.conftest import DATABASES, PostgreSQLDatabases, csrf_token, login, make_app
from tests.fixtures import tonight as seed
from tests.fixtures.host import host_op
from tests.fixtures.rows import entries
from wiring.extensions import db

pytestmark = pytest.mark.services


def pytest_generate_tests(metafunc):
    """Both databases in `make test` (the races are what differs most between them); PostgreSQL alone
    when run with --db=postgresql, which would otherwise run the SQLite races a second time."""
    if "race_app" in metafunc.fixturenames:
        on = ["postgresql"] if metafunc.config.getoption("--db") == "postgresql" else list(DATABASES)
        metafunc.parametrize("race_app", on, indirect=True)


@pytest.fixture
def race_app(request, tmp_path):
    """An app on a fresh database migrated to head, with connections enough for every phone."""
    pg = PostgreSQLDatabases() if request.param == "postgresql" else None
    database = pg.empty() if pg else tmp_path / "league.db"
    app = make_app(database, SECRET_KEY="race-secret", SQLALCHEMY_ENGINE_OPTIONS={"pool_size": 12})
    with app.app_context():
        upgrade()
        db.session.remove()
    yield app
    with app.app_context():
        db.engine.dispose()
    if pg:
        pg.drop(database)


def at_once(calls):
    """Run each call on its own thread, all released together; their results in order."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(n, call):
        barrier.wait()
        results[n] = call()

    threads = [threading.Thread(target=run, args=(n, call)) for n, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def count_entries(event_id):
    return db.session.scalar(db.select(db.func.count()).select_from(Entry).where(Entry.event_id == event_id))


def a_deal_on_the_ballot(app, players: int) -> tuple[int, list]:
    """A $30 cash night of 10 down to `players` with a chip-chop deal open; each remaining player's
    phone (a test client holding their member cookie)."""
    with app.app_context():
        event = seed.tonight()
        event.buy_in, event.pool_share, event.guarantee = 30, 25, 250
        entries = []
        for n in range(10):
            member = Member.named(event.league_id, f"Player {n}")
            db.session.add(member)
            db.session.flush()
            still_in = n < players
            entry = Entry(event_id=event.id, member_id=member.id,
                          status=EntryStatus.PLAYING if still_in else EntryStatus.PLAYED,
                          position=None if still_in else 10 - (n - players),
                          chips_at_deal=10_000 * (n + 1) if still_in else None)
            db.session.add(entry)
            entries.append(member)
        event.deal_status, event.deal_method = DealStatus.OPEN, "chip_chop"
        db.session.commit()
        signer = URLSafeSerializer(app.secret_key, salt="member-cookie")
        phones = []
        for member in entries[:players]:
            phone = app.test_client()
            phone.set_cookie(COOKIE, signer.dumps([member.id, member.cookie_secret]))
            phones.append(phone)
        return event.id, phones


def vote_yes(phone, event_id):
    token = csrf_token(phone, f"/events/{event_id}/deal")
    return lambda: phone.post(f"/events/{event_id}/deal", data={"csrf_token": token, "vote": "yes"}).status_code


@pytest.mark.parametrize("round_", range(3))
def test_r_pay_2_the_last_players_voting_yes_at_once_agree_the_deal(race_app, round_):
    event_id, phones = a_deal_on_the_ballot(race_app, players=6)
    with race_app.app_context():
        assert vote_yes(phones[0], event_id)() == 303
        votes = [vote_yes(phone, event_id) for phone in phones[1:]]
    statuses = at_once(votes)
    assert statuses == [303] * 5
    with race_app.app_context():
        event = db.session.get(Event, event_id)
        still_in = db.session.scalars(db.select(Entry).where(Entry.event_id == event_id,
                                                             Entry.chips_at_deal.is_not(None))).all()
        assert all(e.deal_vote is True for e in still_in)
        assert event.deal_status == DealStatus.AGREED  # not left open with every vote cast
        assert sorted(e.position for e in still_in) == [1, 2, 3, 4, 5, 6]
        assert all(e.status == EntryStatus.PLAYED for e in still_in)


def test_r_mem_1_the_same_new_name_from_five_phones_at_once_makes_one_member(race_app):
    with race_app.app_context():
        event = seed.tonight()
        code, event_id = event.check_in_code, event.id
    phones = [race_app.test_client() for _ in range(5)]
    with race_app.app_context():
        tokens = [csrf_token(phone, f"/check-in/{code}") for phone in phones]

    def join(phone, token):
        def post():
            response = phone.post(f"/check-in/{code}", data={"csrf_token": token, "name": "Jack Burke",
                                                               "adult": "yes"})
            return response.status_code, response.get_data(as_text=True)
        return post

    results = at_once([join(phone, token) for phone, token in zip(phones, tokens)])
    codes = sorted(status for status, _ in results)
    assert codes == [303, 422, 422, 422, 422], codes
    assert all("A member called Jack Burke already exists" in html for status, html in results if status == 422)
    with race_app.app_context():
        assert db.session.scalars(db.select(Member.name)).all() == ["Jack Burke"]
        assert count_entries(event_id) == 1


def test_r_mem_1_a_double_tap_checks_in_once(race_app):
    with race_app.app_context():
        event = seed.tonight()
        code, event_id = event.check_in_code, event.id
        member = Member.named(event.league_id, "Ann Lee")
        db.session.add(member)
        db.session.commit()
        cookie = URLSafeSerializer(race_app.secret_key, salt="member-cookie").dumps([member.id, member.cookie_secret])
    phone = race_app.test_client()
    phone.set_cookie(COOKIE, cookie)
    with race_app.app_context():
        token = csrf_token(phone, f"/check-in/{code}")
    taps = at_once([lambda: phone.post(f"/check-in/{code}", data={"csrf_token": token}).status_code] * 2)
    assert taps == [303, 303]
    with race_app.app_context():
        assert count_entries(event_id) == 1


def host_phones(app, n: int) -> list:
    """`n` phones logged in as tonight's host."""
    phones = [app.test_client() for _ in range(n)]
    with app.app_context():
        for phone in phones:
            login(phone, "host", "pw-host")
    return phones


def host_post(phone, event_id, path, **data):
    """A host's tap, its CSRF token read first (so that only the tap itself races)."""
    token = csrf_token(phone, "/")
    return lambda: phone.post(f"/host/events/{event_id}/{path}", headers={"HX-Request": "true"},
                              data={"csrf_token": token, **data}).status_code


def test_r_mem_1_the_host_and_a_phone_joining_the_same_name_at_once_make_one_member(race_app):
    with race_app.app_context():
        event = seed.tonight()
        code, event_id = event.check_in_code, event.id
    hosts = host_phones(race_app, 2)
    player = race_app.test_client()
    with race_app.app_context():
        taps = [host_post(phone, event_id, "players", op="join", name="Jack Burke", adult="yes") for phone in hosts]
        token = csrf_token(player, f"/check-in/{code}")
    taps.append(lambda: player.post(f"/check-in/{code}", data={"csrf_token": token, "name": "Jack Burke",
                                                                 "adult": "yes"}).status_code)
    statuses = at_once(taps)
    assert sorted(statuses).count(422) == 2 and all(s in (200, 303, 422) for s in statuses), statuses
    with race_app.app_context():
        assert db.session.scalars(db.select(Member.name)).all() == ["Jack Burke"]
        assert count_entries(event_id) == 1


def test_r_pts_5_two_hosts_busting_at_once_give_each_player_their_own_place(race_app):
    with race_app.app_context():
        event = seed.tonight()
        event_id = event.id
    first, second = host_phones(race_app, 2)
    with race_app.app_context():
        for name in ("A", "B", "C", "D", "E"):
            host_op(first, db.session.get(Event, event_id), "join", name=name, adult="yes")
        roster = {name: entry.id for name, entry in entries(db.session.get(Event, event_id)).items()}
        taps = [host_post(first, event_id, "players", op=f"bust:{roster['E']}"),
                host_post(second, event_id, "players", op=f"bust:{roster['D']}")]
    assert at_once(taps) == [200, 200]
    with race_app.app_context():
        out = entries(db.session.get(Event, event_id))
        assert sorted([out["D"].position, out["E"].position]) == [4, 5]
        assert {out[name].status for name in "DE"} == {EntryStatus.PLAYED}


def test_r_pts_5_the_same_player_busted_from_two_phones_at_once_is_out_once(race_app):
    with race_app.app_context():
        event = seed.tonight()
        event_id = event.id
    first, second = host_phones(race_app, 2)
    with race_app.app_context():
        for name in ("A", "B", "C", "D"):
            host_op(first, db.session.get(Event, event_id), "join", name=name, adult="yes")
        roster = {name: entry.id for name, entry in entries(db.session.get(Event, event_id)).items()}
        taps = [host_post(phone, event_id, "players", op=f"bust:{roster['D']}") for phone in (first, second)]
        actions = db.session.scalar(db.select(db.func.count()).select_from(Action))
    statuses = at_once(taps)
    assert sorted(statuses) == [200, 422], statuses
    with race_app.app_context():
        out = entries(db.session.get(Event, event_id))
        assert out["D"].position == 4 and [e.position for n, e in out.items() if n != "D"] == [None] * 3
        assert db.session.scalar(db.select(db.func.count()).select_from(Action)) == actions + 1


def test_r_clock_3_many_screens_tapping_the_clock_at_once_move_it_once(race_app):
    with race_app.app_context():
        event = seed.tonight()
        event_id, version = event.id, event.clock_version
    phones = host_phones(race_app, 6)
    with race_app.app_context():
        taps = [host_post(phone, event_id, "clock", action="start", version=str(version)) for phone in phones]
    statuses = at_once(taps)
    assert sorted(statuses) == [200] + [409] * 5, statuses
    with race_app.app_context():
        event = db.session.get(Event, event_id)
        assert event.clock_started is True and event.clock_version > version
        clock = race_app.test_client().get(f"/api/events/{event_id}/clock").get_json()
        assert clock["running"] is True and clock["version"] == event.clock_version
