"""Re-entries and rebuys on the host's roster (R-ENTRY-1..2): off in the THPA defaults; a busted
player re-enters on a new random seat, or a player who lost every chip rebuys keeping their seat;
each adds its buy-in to the pool and its stack to chips in play, while points and paid places count
players and a re-entered player finishes once, from their last entry (R-STD-1: one night played)."""
import re

import pytest

from live.payload import clock_payload
from services import field, standings
from services.models import Action, Entry, Event
from services.night_snapshot import read_night
from services.pack import month_pack
from tests.fixtures.cash import as_cash_night
from tests.fixtures.host import floor_op, floor_url, host_op, past_the_major_break, seat_players, tap
from tests.fixtures.pages import html, refusal
from tests.fixtures.phones import phone_of
from tests.fixtures.roster import draw_seats
from tests.fixtures.rows import entries
from wiring.extensions import db

FIVE = ["Ann", "Bob", "Cat", "Dan", "Eve"]


def allow(night, mode="reentry", **more):
    """The night's own re-entry setting, as a night created under it keeps it (its settings snapshot)."""
    night.settings = {**(night.settings or {}), "reentry": mode, **more}
    db.session.commit()


def snapshot(night):
    """Everything a refused re-entry must leave as it was."""
    db.session.expire_all()
    return (tuple(db.session.execute(db.select(Entry.id, Entry.status, Entry.buy_ins, Entry.bust_hand, Entry.position,
                                               Entry.table_no, Entry.seat_no).order_by(Entry.id))),
            db.session.scalar(db.select(db.func.count()).select_from(Action)))


@pytest.fixture
def cash_table(client, night):
    """A $30 cash night ($20 to the pool, $100 guaranteed): five players seated, the host logged in."""
    as_cash_night(night, 30, 20, 100)
    seat_players(client, night, FIVE)
    return draw_seats(night)


def test_r_entry_1_off_in_the_thpa_defaults_no_button_and_refused(client, night, cash_table):
    host_op(client, night, f"bust:{cash_table['Eve'].id}")
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert "Re-enter" not in roster and "Rebuy" not in roster
    before = snapshot(night)
    refused = host_op(client, night, f"reenter:{cash_table['Eve'].id}")
    assert refused.status_code == 422
    assert "Re-entries and rebuys are off for this game." in refusal(html(refused))
    assert snapshot(night) == before


def test_r_entry_1_2_a_busted_player_re_enters_on_a_new_seat_and_the_pool_and_chips_grow(client, night, cash_table):
    allow(night)
    stack = field.starting_stack(night)
    eve = cash_table["Eve"]
    host_op(client, night, f"bust:{eve.id}")
    assert entries(night)["Eve"].position == 5
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert f'value="reenter:{eve.id}"' in roster and roster.count("Re-enter</button>") == 1
    done = host_op(client, night, f"reenter:{eve.id}")
    assert done.status_code == 200
    again = entries(night)["Eve"]
    assert again.status == "playing" and again.buy_ins == 2 and again.position is None and again.bust_hand is None
    assert again.table_no is not None and again.seat_no is not None  # R-LATE-2: a seat from the draw
    assert re.search(rf"Eve re-entered \(2nd buy-in\): table {again.table_no} seat {again.seat_no}", html(done))
    seats = [(e.table_no, e.seat_no) for e in entries(night).values()]
    assert len(set(seats)) == 5  # nobody shares a seat
    # R-ENTRY-2: six buy-ins in the pool, six stacks in play, five players in the field
    assert read_night(night).chip_count() == (6 * stack, 6 * stack // 5)
    assert sum(read_night(night).prizes) == 100 + 6 * 20 and len(read_night(night).prizes) == 1
    assert clock_payload(night)["average_stack"] == 6 * stack // 5
    # the next one out finishes 5th: the field counts players, and Eve's bust-out left the order
    host_op(client, night, f"bust:{cash_table['Dan'].id}")
    assert entries(night)["Dan"].position == 5


def test_r_entry_2_one_finishing_position_from_the_last_entry_and_one_night_played(client, night, cash_table):
    allow(night, reentry_limit=2)
    for name in ("Eve", "Dan"):
        host_op(client, night, f"bust:{cash_table[name].id}")
    host_op(client, night, f"reenter:{cash_table['Eve'].id}")
    for name in ("Cat", "Eve", "Bob"):  # Eve busts again: 3rd of 5, her last entry
        host_op(client, night, f"bust:{cash_table[name].id}")
    assert host_op(client, night, "settle").status_code == 200
    final = entries(night)
    assert {n: e.position for n, e in final.items()} == {"Ann": 1, "Bob": 2, "Eve": 3, "Cat": 4, "Dan": 5}
    assert final["Eve"].points == 200  # R-PTS-2: 3rd of 5 earns the base value of 8th
    assert final["Eve"].buy_ins == 2 and final["Ann"].prize == 100 + 6 * 20
    settled = html(client.get(f"/host/events/{night.id}/players"))
    assert "Re-enter</button>" not in settled  # R-ENTRY-1: a settled night takes no re-entry
    table = standings.month_standings(night.league, night.date.strftime("%Y-%m"))  # R-STD-1
    assert next(r for r in table if r.player == "Eve").events == 1


def test_r_entry_1_the_limit_the_period_and_who_may_re_enter(client, night, cash_table):
    allow(night)
    ann, eve = cash_table["Ann"], cash_table["Eve"]
    before = snapshot(night)
    still_in = host_op(client, night, f"reenter:{ann.id}")
    assert still_in.status_code == 422 and "Ann is still in the game" in refusal(html(still_in))
    assert snapshot(night) == before
    host_op(client, night, f"bust:{eve.id}")
    host_op(client, night, f"reenter:{eve.id}")
    host_op(client, night, f"bust:{eve.id}")
    before = snapshot(night)
    limit = host_op(client, night, f"reenter:{eve.id}")
    assert limit.status_code == 422 and "already bought back in once, the limit" in refusal(html(limit))
    assert snapshot(night) == before
    assert f'value="reenter:{eve.id}"' not in html(client.get(f"/host/events/{night.id}/players"))
    # the period ends when registration closes (R-LATE-1)
    allow(night, reentry_limit=5)
    tap(client, night, "start")
    past_the_major_break(client, night)
    before = snapshot(night)
    over = host_op(client, night, f"reenter:{eve.id}")
    assert over.status_code == 422 and "The re-entry period is over." in refusal(html(over))
    assert snapshot(night) == before


def test_r_entry_1_a_period_in_minutes_of_play(client, night, cash_table):
    allow(night, reentry_until_minutes=15, reentry_limit=3)
    eve = cash_table["Eve"]
    tap(client, night, "start")
    host_op(client, night, f"bust:{eve.id}")
    assert host_op(client, night, f"reenter:{eve.id}").status_code == 200  # within the first 15 minutes
    host_op(client, night, f"bust:{eve.id}")
    tap(client, night, "next")  # the first level (15 minutes) is over, and the period with it
    assert clock_payload(night)["level"] == 2
    before = snapshot(night)
    over = host_op(client, night, f"reenter:{eve.id}")
    assert over.status_code == 422 and "The re-entry period is over." in refusal(html(over))
    assert snapshot(night) == before


def test_r_entry_1_a_rebuy_keeps_the_seat_and_adds_a_stack(client, night, cash_table):
    allow(night, "rebuy")
    stack = field.starting_stack(night)
    bob = cash_table["Bob"]
    seat = (bob.table_no, bob.seat_no)
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert "Rebuy</button>" not in roster and "Re-enter" not in roster   # a row is one line: Rebuy is on the sheet
    sheet = html(client.get(floor_url(night, bob)))
    assert f'value="rebuy:{bob.id}"' in sheet and "Re-enter" not in sheet
    done = host_op(client, night, f"rebuy:{bob.id}")
    assert done.status_code == 200 and "Bob rebought (2nd buy-in)" in html(done)
    after = entries(night)["Bob"]
    assert (after.table_no, after.seat_no) == seat and after.status == "playing" and after.buy_ins == 2
    assert read_night(night).chip_count() == (6 * stack, 6 * stack // 5)
    assert sum(read_night(night).prizes) == 100 + 6 * 20
    before = snapshot(night)
    limit = host_op(client, night, f"rebuy:{bob.id}")
    assert limit.status_code == 422 and "limit" in refusal(html(limit))
    host_op(client, night, f"bust:{cash_table['Eve'].id}")
    before = snapshot(night)
    out = host_op(client, night, f"rebuy:{cash_table['Eve'].id}")
    assert out.status_code == 422 and "already recorded out" in refusal(html(out))
    wrong_kind = host_op(client, night, f"reenter:{cash_table['Eve'].id}")
    assert wrong_kind.status_code == 422 and "allows rebuys, not re-entries" in refusal(html(wrong_kind))
    assert snapshot(night) == before


def test_r_entry_2_undo_takes_a_re_entry_back(client, night, cash_table):
    allow(night)
    eve = cash_table["Eve"]
    host_op(client, night, f"bust:{eve.id}")
    before = snapshot(night)
    host_op(client, night, f"reenter:{eve.id}")
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert host_op(client, night, f"undo:{action.id}").status_code == 200
    after = snapshot(night)
    assert after[0] == before[0]  # busted again, 5th, her old seat record, one buy-in
    assert sum(read_night(night).prizes) == 100 + 5 * 20


def test_r_entry_1_the_re_entered_players_phone_shows_their_new_seat(client, app, night, cash_table):
    allow(night)
    eve = cash_table["Eve"]
    phone = phone_of(app, eve.member)
    host_op(client, night, f"bust:{eve.id}")
    assert "Finished 5th" in html(phone.get(f"/events/{night.id}/me"))
    host_op(client, night, f"reenter:{eve.id}")
    again = entries(night)["Eve"]
    mine = html(phone.get(f"/events/{night.id}/me?was=unseated"))
    assert f"Go to table {again.table_no}, seat {again.seat_no}." in mine


def test_a_re_entry_of_a_player_of_another_night_is_refused(client, night, cash_table):
    allow(night)
    other = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  status="running", host_id=night.host_id)
    db.session.add(other)
    db.session.flush()
    stranger = Entry(event_id=other.id, member_id=cash_table["Ann"].member_id, status="played", bust_hand=1)
    db.session.add(stranger)
    db.session.commit()
    before = snapshot(night)
    refused = host_op(client, night, f"reenter:{stranger.id}")
    assert refused.status_code == 422 and "That player is not in this game." in refusal(html(refused))
    assert snapshot(night) == before


def test_r_entry_1_a_re_entry_starts_clear_of_the_penalty_the_player_had(client, night, cash_table):
    allow(night)
    eve = cash_table["Eve"]
    assert floor_op(client, night, eve, "give:missed_hands", hands="6", reason="Slow play").status_code == 200
    host_op(client, night, f"bust:{eve.id}")
    host_op(client, night, f"reenter:{eve.id}")
    assert entries(night)["Eve"].penalty_until is None
    panel = floor_op(client, night, eve, "give:missed_hands", hands="2", reason="Slow play again")
    assert panel.status_code == 200 and "Eve: missed 2 hands, back about" in html(panel)
    assert "Earlier warnings and penalties: 2 tonight." in html(panel)  # R-PEN-3: the earlier one still counts


def test_r_entry_1_a_night_keeps_the_re_entry_rule_it_was_created_with(client, night, cash_table):
    # The organiser allows re-entries after tonight was created (off then): tonight stays off ...
    night.league.settings = {**(night.league.settings or {}), "nightly": {"reentry": "reentry", "reentry_limit": 3}}
    db.session.commit()
    host_op(client, night, f"bust:{cash_table['Eve'].id}")
    refused = host_op(client, night, f"reenter:{cash_table['Eve'].id}")
    assert refused.status_code == 422
    assert "Re-entries and rebuys are off for this game." in refusal(html(refused))
    assert night.reentry.mode == "off"
    # ... and a night created now takes the new rule; one from before snapshots reads the league's.
    later = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  host_id=night.host_id, status="scheduled")
    db.session.add(later)
    db.session.commit()
    assert (later.reentry.mode, later.reentry.limit) == ("reentry", 3)
    later.settings = None
    assert (later.reentry.mode, later.reentry.limit) == ("reentry", 3)
    # Turned off again for the league: the night allowed by its own snapshot keeps re-entries.
    night.league.settings = {"nightly": {"reentry": "off"}}
    allow(night, reentry_limit=2)
    assert host_op(client, night, f"reenter:{cash_table['Eve'].id}").status_code == 200


def test_r_entry_2_r_pay_3_a_cash_night_with_two_re_entries_balances_in_the_months_books(client, night, cash_table):
    """The ledger counts buy-ins, as the prize table does: taken in = buy-ins x buy-in, every buy-in
    split between the night's pool, the Monthly Final and Top-50 shares and the fee, nothing negative."""
    night.league.kind = "cash"
    night.settings = {**night.settings, "final_share": 5, "top50_share": 3}
    allow(night, reentry_limit=2)
    for name in ("Eve", "Dan"):
        host_op(client, night, f"bust:{cash_table[name].id}")
    host_op(client, night, f"reenter:{cash_table['Eve'].id}")
    host_op(client, night, f"reenter:{cash_table['Dan'].id}")
    for name in ("Cat", "Eve", "Dan", "Bob"):
        host_op(client, night, f"bust:{cash_table[name].id}")
    assert host_op(client, night, "settle").status_code == 200
    db.session.expire_all()
    final = entries(night)
    buy_ins = sum(e.buy_ins for e in final.values())
    prizes = sum(e.prize for e in final.values())
    assert buy_ins == 7 and prizes == 100 + 7 * 20  # the prize table: guarantee + every buy-in's share
    books = month_pack(night.league, night.date.strftime("%Y-%m")).ledger
    line = books.lines[0]
    assert books.balances
    assert books.taken_in == line.taken_in == 7 * 30
    assert books.paid_out == line.paid_out == prizes
    assert (line.pool, line.left, line.to_final, line.to_top50, line.fee) == (100 + 7 * 20, 0, 7 * 5, 7 * 3, 7 * 2)
    assert books.left_in_pools == 0 and min(books.final_pools.values()) >= 0 and books.top50_pool == 21
    night_line = month_pack(night.league, night.date.strftime("%Y-%m")).nights[0]
    assert (night_line.players, night_line.entries, night_line.taken_in) == (5, 7, 210)
