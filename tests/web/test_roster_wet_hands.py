"""The host's roster for wet hands: the players in the game by table and seat (the table map), the
one-tap bonus per player (R-CHIP-1/2), food or drink for everyone in one undoable action, and the
roster fragment's size for 200 players (bytes, before compression)."""
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event as sa_event

from services import Refused, bonuses, journal
from services.models import Action, BonusClaim, Entry, Event, Member
from tests.bench.night_load import member_names
from tests.conftest import login
from tests.fixtures.host import host_op, seat_players, tap
from tests.fixtures.pages import html, refusal
from tests.fixtures.rows import entries, written
from wiring.extensions import db


def claims(event):
    """(member name, kind) of every bonus claim of the night, sorted."""
    db.session.expire_all()
    return sorted(db.session.execute(db.select(Member.name, BonusClaim.kind).join(Entry, BonusClaim.entry_id == Entry.id)
                                     .join(Member).where(Entry.event_id == event.id)).all())


def unjournalled_players(event, n):
    """n members in the game at once (the night's players, as checked in and confirmed), written as rows:
    no journal, no seats, no clock version (what a 200-player roster's timing needs, not its history)."""
    people = [Member.named(event.league_id, name) for name in member_names(n)]
    db.session.add_all(people)
    db.session.flush()
    db.session.add_all([Entry(event_id=event.id, member_id=m.id, status="playing") for m in people])
    db.session.commit()


def test_r_seat_1_the_roster_lists_the_players_by_table_and_seat_then_the_out(client, night):
    night.max_seats = 4
    db.session.commit()
    roster = seat_players(client, night, [f"P{n}" for n in range(7)])
    before = html(client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    assert "Seats not drawn yet <span" in before and "Table 1 <span" not in before
    assert host_op(client, night, "draw").status_code == 200
    assert host_op(client, night, f"bust:{roster['P3'].id}").status_code == 200
    page = html(client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    now = entries(night)
    seated = sorted((e.table_no, e.seat_no, e.id) for e in now.values() if e.status == "playing")
    # Table 1 seat by seat, then table 2, each row its seat number and its player
    shown = [(int(t), int(s), int(i)) for t, rows in re.findall(
        r'data-table="(\d+)"><h3>Table \d+ <span class="count">\d+</span></h3>(.*?)</ul>', page, re.S)
        for s, i in re.findall(r'<li><b>(\d+)</b><label><input type="checkbox" name="out" value="(\d+)">', rows)]
    assert shown == seated and len(shown) == 6
    assert page.index("Table 2 <span") < page.index("<h2>Out <span")
    assert "Seats not drawn yet" not in page and "Not seated yet" not in page
    assert "1. P3" not in page and re.search(r"<li><span>7\. <a [^>]*>P3</a></span>", page)


def test_r_chip_1_one_tap_bonus_per_player_for_the_kinds_open_now(client, night):
    roster = seat_players(client, night, ["Anna", "Bob"])
    page = html(client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    # before play every kind of the nightly game is open; the first is picked, each row gives it
    kinds = re.findall(r'<input type="radio" name="kind" value="([a-z_]+)"', page)
    assert kinds == ["membership", "food", "drink", "early_registration", "promotional"]
    assert re.search(r'name="kind" value="membership"[^>]* checked', page) and "closed now" not in page
    assert page.count(">+Card</button>") == 2
    tapped = host_op(client, night, f"bonus:{roster['Anna'].id}", kind="food")
    assert tapped.status_code == 200 and "Anna: Food bonus +1,000" in html(tapped)
    assert claims(night) == [("Anna", "food")]
    after = html(tapped)
    assert re.search(r'name="kind" value="food"[^>]* checked', after)  # the kind stays picked
    assert f'<li data-has="food"><label><input type="checkbox" name="out" value="{roster["Anna"].id}">' in after
    # a second food bonus for her: refused in her row, nothing written
    before = written(night)
    twice = host_op(client, night, f"bonus:{roster['Anna'].id}", kind="food")
    assert twice.status_code == 422 and "Already claimed" in refusal(html(twice))
    assert re.search(rf'value="bust:{roster["Anna"].id}">Out</button>\s*<div class="refusal"', html(twice))
    assert written(night) == before
    # once play starts, food and drink are outside their window: still offered, marked, for a ruling
    tap(client, night, "start")
    running = html(client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    assert re.search(r'value="food"[^>]*>\s*Food <span class="muted">\+1,000 · closed now', running)
    assert re.search(r'name="kind" value="membership"[^>]* checked', running)
    assert "for everyone" not in running


def test_r_chip_2_food_for_everyone_is_one_action_each_player_once_and_undo_takes_it_back(client, night):
    roster = seat_players(client, night, ["Anna", "Bob", "Cy"])
    host_op(client, night, f"bonus:{roster['Bob'].id}", kind="food")
    actions = db.session.scalar(db.select(db.func.count()).select_from(Action))
    response = host_op(client, night, "bonus_all:food")
    assert response.status_code == 200 and "Food bonus +1,000 for 2 players" in html(response)
    assert claims(night) == [("Anna", "food"), ("Bob", "food"), ("Cy", "food")]  # Bob once
    assert db.session.scalar(db.select(db.func.count()).select_from(Action)) == actions + 1
    assert "Chips in play 33,000" in html(response)  # R-CHIP-3: 3 × 10,000 + 3 × 1,000
    again = host_op(client, night, "bonus_all:food")
    assert again.status_code == 422 and "Everyone in the game already has a food bonus." in refusal(html(again))
    last = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    undone = host_op(client, night, f"undo:{last.id}")
    assert undone.status_code == 200 and claims(night) == [("Bob", "food")]
    drinks = host_op(client, night, "bonus_all:drink")
    assert drinks.status_code == 200 and "Drink bonus +500 for 3 players" in html(drinks)


def test_r_chip_2_for_everyone_is_refused_outside_its_window_with_the_reason_and_writes_nothing(client, night):
    seat_players(client, night, ["Anna", "Bob"])
    tap(client, night, "start")
    before = written(night)
    for op, reason in [("bonus_all:food", "only before play starts or during the major break"),
                       ("bonus_all:membership", "Only food and drink bonuses go to everyone at once."),
                       ("bonus_all:caviar", "Only food and drink bonuses go to everyone at once."),
                       ("bonus_all", "Only food and drink bonuses go to everyone at once.")]:
        response = host_op(client, night, op)
        assert (op, response.status_code) == (op, 422) and reason in refusal(html(response))
        assert 'form="override"' not in html(response)  # the host overrides player by player
    assert written(night) == before and claims(night) == []


def test_r_chip_2_for_everyone_with_nobody_in_is_refused(client, night):
    login(client, "host", "pw-host")
    response = host_op(client, night, "bonus_all:food")
    assert response.status_code == 422 and "Nobody is in the game yet." in html(response)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st.lists(st.tuples(st.booleans(), st.sampled_from(["playing", "pending", "played"])),
                        min_size=1, max_size=6))
def test_r_chip_1_for_everyone_gives_each_player_in_the_game_exactly_one(night, players):
    """Whoever had food already and whoever is in the game: afterwards every player in the game has
    exactly one food bonus, nobody else got one, and a night where nobody is due one is refused."""
    event = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  host_id=night.host_id, status="running")
    db.session.add(event)
    db.session.flush()
    people = [Member.named(event.league_id, f"H{n}") for n in range(len(players))]
    db.session.add_all(people)
    db.session.flush()
    rows = [Entry(event_id=event.id, member_id=m.id, status=status) for m, (_, status) in zip(people, players)]
    db.session.add_all(rows)
    db.session.flush()
    db.session.add_all([BonusClaim(entry_id=e.id, kind="food", chips=1000) for e, (had, _) in zip(rows, players) if had])
    db.session.flush()
    due = [e for e, (had, status) in zip(rows, players) if not had and status == "playing"]
    log = journal.Journal(event, None, "bonus_all", "food for everyone")
    try:
        if due:
            assert bonuses.claim_for_everyone(event, "food", log) == (len(due), 1000)
        else:
            with pytest.raises(Refused, match="already has a food bonus|Nobody is in the game"):
                bonuses.claim_for_everyone(event, "food", log)
        for entry, (had, status) in zip(rows, players):
            count = db.session.scalar(db.select(db.func.count()).select_from(BonusClaim).where(
                BonusClaim.entry_id == entry.id, BonusClaim.kind == "food"))
            assert count == (1 if had or status == "playing" else 0)
    finally:
        db.session.rollback()


def test_the_roster_fragment_for_200_players_is_at_most_60_kb(client, night):
    """Every player's name once (the pickers fill from the rows in roster.js), at 200 players seated,
    food for everyone given (each row marks it): bytes before compression, not time."""
    unjournalled_players(night, 200)
    login(client, "host", "pw-host")
    assert host_op(client, night, "draw").status_code == 200
    assert host_op(client, night, "bonus_all:food").status_code == 200
    fragment = client.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}).get_data()
    page = fragment.decode()
    assert page.count('name="out"') == 200 and page.count('data-has="food"') == 200  # all there
    assert len(fragment) <= 60 * 1024, len(fragment)
    # each name once: its row (the escaping is the template's)
    assert page.count("Aoife O&#39;Brien &lt;b&gt;") == 1


def test_r_chip_2_food_for_everyone_is_one_insert_and_its_journal_names_every_claim(client, night):
    """One INSERT for all the night's claims (not one per player), and the action's journal lists each
    new claim, so Undo removes exactly them (an earlier claim of another kind stays)."""
    unjournalled_players(night, 30)
    login(client, "host", "pw-host")
    first = db.session.scalar(db.select(Entry).where(Entry.event_id == night.id).order_by(Entry.id))
    assert host_op(client, night, f"bonus:{first.id}", kind="membership").status_code == 200
    inserts = []

    def seen(conn, cursor, statement, params, context, executemany):
        if statement.startswith("INSERT INTO bonus_claims"):
            inserts.append(statement)

    sa_event.listen(db.engine, "before_cursor_execute", seen)
    try:
        assert host_op(client, night, "bonus_all:food").status_code == 200
    finally:
        sa_event.remove(db.engine, "before_cursor_execute", seen)
    assert len(inserts) == 1
    food = set(db.session.scalars(db.select(BonusClaim.id).where(BonusClaim.kind == "food")))
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert len(food) == 30 and {row_id for table, row_id, before in action.changes
                                if table == "bonus_claims" and before is None} == food
    assert host_op(client, night, f"undo:{action.id}").status_code == 200
    assert [kind for (kind,) in db.session.execute(db.select(BonusClaim.kind))] == ["membership"]
