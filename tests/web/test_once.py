"""One tap, one action (blueprints/once.py, DESIGN "Idempotency"): a request sent again with the same
idempotency key (a double tap, a retry after no answer or a 503) applies once and answers as the
first did; two sent at the same moment apply once too, on SQLite and PostgreSQL; unique constraints
back the rules' "only one" for requests that carry no key; a 503 after the commit says it was saved."""
import datetime as dt
import json
import threading

import pytest
from itsdangerous import TimestampSigner
from sqlalchemy import event, exc, update

import blueprints
from blueprints import once
from league.statuses import RulingKind
from services import members
from services.models import (
    BonusClaim,
    Event,
    Member,
    MemberMerge,
    Penalty,
    PushSubscription,
    RequestKey,
    Ruling,
    User,
    Venue,
)
from tests.conftest import csrf_token, login
from tests.fixtures.host import DAY, floor_op, host_op, put_to_vote, seat_players, tap
from tests.fixtures.phones import phone_of, vote
from tests.fixtures.push_service import PushService
from tests.fixtures.roster import seated_night
from tests.fixtures.rows import count, entries, member
from tests.web.test_fuzz import dump
from wiring import health
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "two requests at once meet in each database's own locking: a unique index waits on PostgreSQL, the "
    "whole file is locked on SQLite, and the double taps the issue found made two rows on PostgreSQL only")

KEY = "0123456789abcdef0123456789abcdef"
OTHER_KEY = "fedcba9876543210fedcba9876543210"
HTMX = {"HX-Request": "true"}


def keyed(key: str = KEY, htmx: bool = True) -> dict:
    return {**(HTMX if htmx else {}), once.HEADER: key}


def at_once(*sends):
    """Each of `sends` (no argument) on a thread of its own, released together: their answers."""
    barrier, answers = threading.Barrier(len(sends)), [None] * len(sends)

    def run(n):
        barrier.wait()
        answers[n] = sends[n]()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    db.session.remove()  # read afresh: the threads committed on connections of their own
    return answers


def twin_of(app, client):
    """A second connection of the same browser (its session, so its login and keys): a retry's."""
    twin = app.test_client()
    with client.session_transaction() as session:
        cookie = dict(session)
    with twin.session_transaction() as session:
        session.update(cookie)
    return twin


def replayed(response) -> bool:
    return response.headers.get("Idempotency-Replayed") == "true"


def without_keys(rows: dict) -> dict:
    return {table: rows_ for table, rows_ in rows.items() if table != "request_keys"}


@pytest.fixture
def players(client, night):
    """Ann and Bob at tonight's night, the host logged in on `client`, the clock started (R-CHIP-2:
    food and drink bonuses are then outside their window: the host may still give one anyway)."""
    roster = seat_players(client, night, ["Ann", "Bob"])
    assert tap(client, night, "start").status_code == 200
    return roster


def bonus_anyway(client, night, entry, kind="food"):
    return {"op": f"bonus:{entry.id}", "kind": kind, "why": "Ate before the clock started",
            "csrf_token": csrf_token(client, "/")}


# --- R-CHIP-2: "Give the bonus anyway" -------------------------------------------------------------

def test_r_chip_2_the_override_reason_does_not_pass_already_claimed(client, night, players):
    """The reason lets a claim in outside its window, never a second bonus of a kind (no key: an old
    page, a script)."""
    form = bonus_anyway(client, night, players["Ann"])
    assert client.post(f"/host/events/{night.id}/players", headers=HTMX, data=form).status_code == 200
    again = client.post(f"/host/events/{night.id}/players", headers=HTMX, data=form)
    assert again.status_code == 422 and "Already claimed" in again.get_data(as_text=True)
    assert count(BonusClaim) == 1


def test_r_chip_1_the_database_holds_one_bonus_of_a_kind_per_player(app, night, players):
    db.session.add(BonusClaim(entry_id=players["Ann"].id, kind="food", chips=1000))
    db.session.commit()
    db.session.add(BonusClaim(entry_id=players["Ann"].id, kind="food", chips=1000))
    with pytest.raises(exc.IntegrityError):
        db.session.commit()
    db.session.rollback()


def test_r_chip_2_a_double_tap_on_give_the_bonus_anyway_gives_one_bonus_and_answers_twice_alike(
        client, night, players):
    form = bonus_anyway(client, night, players["Ann"])
    first = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    second = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert first.status_code == second.status_code == 200
    assert not replayed(first) and replayed(second)
    assert second.get_data() == first.get_data() and second.mimetype == first.mimetype
    assert count(BonusClaim) == 1
    assert db.session.scalar(db.select(RequestKey.applied)) is True


def test_two_buttons_of_one_form_are_two_actions_under_one_key(client, night, players):
    """The key names the request with what it sends: Food then Drink before the first answer came
    (app.js renews the key only on an answer) are two taps, not a repeat."""
    for kind in ("food", "drink"):
        response = client.post(f"/host/events/{night.id}/players", headers=keyed(),
                               data=bonus_anyway(client, night, players["Ann"], kind))
        assert response.status_code == 200 and not replayed(response)
    assert count(BonusClaim) == 2


def test_the_form_field_carries_the_key_as_the_header_does(client, night, players):
    form = {**bonus_anyway(client, night, players["Ann"]), once.FIELD: KEY}
    answers = [client.post(f"/host/events/{night.id}/players", data=form) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200] and replayed(answers[1])
    assert count(BonusClaim) == 1


def test_a_repeat_with_a_fresh_csrf_token_is_the_same_action(client, night, players, monkeypatch):
    """The token is the page's, not the action's (and timestamped: a page read a second later holds
    another): the same key and fields with a newer token are answered as the first, applied once."""
    first = bonus_anyway(client, night, players["Ann"])
    stamped = TimestampSigner.get_timestamp
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda signer: stamped(signer) + 5)  # the page reloaded later
    again = {**first, "csrf_token": csrf_token(client, "/")}
    assert again["csrf_token"] != first["csrf_token"]
    answers = [client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form) for form in (first, again)]
    assert [a.status_code for a in answers] == [200, 200] and replayed(answers[1])
    assert answers[1].get_data() == answers[0].get_data()
    assert count(BonusClaim) == 1


def test_a_refusal_is_answered_again_as_it_was_and_writes_nothing(client, night, players):
    bob = players["Bob"]
    form = {"op": f"bonus:{bob.id}", "kind": "food", "csrf_token": csrf_token(client, "/")}  # outside the window
    before = without_keys(dump())
    first = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    second = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert first.status_code == second.status_code == 422 and replayed(second)
    assert second.get_data() == first.get_data()
    assert without_keys(dump()) == before


def test_a_garbled_key_is_refused_and_changes_nothing(client, night, players):
    before = without_keys(dump())
    for key in ("short", "x" * 65, "a key with spaces in it!!", "ключ" * 8):
        response = client.post(f"/host/events/{night.id}/players", headers={**HTMX, once.HEADER: key},
                               data=bonus_anyway(client, night, players["Ann"]))
        assert response.status_code == 400
    assert dump() == before | {"request_keys": []}


def test_a_request_without_a_key_works_as_before(client, night, players):
    response = host_op(client, night, f"bonus:{players['Ann'].id}", kind="food", why="Receipt shown")
    assert response.status_code == 200 and count(BonusClaim) == 1 and count(RequestKey) == 0


def test_the_same_key_from_another_login_is_another_request(app, client, night, players, organiser):
    """Keys are each login's own: the organiser's warning under the host's key is a warning of its own."""
    other = app.test_client()
    login(other, "organiser", "pw-organiser")
    ann = players["Ann"]
    for phone in (client, other):
        response = phone.post(f"/host/events/{night.id}/floor/{ann.id}", headers=keyed(),
                              data={"op": "give:warning", "reason": "Slow play", "csrf_token": csrf_token(phone, "/")})
        assert response.status_code == 200 and not replayed(response)
    assert count(Penalty) == 2


# --- the double taps, each with the page's key, one after the other and at the same moment ----

def _warning(client, night, players):
    ann = players["Ann"]
    return (f"/host/events/{night.id}/floor/{ann.id}",
            {"op": "give:warning", "reason": "Slow play", "csrf_token": csrf_token(client, "/")},
            lambda: count(Penalty))


def _extend(client, night, players):
    ann = players["Ann"]
    assert floor_op(client, night, ann, "give:missed_hands", hands="3", reason="Phone at the table").status_code == 200
    penalty = db.session.scalar(db.select(Penalty))
    return (f"/host/events/{night.id}/floor/{ann.id}",
            {"op": f"extend:{penalty.id}", "more_hands": "2", "csrf_token": csrf_token(client, "/")},
            lambda: (db.session.get(Penalty, penalty.id).hands, count(Ruling)))


def _bonus(client, night, players):
    return (f"/host/events/{night.id}/players", bonus_anyway(client, night, players["Ann"]), lambda: count(BonusClaim))


def _bust(client, night, players):
    return (f"/host/events/{night.id}/players",
            {"op": f"bust:{players['Bob'].id}", "csrf_token": csrf_token(client, "/")},
            lambda: sorted((e.status, e.position) for e in entries(night).values()))


def _new_night(client, night, players):
    return ("/host/nights",
            {"csrf_token": csrf_token(client, "/host/"), "venue": str(night.venue_id), "date": DAY,
             "start_time": "19:00", "event_type": "nightly", "template": "thpa_nightly"},
            lambda: count(Event))


def _as_organiser(client):
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, "organiser", "pw-organiser")


def _spare_members(night, *names):
    found = [members.join(night.league_id, name, True, False) for name in names]
    db.session.commit()
    return found


def _merge(client, night, players):
    kept, other = _spare_members(night, "Zoe Kept", "Zoe Again")
    _as_organiser(client)
    return (f"/organiser/{night.league.slug}/members/{kept.id}/merge",
            {"other": str(other.id), "csrf_token": csrf_token(client, "/")}, lambda: count(MemberMerge))


def _ban(client, night, players):
    (zed,) = _spare_members(night, "Zed Banned")
    _as_organiser(client)
    return (f"/organiser/{night.league.slug}/members/{zed.id}/ban",
            {"reason": "Abusive to staff", "csrf_token": csrf_token(client, "/")},
            lambda: db.session.scalar(db.select(db.func.count()).select_from(Ruling).where(
                Ruling.kind == RulingKind.BAN)))


def _venue(client, night, players):
    _as_organiser(client)
    return (f"/organiser/{night.league.slug}/venues",
            {"name": "The Anchor", "address": "1 Quay St", "csrf_token": csrf_token(client, "/")}, lambda: count(Venue))


def _host_login(client, night, players):
    _as_organiser(client)
    return (f"/organiser/{night.league.slug}/hosts",
            {"username": "hana", "display_name": "Hana", "password": "a long enough password 1",
             "csrf_token": csrf_token(client, "/")}, lambda: count(User))


DOUBLE_TAPS = {"warning": _warning, "extend penalty": _extend, "bonus anyway": _bonus, "out": _bust,
               "new night": _new_night, "merge": _merge, "ban": _ban, "venue": _venue, "host login": _host_login}


@pytest.mark.parametrize("action", DOUBLE_TAPS)
def test_a_double_tap_applies_once_and_answers_as_the_first(client, night, players, action):
    path, form, state = DOUBLE_TAPS[action](client, night, players)
    before = state()
    first = client.post(path, headers=keyed(), data=form)
    db.session.remove()
    once_applied = state()
    second = client.post(path, headers=keyed(), data=form)
    db.session.remove()
    assert first.status_code < 400, first.get_data(as_text=True)[:400]
    assert once_applied != before and state() == once_applied
    assert replayed(second) and (second.status_code, second.get_data()) == (first.status_code, first.get_data())
    assert second.headers.get("Location") == first.headers.get("Location")


@pytest.mark.parametrize("action", DOUBLE_TAPS)
def test_two_taps_at_the_same_moment_apply_once(app, client, night, players, action):
    path, form, state = DOUBLE_TAPS[action](client, night, players)
    before = state()
    twin = twin_of(app, client)
    answers = at_once(*(lambda phone=phone: phone.post(path, headers=keyed(), data=form) for phone in (client, twin)))
    assert all(a.status_code < 500 for a in answers), [a.status_code for a in answers]
    ran = [a for a in answers if not replayed(a) and a.status_code != 409]
    assert len(ran) == 1 and ran[0].status_code < 400, [(a.status_code, a.get_data(as_text=True)[:200]) for a in answers]
    after = state()
    assert after != before
    # and a third time, later: the first answer again, nothing more
    third = client.post(path, headers=keyed(), data=form)
    db.session.remove()
    assert replayed(third) and third.status_code == ran[0].status_code and state() == after
    assert count(RequestKey) == 1


# --- without a key, the database's own "only one" answers a race with words, never a 500 ------------

@pytest.mark.parametrize("action", ["merge", "ban", "venue", "host login"])
def test_two_requests_without_a_key_at_the_same_moment_make_one_row_and_no_500(app, client, night, players, action):
    path, form, state = DOUBLE_TAPS[action](client, night, players)
    before = state()
    twin = twin_of(app, client)
    answers = at_once(*(lambda phone=phone: phone.post(path, headers=HTMX, data=form) for phone in (client, twin)))
    codes = sorted(a.status_code for a in answers)
    assert codes[0] == 200 and codes[1] in (200, 409, 422), codes
    if codes[1] == 409:  # the database's "only one", or the rule's own refusal when the first was in first
        said = answers[[a.status_code for a in answers].index(409)].get_data(as_text=True)
        assert "was just saved by another tap" in said or "already merged" in said, said[:400]
    assert state() != before
    if action in ("merge", "ban"):
        assert state() == 1


def test_a_record_is_merged_once_at_a_time_in_the_database(app, night):
    kept, other = _spare_members(night, "Zoe Kept", "Zoe Again")
    db.session.add(MemberMerge(league_id=night.league_id, kept_id=kept.id, merged_id=other.id, moved={}))
    db.session.commit()
    db.session.add(MemberMerge(league_id=night.league_id, kept_id=kept.id, merged_id=other.id, moved={}))
    with pytest.raises(exc.IntegrityError):
        db.session.commit()
    db.session.rollback()


# --- faults: a 503 says what happened, and a retry with the same key applies at most once ------------

def _fail_after_the_commit(monkeypatch):
    """The database drops after the action's commit, before the answer (the phones' notice is the
    first thing after it)."""
    def dropped(*args, **kwargs):
        raise exc.OperationalError("SELECT 1", {}, ConnectionError("server closed the connection"))
    monkeypatch.setattr("blueprints.announce", dropped)


def test_a_503_after_the_commit_says_it_was_saved_and_a_retry_applies_nothing(client, night, players, monkeypatch):
    form = bonus_anyway(client, night, players["Ann"])
    with monkeypatch.context() as patch:
        _fail_after_the_commit(patch)
        failed = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert failed.status_code == 503
    said = failed.get_data(as_text=True)
    assert "was saved" in said and "Nothing was changed" not in said
    assert count(BonusClaim) == 1
    retry = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert retry.status_code == 200 and retry.headers.get("HX-Refresh") == "true"
    assert "already saved" in retry.get_data(as_text=True)
    assert count(BonusClaim) == 1


def test_a_503_after_the_commit_says_so_to_a_script_too(client, night, players, monkeypatch):
    _fail_after_the_commit(monkeypatch)
    failed = client.post(f"/host/events/{night.id}/players", headers={**keyed(), "Accept": "application/json"},
                         data=bonus_anyway(client, night, players["Ann"]))
    assert failed.status_code == 503 and failed.get_json() == {"error": health.SAVED_THEN_DOWN, "saved": True}


def test_a_503_after_the_commit_says_it_was_saved_without_a_key_too(client, night, players, monkeypatch):
    """An old page's request (no key): it cannot be answered again, but its 503 still tells the truth."""
    _fail_after_the_commit(monkeypatch)
    failed = client.post(f"/host/events/{night.id}/players", headers=HTMX, data=bonus_anyway(client, night, players["Ann"]))
    assert failed.status_code == 503 and "was saved" in failed.get_data(as_text=True)
    assert count(BonusClaim) == 1 and count(RequestKey) == 0


def test_a_503_before_the_commit_says_nothing_changed_and_a_retry_applies_once(client, night, players, monkeypatch):
    form = bonus_anyway(client, night, players["Ann"])

    def down(*args, **kwargs):
        raise exc.OperationalError("SELECT 1", {}, ConnectionError("server closed the connection"))
    with monkeypatch.context() as patch:
        patch.setattr("services.bonuses.claim_bonus", down)
        failed = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert failed.status_code == 503 and health.DATABASE_DOWN in failed.get_data(as_text=True).replace("&#39;", "'")
    assert count(BonusClaim) == 0 and count(RequestKey) == 0  # the claim let go: the retry is the action
    retry = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert retry.status_code == 200 and not replayed(retry) and count(BonusClaim) == 1


def test_a_fault_during_the_commit_says_it_may_have_been_saved(app, client, night, players, monkeypatch):
    def cut(session):  # after the claim's own mark, in the commit that writes (not the lock's first)
        if session.info.get("once_marking"):
            raise exc.OperationalError("COMMIT", {}, ConnectionError("server closed the connection"))
    event.listen(db.session, "before_commit", cut)
    try:
        failed = client.post(f"/host/events/{night.id}/players", headers=keyed(),
                             data=bonus_anyway(client, night, players["Ann"]))
    finally:
        event.remove(db.session, "before_commit", cut)
    assert failed.status_code == 503 and "may or may not have been saved" in failed.get_data(as_text=True)
    assert count(BonusClaim) == 0
    retry = client.post(f"/host/events/{night.id}/players", headers=keyed(),
                        data=bonus_anyway(client, night, players["Ann"]))
    assert retry.status_code == 200 and count(BonusClaim) == 1


def test_a_claim_whose_request_died_is_busy_then_taken_over(app, client, night, players, monkeypatch):
    """A worker killed mid-request leaves its claim (nothing committed): a retry is told "already being
    done" at first, and once the claim is abandoned it is taken over and the action applied once."""
    form = bonus_anyway(client, night, players["Ann"])

    def down(*args, **kwargs):
        raise exc.OperationalError("SELECT 1", {}, ConnectionError("gone"))
    with monkeypatch.context() as patch:  # the claim is not let go: as if the worker died
        patch.setattr("services.bonuses.claim_bonus", down)
        patch.setattr("blueprints.once._let_go", lambda claim: None)
        assert client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form).status_code == 503
    app.config.update(ONCE_WAIT_S=0.2, ONCE_ABANDONED_S=3600)
    busy = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert busy.status_code == 409 and "already being done" in busy.get_data(as_text=True)
    assert count(BonusClaim) == 0
    app.config.update(ONCE_ABANDONED_S=0)
    taken = client.post(f"/host/events/{night.id}/players", headers=keyed(), data=form)
    assert taken.status_code == 200 and count(BonusClaim) == 1 and count(RequestKey) == 1


def test_a_request_whose_claim_was_taken_over_cannot_commit(client, night, players, monkeypatch):
    """The backstop: a slow request whose claim a retry took over in the meantime writes nothing."""
    real = blueprints.lock_event

    def slow(*args, **kwargs):
        with db.engine.begin() as connection:  # a retry took the claim meanwhile
            connection.execute(update(RequestKey).values(owner="someone else"))
        return real(*args, **kwargs)
    monkeypatch.setattr("blueprints.lock_event", slow)
    response = client.post(f"/host/events/{night.id}/players", headers=keyed(),
                           data=bonus_anyway(client, night, players["Ann"]))
    assert response.status_code == 409 and count(BonusClaim) == 0


def test_keys_older_than_a_day_are_pruned(app, client, night, players):
    db.session.add(RequestKey(who="login:1", key="old", owner="x", path="/", applied=True, status=200,
                              claimed_at=dt.datetime(2020, 1, 1)))
    db.session.commit()
    app.extensions.pop("once_pruned", None)
    client.post(f"/host/events/{night.id}/players", headers=keyed(), data=bonus_anyway(client, night, players["Ann"]))
    assert db.session.scalars(db.select(RequestKey.key)).all() != ["old"]
    assert "old" not in db.session.scalars(db.select(RequestKey.key)).all()


def test_an_answer_holding_a_password_link_is_not_kept(client, night, players):
    """The table keeps no secret: a repeat of "add a host with a link to hand over" is told it was
    saved, and one login is made."""
    _as_organiser(client)
    form = {"username": "hana", "display_name": "Hana", "csrf_token": csrf_token(client, "/")}
    first = client.post(f"/organiser/{night.league.slug}/hosts", headers=keyed(), data=form)
    assert first.status_code == 200 and "/password/" in first.get_data(as_text=True)
    assert db.session.scalar(db.select(RequestKey.body)) is None
    second = client.post(f"/organiser/{night.league.slug}/hosts", headers=keyed(), data=form)
    assert second.status_code == 200 and "already saved" in second.get_data(as_text=True)
    assert "/password/" not in second.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(User).where(User.username == "hana")) == 1


def test_a_players_own_vote_sent_twice_is_one_vote(app, client, night, final_three):
    """A player's phone (no login: their session's keys) double-taps Yes: one vote, answered alike."""
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    phone = final_three["Ann"]
    token = csrf_token(phone)
    answers = [phone.post(f"/events/{night.id}/deal", headers={once.HEADER: OTHER_KEY},
                          data={"csrf_token": token, "vote": "yes"}) for _ in range(2)]
    assert answers[0].status_code < 400 and replayed(answers[1]) and answers[1].status_code == answers[0].status_code
    db.session.expire_all()
    assert [e.deal_vote for e in entries(night).values() if e.member.name == "Ann"] == [True]
    assert "already voted" not in answers[1].get_data(as_text=True)
    assert vote(phone, night, True).status_code == 422  # a new tap (no key) is refused as before


def test_the_member_model_is_unchanged_by_a_refused_ban(client, night, players):
    (zed,) = _spare_members(night, "Zed Twice")
    _as_organiser(client)
    url = f"/organiser/{night.league.slug}/members/{zed.id}/ban"
    assert client.post(url, data={"reason": "Abuse", "csrf_token": csrf_token(client, "/")}).status_code == 200
    again = client.post(url, data={"reason": "Abuse", "csrf_token": csrf_token(client, "/")})
    assert again.status_code == 422 and "already banned" in again.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.get(Member, zed.id).ban_reason == "Abuse"


def test_a_newcomer_double_tapping_join_is_one_member(app, night):
    """The check-in link's Join, double-tapped on a phone with no card yet (its session's keys): one
    member, one entry, the second answer the first's (the phone's cookie came with the first)."""
    phone = app.test_client()
    form = {"csrf_token": csrf_token(phone, f"/check-in/{night.check_in_code}"), "name": "Zara New", "adult": "yes",
            once.FIELD: KEY}
    first, second = (phone.post(f"/check-in/{night.check_in_code}", data=form) for _ in range(2))
    assert first.status_code < 400 and replayed(second) and second.status_code == first.status_code
    assert db.session.scalar(db.select(db.func.count()).select_from(Member).where(Member.name == "Zara New")) == 1
    assert [e.member.name for e in entries(night).values()] == ["Zara New"]


def test_the_json_api_takes_the_key_as_a_header(app, night):
    """POST /me/push (DESIGN: the JSON API) sent twice with one Idempotency-Key: one subscription, the
    second answer the first's."""
    seated_night(night, ["Ann", "Bob"])
    phone = phone_of(app, member("Ann"))
    token = csrf_token(phone, "/login")
    service = PushService()
    try:
        app.config.update(PUSH_SERVICES=service.origin, PUSH_BACKOFF_SCALE=0.01)
        subscription = service.phone("ann").subscription()
        answers = [phone.post("/me/push", data=json.dumps(subscription), content_type="application/json",
                              headers={"X-CSRFToken": token, once.HEADER: KEY}) for _ in range(2)]
    finally:
        assert app.extensions["push"].wait_idle()
        service.close()
    assert [a.status_code for a in answers] == [201, 201] and replayed(answers[1])
    assert answers[1].get_json() == answers[0].get_json()
    assert count(PushSubscription) == 1 and db.session.scalar(db.select(RequestKey.applied)) is True
