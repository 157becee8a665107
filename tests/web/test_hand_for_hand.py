"""Hand-for-hand over HTTP (R-HFH-1..3): the host's three clock taps (checked, journalled, undone), the
clock JSON's `hand_for_hand` and `hand`, bust-outs recorded against the hand and sharing across tables,
the end at the bubble, the suggestion on the host's screen and "Deal now" on every screen."""
import pytest

from services.models import Action
from tests.fixtures.cash import as_cash_night
from tests.fixtures.host import bust, clock, host_op, seated_down_to, tap
from tests.fixtures.roster import bust_out, settle_night
from tests.fixtures.rows import entries, last_open_action
from wiring.extensions import db

MIN = 60_000


@pytest.fixture
def bubble(client, night):
    """A $30 cash night ($20 to the pool, $100 guaranteed) of 15 at two tables, 3 paid (20 % of the
    field), down to 5 left with its clock started: the money bubble is near. The entries by name."""
    as_cash_night(night, 30, 20, 100)
    seated_down_to(client, night, 15, 0)
    first, second = left_at_tables(night).values()  # tables of 8 and 7 (R-SEAT-1)
    keep = {*first[:3], *second[:2]}  # so both tables still play at the bubble, whatever the draw
    for name in sorted(entries(night)):
        if name not in keep:
            bust_out(night, name)
    night.settings = {**(night.settings or {}), "payout_percent": 20}  # the night's own snapshot
    db.session.commit()
    assert tap(client, night, "start").status_code == 200
    return entries(night)


def left_at_tables(night):
    """The players still in, by table."""
    tables: dict[int, list[str]] = {}
    for name, entry in sorted(entries(night).items()):
        if entry.status == "playing":
            tables.setdefault(entry.table_no, []).append(name)
    return tables


def test_r_hfh_1_json_says_off_and_no_hand_before_hand_for_hand(client, night):
    data = clock(client, night)
    assert data["hand_for_hand"] is False and data["hand"] is None
    assert data["hand_for_hand_suggested"] is False


def test_r_hfh_2_on_next_hand_off_each_checked(client, bubble, night):
    """Next hand and off are refused while off; on stops the clock and is refused twice; Start and Resume
    are refused while it is on; each Next hand numbers a hand and takes 2 minutes off the level."""
    for action, words in (("next_hand", "switch hand-for-hand on first"), ("hand_for_hand_off", "is not on")):
        refused = tap(client, night, action)
        assert refused.status_code == 422 and words in refused.get_data(as_text=True)
    assert tap(client, night, "hand_for_hand_on").status_code == 200
    on = clock(client, night)
    assert (on["hand_for_hand"], on["hand"], on["running"]) == (True, None, False)
    again = tap(client, night, "hand_for_hand_on")
    assert again.status_code == 422 and "already on" in again.get_data(as_text=True)
    resumed = tap(client, night, "resume")
    assert resumed.status_code == 422 and "stands still during hand-for-hand" in resumed.get_data(as_text=True)
    assert tap(client, night, "next_hand").status_code == 200
    first = clock(client, night)
    assert (first["hand"], first["running"]) == (1, False)
    assert first["remaining_ms"] == on["remaining_ms"] - 2 * MIN
    assert tap(client, night, "next_hand").status_code == 200
    assert clock(client, night)["hand"] == 2
    assert tap(client, night, "hand_for_hand_off").status_code == 200
    off = clock(client, night)
    assert (off["hand_for_hand"], off["hand"], off["running"]) == (False, None, False)
    assert tap(client, night, "resume").status_code == 200 and clock(client, night)["running"]


def test_r_hfh_2_a_stale_or_garbled_tap_changes_nothing(client, bubble, night):
    seen = clock(client, night)["version"]
    assert tap(client, night, "hand_for_hand_on").status_code == 200
    stale = tap(client, night, "next_hand", version=seen)
    assert stale.status_code == 409
    assert clock(client, night)["hand"] is None
    garbled = tap(client, night, "next_hand", version="x")
    assert garbled.status_code == 400 and clock(client, night)["hand"] is None


def test_r_hfh_2_minutes_per_hand_are_the_nights_setting(client, bubble, night):
    night.settings = {**(night.settings or {}), "hand_for_hand_minutes": 3}
    db.session.commit()
    tap(client, night, "hand_for_hand_on")
    before = clock(client, night)["remaining_ms"]
    tap(client, night, "next_hand")
    assert clock(client, night)["remaining_ms"] == before - 3 * MIN


def test_r_hfh_2_every_tap_is_journalled_and_undone_from_the_players_tab(client, bubble, night):
    tap(client, night, "hand_for_hand_on")
    tap(client, night, "next_hand")
    action = last_open_action(night)
    assert action.kind == "next_hand" and "hand 1 on every table" in action.summary
    kinds = list(db.session.scalars(db.select(Action.kind).where(Action.event_id == night.id)
                                    .order_by(Action.id.desc()).limit(2)))
    assert kinds == ["next_hand", "hand_for_hand_on"]
    undone = host_op(client, night, f"undo:{action.id}")
    assert undone.status_code == 200 and "Took back: Next hand" in undone.get_data(as_text=True)
    assert (clock(client, night)["hand_for_hand"], clock(client, night)["hand"]) == (True, None)
    assert tap(client, night, "next_hand").status_code == 200
    assert clock(client, night)["hand"] == 1  # the hand taken back is dealt again under its number
    first_on = db.session.scalar(db.select(Action.id).where(Action.event_id == night.id,
                                                            Action.kind == "hand_for_hand_on"))
    newest = last_open_action(night).id
    assert host_op(client, night, f"undo:{first_on}", journal_top=str(newest)).status_code == 200
    assert clock(client, night)["hand_for_hand"] is False


def test_r_hfh_3_players_out_at_different_tables_in_one_hand_share(client, bubble, night):
    """5 left, 3 paid; the hand-for-hand hand puts one out at each table: both 4th (covering 4th and
    5th), whatever their stacks."""
    tables = left_at_tables(night)
    assert len(tables) == 2
    tap(client, night, "hand_for_hand_on")
    tap(client, night, "next_hand")
    first, second = (names[0] for names in tables.values())
    bust(client, night, first)
    assert entries(night)[first].position == 5
    bust(client, night, second)
    out = entries(night)
    assert out[first].position == out[second].position == 4
    assert out[first].hfh_hand == out[second].hfh_hand == 1
    assert out[first].bust_hand == out[second].bust_hand


def test_r_hfh_3_two_out_at_one_table_share_even_with_their_stacks_given(client, bubble, night):
    tap(client, night, "hand_for_hand_on")
    tap(client, night, "next_hand")
    two = max(left_at_tables(night).values(), key=len)[:2]
    bust(client, night, *two, stacks=[9000, 1000])
    out = entries(night)
    assert out[two[0]].position == out[two[1]].position == 4


def test_r_hfh_1_ends_at_the_bubble_and_the_shares_are_settled(client, bubble, night):
    """5 left, 3 paid: one out in hand 1 (5th), 4 left; in hand 2 one out at each table. The first
    bursts the bubble (3 left): hand-for-hand ends by itself, yet the other table's bust-out, recorded
    after, is still in hand 2 (the clock has not run since), so they share 3rd, covering 3rd and 4th.
    Settled, each gets the mean of 3rd's and 4th's points (a field of 15: +150 each) and half of 3rd's
    prize. Once the clock runs again, a bust-out is in no hand: the next one out is 2nd alone."""
    tap(client, night, "hand_for_hand_on")
    tap(client, night, "next_hand")
    bust(client, night, max(left_at_tables(night).values(), key=len)[0])
    assert clock(client, night)["hand_for_hand"] is True
    tap(client, night, "next_hand")
    first, second = (names[0] for names in left_at_tables(night).values())
    prizes = clock(client, night)["prizes"]
    bust(client, night, first)
    ended = clock(client, night)
    assert (ended["hand_for_hand"], ended["hand"], ended["players_left"]) == (False, None, 3)
    bust(client, night, second)
    out = entries(night)
    assert out[first].position == out[second].position == 3 and out[second].hfh_hand == 2
    assert tap(client, night, "resume").status_code == 200
    last = [n for n, e in out.items() if e.status == "playing"][0]
    bust(client, night, last)
    assert entries(night)[last].position == 2 and entries(night)[last].hfh_hand is None
    settle_night(night)
    out = entries(night)
    assert out[first].points == out[second].points == (400 + 150 + 300 + 150) // 2
    assert sorted([out[first].prize, out[second].prize]) == sorted([prizes[2] // 2, prizes[2] - prizes[2] // 2])


def test_r_hfh_1_undoing_the_bubble_bust_puts_hand_for_hand_back(client, bubble, night):
    """5 left, 3 paid: two out in hand 1 burst the bubble; taking the second back puts hand-for-hand on."""
    tap(client, night, "hand_for_hand_on")
    tap(client, night, "next_hand")
    out = [names[0] for names in left_at_tables(night).values()]
    bust(client, night, out[0])
    assert clock(client, night)["hand_for_hand"] is True
    bust(client, night, out[1])
    assert clock(client, night)["hand_for_hand"] is False
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    back = clock(client, night)
    assert (back["hand_for_hand"], back["hand"], back["players_left"]) == (True, 1, 4)
    assert entries(night)[out[1]].hfh_hand is None and entries(night)[out[0]].hfh_hand == 1


def test_r_hfh_1_the_hosts_screen_suggests_hand_for_hand_at_the_bubble(client, bubble, night):
    """5 left, 3 paid, 2 tables: 5 <= 3 + 2, so suggested; once on, not any more."""
    assert clock(client, night)["hand_for_hand_suggested"] is True
    page = client.get(f"/host/events/{night.id}").get_data(as_text=True)
    assert "<p class=\"notice\" data-hfh-suggested>" in page
    tap(client, night, "hand_for_hand_on")
    assert clock(client, night)["hand_for_hand_suggested"] is False
    assert "data-hfh-suggested hidden" in tap(client, night, "next_hand").get_data(as_text=True)


def test_r_hfh_1_not_suggested_far_from_the_bubble(client, night):
    seated_down_to(client, night, 15, 2)
    tap(client, night, "start")
    assert clock(client, night)["hand_for_hand_suggested"] is False
    page = client.get(f"/host/events/{night.id}").get_data(as_text=True)
    assert "data-hfh-suggested hidden" in page


def test_r_hfh_2_every_screen_says_deal_now_for_the_hand(client, app, bubble, night):
    tap(client, night, "hand_for_hand_on")
    viewer = app.test_client()
    for url in (f"/events/{night.id}", f"/events/{night.id}/screen"):
        page = viewer.get(url).get_data(as_text=True)
        assert "Every table waits for the host's Next hand." in page and "Deal now" not in page
    tap(client, night, "next_hand")
    for url in (f"/events/{night.id}", f"/events/{night.id}/screen"):
        page = viewer.get(url).get_data(as_text=True)
        assert "Deal now" in page and "Hand 1: every table deals now" in page


def test_r_hfh_2_taps_need_the_host(client, app, bubble, night):
    stranger = app.test_client()
    response = stranger.post(f"/host/events/{night.id}/clock", data={"action": "hand_for_hand_on", "version": "0"})
    assert response.status_code in (302, 400, 401, 403)
    assert clock(client, night)["hand_for_hand"] is False
