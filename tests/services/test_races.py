"""Phones acting on one night at the same moment, on PostgreSQL (READ COMMITTED, row locks), as a
crowded pub does: the last players voting yes at once (R-PAY-2) agree the deal; the same new name
from several phones (R-MEM-1) makes one member, and a refusal for the others, never a 500."""
import os
import threading
import uuid

import psycopg
import pytest
from flask import g, request_started
from flask_migrate import upgrade
from itsdangerous import URLSafeSerializer

from app import create_app
from blueprints.play.member_cookie import COOKIE
from league.statuses import DealStatus, EntryStatus
from services.models import Entry, Event, Member
from tests.conftest import csrf_token
from tests.fixtures import tonight as seed
from wiring.extensions import db

pytestmark = pytest.mark.services
PG = os.environ.get("SHUFFLEUP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture
def pg_app():
    """An app on a fresh PostgreSQL database migrated to head, dropped afterwards."""
    name = "shuffleup_test_" + uuid.uuid4().hex[:10]
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    app = create_app({"TESTING": True, "SECRET_KEY": "race-secret", "WTF_CSRF_ENABLED": True,
                      "SQLALCHEMY_DATABASE_URI": PG.rsplit("/", 1)[0] + "/" + name,
                      "SQLALCHEMY_ENGINE_OPTIONS": {"pool_size": 12}})
    # As tests/conftest.py's make_app: every request starts with an empty `g` (the CSRF token).
    request_started.connect(lambda sender, **kwargs: g.__dict__.clear(), app, weak=False)
    with app.app_context():
        upgrade()
        db.session.remove()
    yield app
    with app.app_context():
        db.engine.dispose()
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


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


@pytest.mark.parametrize("round_", range(4))
def test_r_pay_2_the_last_players_voting_yes_at_once_agree_the_deal(pg_app, round_):
    event_id, phones = a_deal_on_the_ballot(pg_app, players=6)
    with pg_app.app_context():
        assert vote_yes(phones[0], event_id)() == 303
        votes = [vote_yes(phone, event_id) for phone in phones[1:]]
    statuses = at_once(votes)
    assert statuses == [303] * 5
    with pg_app.app_context():
        event = db.session.get(Event, event_id)
        still_in = db.session.scalars(db.select(Entry).where(Entry.event_id == event_id,
                                                             Entry.chips_at_deal.is_not(None))).all()
        assert all(e.deal_vote is True for e in still_in)
        assert event.deal_status == DealStatus.AGREED  # not left open with every vote cast
        assert sorted(e.position for e in still_in) == [1, 2, 3, 4, 5, 6]
        assert all(e.status == EntryStatus.PLAYED for e in still_in)


def test_r_mem_1_the_same_new_name_from_five_phones_at_once_makes_one_member(pg_app):
    with pg_app.app_context():
        event = seed.tonight()
        code, event_id = event.check_in_code, event.id
    phones = [pg_app.test_client() for _ in range(5)]
    with pg_app.app_context():
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
    with pg_app.app_context():
        assert db.session.scalars(db.select(Member.name)).all() == ["Jack Burke"]
        assert db.session.scalar(db.select(db.func.count()).select_from(Entry).where(Entry.event_id == event_id)) == 1


def test_r_mem_1_a_double_tap_checks_in_once(pg_app):
    with pg_app.app_context():
        event = seed.tonight()
        code, event_id = event.check_in_code, event.id
        member = Member.named(event.league_id, "Ann Lee")
        db.session.add(member)
        db.session.commit()
        cookie = URLSafeSerializer(pg_app.secret_key, salt="member-cookie").dumps([member.id, member.cookie_secret])
    phone = pg_app.test_client()
    phone.set_cookie(COOKIE, cookie)
    with pg_app.app_context():
        token = csrf_token(phone, f"/check-in/{code}")
    taps = at_once([lambda: phone.post(f"/check-in/{code}", data={"csrf_token": token}).status_code] * 2)
    assert taps == [303, 303]
    with pg_app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Entry).where(Entry.event_id == event_id)) == 1
