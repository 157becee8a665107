"""A player's phone shows their table and seat and tells them when they move
(R-SEAT-1..4): the clock payload's seat digest (one bucket per entry id % 64, so a phone refetches
only when its own bucket changed), the /events/<id>/me fragment with `was` (the seat the phone
showed), and the host's roster driven by the clock stream's version instead of a 5 s poll.

Players join through the check-in link on their own phones, as on a real night; the rest of the
field comes in through the host's roster."""
import re
from types import SimpleNamespace

import pytest

from live import seats as seat_digests
from live.payload import clock_payload
from services.models import Action
from services.night_snapshot import FINAL_TABLE_ACTION, read_night
from tests.conftest import login
from tests.fixtures.host import host_op, tap
from tests.fixtures.pages import html, words
from tests.fixtures.phones import join
from tests.fixtures.roster import bust_out, confirm_arrivals, phone_check_in, player_names, seated_night
from tests.fixtures.rows import entries
from wiring.extensions import db

ALERT = 'role="alert"'


@pytest.fixture
def field(app, client, night):
    """Ann (on her own phone) and 11 others, confirmed and drawn at two tables of six.
    (Ann's phone, her entry, the host's client). The draw's seed is fixed: a bucket's hash has three hex
    digits, so one change in 4,096 leaves it as it was; a fixed draw makes that all or nothing."""
    app.config["SEAT_RNG_SEED"] = 2026
    ann = phone_check_in(app, night, "Ann Lee")
    login(client, "host", "pw-host")
    confirm_arrivals(night)
    seated_night(night, player_names(11))
    return ann, entries(night)["Ann Lee"], client


def me(phone, night, **query):
    response = phone.get(f"/events/{night.id}/me", query_string=query)
    assert response.status_code == 200
    return response


def buckets(digest):
    width = seat_digests.SEAT_HASH_CHARS
    return [digest[i:i + width] for i in range(0, len(digest), width)]


def changed(before, after):
    return {i for i, (a, b) in enumerate(zip(buckets(before), buckets(after))) if a != b}


def empty_seat(night, table):
    taken = {e.seat_no for e in entries(night).values() if e.status == "playing" and e.table_no == table}
    return min(set(range(1, night.max_seats + 1)) - taken)


def move(host, night, entry, table, seat):
    return host_op(host, night, f"move_to:1:{table}:{seat}", **{"mover-1": str(entry.id)})


def token(entry):
    db.session.refresh(entry)
    return f"{entry.table_no}-{entry.seat_no}"


# ---- the seat digest in the clock payload ----

def test_seat_digest_is_64_buckets_in_the_clock_payload_and_stable(client, field, night):
    digest = seat_digests.seat_digest(read_night(night))
    assert re.fullmatch(f"[0-9a-f]{{{seat_digests.SEAT_BUCKETS * seat_digests.SEAT_HASH_CHARS}}}", digest)
    assert seat_digests.seat_digest(read_night(night)) == digest  # nothing changed, nothing moves
    assert clock_payload(night)["seats"] == digest  # the payload's digest agrees
    assert client.get(f"/api/events/{night.id}/clock").get_json()["seats"] == digest
    _, ann, host = field
    tap(host, night, "start")  # a clock action moves the version, not anyone's seat
    db.session.expire_all()
    assert clock_payload(night)["seats"] == digest and clock_payload(night)["version"] > 0


def test_r_seat_2_a_move_changes_only_the_movers_bucket(field, night):
    _, ann, host = field
    before = seat_digests.seat_digest(read_night(night))
    other = 2 if ann.table_no == 1 else 1
    assert move(host, night, ann, other, empty_seat(night, other)).status_code == 200
    db.session.expire_all()
    assert changed(before, seat_digests.seat_digest(read_night(night))) == {ann.id % seat_digests.SEAT_BUCKETS}


def test_r_pts_5_a_bust_out_changes_only_that_players_bucket(field, night):
    _, ann, host = field
    busted = entries(night)["Player 03"]
    before = seat_digests.seat_digest(read_night(night))
    host_op(host, night, f"bust:{busted.id}")
    db.session.expire_all()
    assert changed(before, seat_digests.seat_digest(read_night(night))) == {busted.id % seat_digests.SEAT_BUCKETS}


def test_r_seat_3_a_table_break_changes_only_the_movers_buckets(app, client, night):
    app.config["SEAT_RNG_SEED"] = 2026
    login(client, "host", "pw-host")
    seated = seated_night(night, player_names(21))  # three tables of seven
    for entry in [e for e in seated.values() if e.table_no == 1][:2]:
        bust_out(night, entry.member.name)
    seats = {e.id: (e.table_no, e.seat_no) for e in entries(night).values()}
    before = seat_digests.seat_digest(read_night(night))
    assert host_op(client, night, "break").status_code == 200
    db.session.expire_all()
    moved = {e.id % seat_digests.SEAT_BUCKETS for e in entries(night).values() if seats[e.id] != (e.table_no, e.seat_no)}
    assert moved and changed(before, seat_digests.seat_digest(read_night(night))) == moved


def test_a_phones_bucket_is_its_slice_of_the_digest(field, night):
    ann_phone, ann, _ = field
    page = html(me(ann_phone, night))
    index, value = re.search(r'data-seat-bucket="(\d+)" data-seat-hash="([0-9a-f]+)"', page).groups()
    assert int(index) == ann.id % seat_digests.SEAT_BUCKETS and f'data-entry="{ann.id}"' in page
    assert buckets(seat_digests.seat_digest(read_night(night)))[int(index)] == value


# ---- the player's own entry, with `was` ----

def test_r_seat_2_moved_shows_the_alert_with_the_new_seat(field, night):
    ann_phone, ann, host = field
    was = token(ann)
    other = 2 if ann.table_no == 1 else 1
    seat = empty_seat(night, other)
    move(host, night, ann, other, seat)
    page = html(me(ann_phone, night, was=was))
    assert ALERT in page and f"You moved: Table {other}, Seat {seat}" in words(page)
    assert f"Take your chips to table {other}, seat {seat}." in page
    # the alert stays through refreshes until "Got it": the poll still sends the old seat
    assert f"was={was}" in page and f"was={other}-{seat}" in page
    same = html(me(ann_phone, night, was=f"{other}-{seat}"))
    assert ALERT not in same and "You moved" not in same and f"Table {other}, seat {seat}" in same


def test_the_same_seat_shows_no_alert(field, night):
    ann_phone, ann, _ = field
    for was in (token(ann), f"{ann.table_no}-0{ann.seat_no}", None):
        page = html(me(ann_phone, night, **({"was": was} if was else {})))
        assert ALERT not in page and f"Table {ann.table_no}, seat {ann.seat_no}" in page


def test_r_seat_2_moved_twice_back_to_her_old_seat_is_told_again(field, night):
    """She never tapped "Got it" on her first move, so her phone still sends the seat before it; moved
    back there, she is told (she may have gone to the seat the alert named), and the alert stays
    through refreshes until "Got it"."""
    ann_phone, ann, host = field
    home, table, seat = token(ann), ann.table_no, ann.seat_no
    other = 2 if table == 1 else 1
    move(host, night, ann, other, empty_seat(night, other))
    away = token(ann)
    first = html(me(ann_phone, night, was=home))
    assert ALERT in first and f"was={home}&amp;shown={away}" in first
    move(host, night, ann, table, seat)
    assert token(ann) == home
    back = html(me(ann_phone, night, was=home, shown=away))
    assert ALERT in back and f"You moved: Table {table}, Seat {seat}" in words(back)
    assert f"was={home}&amp;shown={home}" in back
    still = html(me(ann_phone, night, was=home, shown=home))  # the next refresh: the alert stays
    assert ALERT in still and f"You moved: Table {table}, Seat {seat}" in words(still)
    got_it = html(me(ann_phone, night, was=home))
    assert ALERT not in got_it and "shown=" not in got_it


@pytest.mark.parametrize("was, shown, final, said", [
    ("1-3", "3-5", True, "final"),    # moved, then the final table put her back on her old seat
    ("1-3", "3-5", False, "moved"),   # moved, then balanced back to her old seat
    ("1-3", "1-3", False, "moved"),   # that alert, refreshed: it stays until "Got it"
    ("1-3", None, False, None),       # acknowledged, not moved
    ("1-3", "garbage", False, None),  # a `shown` that is no seat is ignored
    ("unseated", "2-4", True, "final"),
    ("garbage", "3-5", True, None),
])
def test_r_seat_1_4_an_alert_up_is_never_lost(was, shown, final, said):
    """live.seats.seat_notice on its own: her seat is now Table 1, Seat 3."""
    entry = SimpleNamespace(status="playing", table_no=1, seat_no=3)
    notice = seat_digests.seat_notice(SimpleNamespace(final_table_drawn=final), entry, was, shown)
    assert (notice.kind if notice else None) == said


@pytest.mark.parametrize("was", ["", "abc", "3-", "-7", "3-7-1", "1-99999999", "\uff13-\uff17", "2\u00b2-1",
                                 "<script>alert(1)</script>", "unseated-1", "x" * 5000])
def test_garbage_was_is_ignored_not_an_error(field, night, was):
    ann_phone, ann, _ = field
    page = html(me(ann_phone, night, was=was))
    assert ALERT not in page and f"Table {ann.table_no}, seat {ann.seat_no}" in page
    assert "<script>" not in page and "xxxxxxxx" not in page  # never echoed: the phone gets its seat back
    assert f"was={ann.table_no}-{ann.seat_no}" in page


def test_r_seat_1_the_first_seat_is_announced(app, client, night):
    ann_phone = app.test_client()
    join(ann_phone, night, "Ann Lee")
    waiting = html(me(ann_phone, night))
    assert "waiting for the host" in waiting and "was=unseated" in waiting and ALERT not in waiting
    login(client, "host", "pw-host")
    host_op(client, night, f"confirm:{entries(night)['Ann Lee'].id}")
    host_op(client, night, "join", name="Bea Park", adult="yes")
    not_drawn = html(me(ann_phone, night, was="unseated"))
    assert "Seats are not drawn yet" in not_drawn and ALERT not in not_drawn
    host_op(client, night, "draw")
    ann = entries(night)["Ann Lee"]
    drawn = html(me(ann_phone, night, was="unseated"))
    assert ALERT in drawn and f"Your seat: Table 1, Seat {ann.seat_no}" in words(drawn)
    assert f"Go to table 1, seat {ann.seat_no}." in drawn


def test_r_seat_4_the_final_table_redraw_says_so(field, night):
    ann_phone, ann, host = field
    for entry in [e for e in entries(night).values() if e.id != ann.id][:2]:
        host_op(host, night, f"bust:{entry.id}")
    if ann.table_no == 1:  # from table 2 the redraw (everyone to table 1) surely moves her
        move(host, night, ann, 2, empty_seat(night, 2))
    was = token(ann)
    assert host_op(host, night, "final").status_code == 200
    ann = entries(night)["Ann Lee"]
    page = html(me(ann_phone, night, was=was))
    assert ALERT in page and f"Final table: Table 1, Seat {ann.seat_no}" in words(page)
    assert f"Take your chips to table 1, seat {ann.seat_no}." in page


def test_r_seat_4_a_phone_that_missed_its_first_seat_alert_hears_final_table(field, night):
    """Her phone never tapped "Got it" on her first seat, so it still sends `was=unseated`: at the
    final table it says "Final table", never "Your seat … Go to" again."""
    ann_phone, ann, host = field
    first = html(me(ann_phone, night, was="unseated"))
    assert f"Your seat: Table {ann.table_no}, Seat {ann.seat_no}" in words(first)
    assert "was=unseated" in first  # the alert stays up: the phone keeps sending its old seat
    for entry in [e for e in entries(night).values() if e.id != ann.id][:2]:
        host_op(host, night, f"bust:{entry.id}")
    assert host_op(host, night, "final").status_code == 200
    ann = entries(night)["Ann Lee"]
    page = words(html(me(ann_phone, night, was="unseated")))
    assert f"Final table: Table 1, Seat {ann.seat_no}" in page
    assert f"Take your chips to table 1, seat {ann.seat_no}." in page
    assert "Your seat" not in page and "Go to table" not in page


def test_r_seat_4_the_final_table_changes_every_bucket(field, night):
    """Every phone refetches once when the final table forms, even one whose seat stays the same:
    a phone still showing an old alert then says "Final table"."""
    _, _, host = field
    for entry in list(entries(night).values())[1:3]:
        host_op(host, night, f"bust:{entry.id}")
    before = clock_payload(night)["seats"]
    assert host_op(host, night, "final").status_code == 200
    db.session.expire_all()
    after = clock_payload(db.session.get(type(night), night.id))["seats"]
    assert changed(before, after) == set(range(seat_digests.SEAT_BUCKETS))  # the empty buckets too


def test_r_seat_4_undoing_the_final_table_takes_its_message_back(field, night):
    ann_phone, ann, host = field
    for entry in [e for e in entries(night).values() if e.id != ann.id][:2]:
        host_op(host, night, f"bust:{entry.id}")
    assert host_op(host, night, "final").status_code == 200
    final = db.session.scalar(db.select(Action).where(Action.kind == FINAL_TABLE_ACTION))
    assert host_op(host, night, f"undo:{final.id}").status_code == 200
    ann = entries(night)["Ann Lee"]
    page = words(html(me(ann_phone, night, was="unseated")))
    assert f"Your seat: Table {ann.table_no}, Seat {ann.seat_no}" in page and "Final table" not in page


def test_r_seat_1_a_one_table_night_announces_the_first_seat_not_a_final_table(app, client, night):
    ann_phone = app.test_client()
    join(ann_phone, night, "Ann Lee")
    login(client, "host", "pw-host")
    host_op(client, night, f"confirm:{entries(night)['Ann Lee'].id}")
    for name in ("Bea Park", "Cal Dunn"):
        host_op(client, night, "join", name=name, adult="yes")
    host_op(client, night, "draw")
    host_op(client, night, f"bust:{entries(night)['Cal Dunn'].id}")
    page = words(html(me(ann_phone, night, was="unseated")))
    assert f"Your seat: Table 1, Seat {entries(night)['Ann Lee'].seat_no}" in page and "Final table" not in page


def test_r_pts_5_busted_shows_the_finish_not_a_move(field, night):
    ann_phone, ann, host = field
    was = token(ann)
    host_op(host, night, f"bust:{ann.id}")
    page = html(me(ann_phone, night, was=was))
    assert "Finished 12th" in page and ALERT not in page and "was=unseated" in page


def test_someone_elses_entry_is_never_shown(app, field, night):
    ann_phone, ann, host = field
    bea_phone = app.test_client()
    join(bea_phone, night, "Bea Park")
    bea = html(me(bea_phone, night, was=token(ann), entry=str(ann.id)))
    assert "Bea Park" in bea and "Ann Lee" not in bea and f'data-entry="{ann.id}"' not in bea
    stranger = app.test_client()
    assert html(me(stranger, night, was=token(ann))).strip() == ""
    assert html(me(host, night)).strip() == ""  # a host's login is not a member card
    response = me(ann_phone, night)
    assert "no-store" in response.headers["Cache-Control"] and "Cookie" in response.headers["Vary"]


def test_the_clock_page_refreshes_on_the_stream_and_other_pages_poll(field, night):
    ann_phone, ann, _ = field
    page = html(ann_phone.get(f"/events/{night.id}"))
    section = re.search(r"<section class=\"me card[^>]*>", page).group(0)
    # No htmx on the clock page: clock.js refreshes the entry from data-me-url (the stream's digest, a minute's poll).
    assert "data-me-url=" in section and "stream=1" in section and "hx-" not in section
    assert f"was={ann.table_no}-{ann.seat_no}" in section
    assert "vendor/htmx" not in page and "sse-connect" not in page and "hx-" not in page
    fragment = html(me(ann_phone, night, stream="1"))
    assert "data-me-url=" in fragment and "hx-" not in fragment
    assert 'hx-trigger="every 10s"' in html(me(ann_phone, night))  # e.g. /me: htmx polls there


# ---- the host's roster ----

def test_the_roster_carries_its_version_and_listens_to_the_stream(field, night):
    _, _, host = field
    version = clock_payload(night)["version"]
    fragment = html(host.get(f"/host/events/{night.id}/players", headers={"HX-Request": "true"}))
    assert fragment.lstrip().startswith('<section id="players"')
    assert f'data-version="{version}"' in fragment and "every 5s" not in fragment
    assert 'hx-trigger="stream, every 30s [!window.shuffleupRosterBusy || !shuffleupRosterBusy()]"' in fragment
    answer = html(host_op(host, night, "noop"))  # a refused action changes nothing, nor the version
    assert f'data-version="{version}"' in answer
    busted = html(host_op(host, night, f"bust:{entries(night)['Player 00'].id}"))
    assert f'data-version="{version + 1}"' in busted  # the answer is at the version it published
    page = html(host.get(f"/host/events/{night.id}/players"))
    assert f'sse-connect="/events/{night.id}/stream"' in page and "htmx-ext-sse" in page
