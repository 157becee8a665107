"""A tap kept on the host's phone while the signal was down, sent when it came back (R-CLOCK-3,
issue 27 item 3): applied at the moment it was tapped (`tapped_at_ms`), within bounds; a stale one
refused with its reason; the same key sent again applied once."""
import pytest

from league import clock as league_clock
from services import clocks
from services.models import RequestKey
from tests.conftest import csrf_token, login
from tests.fixtures.host import clock, tap
from wiring.extensions import db

T0 = 1_900_000_000_000  # server time at the start, fixed: the tests move it on by hand
MINUTE = 60_000


@pytest.fixture
def server_time(monkeypatch):
    """The server's clock, in the test's hands."""
    now = {"ms": T0}
    monkeypatch.setattr(clocks, "now_ms", lambda: now["ms"])
    return now


def stored(night):
    db.session.expire_all()
    return clocks.state_of(db.session.get(type(night), night.id))


def test_r_clock_3_tap_time_bounds():
    """R-CLOCK-3: now for a tap sent as made or one reckoned in the future; the tap's moment within
    the last ten minutes; never before the clock's last change; older than ten minutes refused."""
    now = T0
    assert league_clock.tap_time(None, now, None) == now
    assert league_clock.tap_time(now + 5_000, now, None) == now
    assert league_clock.tap_time(now - 3 * MINUTE, now, None) == now - 3 * MINUTE
    assert league_clock.tap_time(now - 3 * MINUTE, now, now - MINUTE) == now - MINUTE
    assert league_clock.tap_time(now - league_clock.TAP_KEPT_MS, now, None) == now - league_clock.TAP_KEPT_MS
    with pytest.raises(league_clock.TapTooOld, match="more than 10 minutes ago"):
        league_clock.tap_time(now - league_clock.TAP_KEPT_MS - 1, now, None)


def test_r_clock_3_a_pause_taken_offline_stops_the_clock_when_it_was_tapped(client, night, server_time):
    login(client, "host", "pw-host")
    assert tap(client, night, "start").status_code == 200
    server_time["ms"] = T0 + 4 * MINUTE  # the pub's signal drops; the host pauses at 4 minutes in...
    tapped = server_time["ms"]
    server_time["ms"] += 3 * MINUTE        # ...and the phone is back 3 minutes later
    response = tap(client, night, "pause", tapped_at_ms=str(tapped))
    assert response.status_code == 200
    state = stored(night)
    assert state.running_since_ms is None and state.item_elapsed_ms == 4 * MINUTE
    assert night.clock_changed_ms == tapped
    assert clock(client, night)["remaining_ms"] == clock(client, night)["structure"][0]["minutes"] * MINUTE - 4 * MINUTE


def test_r_clock_3_a_resume_taken_offline_runs_from_its_moment(client, night, server_time):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    server_time["ms"] = T0 + 2 * MINUTE
    tap(client, night, "pause")
    server_time["ms"] = T0 + 8 * MINUTE
    assert tap(client, night, "resume", tapped_at_ms=str(T0 + 5 * MINUTE)).status_code == 200
    state = stored(night)
    assert state.running_since_ms == T0 + 5 * MINUTE and state.item_elapsed_ms == 2 * MINUTE


def test_r_clock_3_a_tap_in_the_future_is_applied_now(client, night, server_time):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    server_time["ms"] = T0 + MINUTE
    assert tap(client, night, "pause", tapped_at_ms=str(T0 + 5 * MINUTE)).status_code == 200
    assert stored(night).item_elapsed_ms == MINUTE


def test_r_clock_3_never_before_the_clocks_last_change(client, night, server_time):
    """A phone that reckons the server's time a little behind: its pause lands at the last resume,
    not before it (no time counted backwards)."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    server_time["ms"] = T0 + MINUTE
    tap(client, night, "pause")
    server_time["ms"] = T0 + 2 * MINUTE
    tap(client, night, "resume")
    server_time["ms"] = T0 + 3 * MINUTE
    assert tap(client, night, "pause", tapped_at_ms=str(T0 + 90_000)).status_code == 200
    state = stored(night)
    assert state.item_elapsed_ms == MINUTE and night.clock_changed_ms == T0 + 2 * MINUTE


def test_r_clock_3_a_tap_kept_too_long_is_refused_with_its_reason(client, night, server_time):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    server_time["ms"] = T0 + 15 * MINUTE
    before = stored(night)
    response = tap(client, night, "pause", tapped_at_ms=str(T0 + 4 * MINUTE))
    assert response.status_code == 422
    assert "more than 10 minutes ago" in response.get_data(as_text=True)
    assert stored(night) == before


@pytest.mark.parametrize("garbled", ["soon", "-5", "1e12", str(10**14)])
def test_r_clock_3_a_garbled_tap_time_is_refused(client, night, server_time, garbled):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    before = stored(night)
    response = tap(client, night, "pause", tapped_at_ms=garbled)
    assert response.status_code == 400
    assert stored(night) == before


def test_r_clock_3_a_tap_kept_offline_after_another_hosts_is_stale(client, night, server_time):
    """Someone else acted meanwhile: the kept tap carries the version it saw and comes back 409 with
    its reason; the clock stays as the other host left it."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    seen = clock(client, night)["version"]
    server_time["ms"] = T0 + MINUTE
    tap(client, night, "next")  # the other host's tap while this phone was offline
    server_time["ms"] = T0 + 2 * MINUTE
    after_other = stored(night)
    response = tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + 30_000))
    assert response.status_code == 409
    assert "changed on another screen" in response.get_data(as_text=True)
    assert stored(night) == after_other


def test_r_clock_3_a_kept_tap_sent_twice_with_its_key_is_applied_once(client, night, server_time):
    """The phone sent its kept tap, and the answer was lost: sent again with the same key and the same
    fields, the first answer comes back and the clock is paused once, at the tapped moment."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    seen = clock(client, night)["version"]
    server_time["ms"] = T0 + 3 * MINUTE
    # the very same fields, the CSRF token too (a new one each second would make it another request)
    fields = {"tapped_at_ms": str(T0 + 2 * MINUTE), "idempotency_key": "a" * 32, "csrf_token": csrf_token(client, "/")}
    first = tap(client, night, "pause", version=seen, **fields)
    server_time["ms"] = T0 + 4 * MINUTE
    again = tap(client, night, "pause", version=seen, **fields)
    # what the server kept of the key, should this ever fail (it once did, under CI's load, with 409)
    kept = [(row.applied, row.status) for row in db.session.scalars(db.select(RequestKey))]
    assert first.status_code == again.status_code == 200, (again.get_data(as_text=True), kept)
    assert again.headers.get("Idempotency-Replayed") == "true"
    assert again.get_data() == first.get_data()
    state = stored(night)
    assert state.version == seen + 1 and state.item_elapsed_ms == 2 * MINUTE


def test_r_clock_3_a_posted_tap_whose_answer_was_lost_and_kept_is_answered_as_it_was(client, night, server_time):
    """The tap went and landed, its answer lost: the phone kept it, adding when it was tapped and the
    clock it was tapped on (static/host/controls.js keep), and sends it again with its key. It is the
    same tap: the first answer comes back, not a refusal as stale."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    seen, tapped_on = clock(client, night)["version"], clocks.seen_clock(night)
    # the key and the CSRF token as the phone kept them (a token made a second later is another request)
    key = {"idempotency_key": "b" * 32, "csrf_token": csrf_token(client, "/")}
    server_time["ms"] = T0 + MINUTE
    first = tap(client, night, "pause", version=seen, **key)
    server_time["ms"] = T0 + 2 * MINUTE
    again = tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + MINUTE), seen_clock=tapped_on, **key)
    assert first.status_code == again.status_code == 200
    assert again.headers.get("Idempotency-Replayed") == "true" and again.get_data() == first.get_data()
    state = stored(night)
    assert state.version == seen + 1 and state.item_elapsed_ms == MINUTE


def test_r_clock_3_a_kept_tap_on_the_same_clock_applies_though_the_field_moved_on(client, night, server_time):
    """Players arrived meanwhile (the version moved on, the clock did not): the kept pause, saying the
    clock it was tapped on, is applied; the same tap without it, or on another clock, is stale."""
    login(client, "host", "pw-host")
    tap(client, night, "start")
    seen = clock(client, night)["version"]
    tapped_on = clocks.seen_clock(night)
    clocks.touch(night)  # an arrival: the field moved on
    db.session.commit()
    server_time["ms"] = T0 + 2 * MINUTE
    assert tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + MINUTE)).status_code == 409
    assert tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + MINUTE),
               seen_clock=tapped_on.replace(":1:", ":0:", 1)).status_code == 409
    answer = tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + MINUTE), seen_clock=tapped_on)
    assert answer.status_code == 200
    state = stored(night)
    assert state.version == seen + 2 and state.item_elapsed_ms == MINUTE and state.running_since_ms is None


def test_r_clock_3_a_kept_tap_on_a_clock_changed_since_is_stale(client, night, server_time):
    login(client, "host", "pw-host")
    tap(client, night, "start")
    seen, tapped_on = clock(client, night)["version"], clocks.seen_clock(night)
    server_time["ms"] = T0 + MINUTE
    tap(client, night, "plus")  # another host's +1 min: the clock itself changed
    server_time["ms"] = T0 + 2 * MINUTE
    response = tap(client, night, "pause", version=seen, tapped_at_ms=str(T0 + 90_000), seen_clock=tapped_on)
    assert response.status_code == 409
    assert stored(night).running_since_ms is not None
