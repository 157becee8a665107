"""The shared blind clock (R-CLOCK-1..4, R-LATE-1, R-LATE-3)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league import clock
from league.clock import (
    MAX_ADDED_MS,
    SHOT_RULES,
    ClockState,
    NextItem,
    ShotRule,
    ShotView,
    adjust,
    bonus_window_open,
    jump_to,
    missed_blinds,
    next_level,
    pause,
    previous_level,
    resume,
    shot_view,
    start,
    view,
)
from league.structures import TEMPLATES, Break, Level

MIN = 60_000
T0 = 1_764_000_000_000  # some server epoch ms

# Items: L1 (15) L2 (15) L3 (15) L4 (15) | major break (15) | L5 (15) L6 (15) | break (10) | L7 (20)
S = (
    Level(15, 25, 50),
    Level(15, 50, 100),
    Level(15, 75, 150),
    Level(15, 100, 200),
    Break(15, "Major break", "Colour up the 25s", major=True),
    Level(15, 150, 300),
    Level(15, 200, 400, 400),
    Break(10, "Break"),
    Level(20, 300, 600, 600),
)
END = sum(item.minutes for item in S) * MIN


def started_at(t=T0, structure=S):
    return start(structure, ClockState(), t)


def total_elapsed(structure, v):
    """Position on the whole timeline, overtime included; only for checking continuity."""
    before = sum(item.duration_ms for item in structure[: v.index])
    return before + v.item_duration_ms - v.remaining_ms + v.overtime_ms


# --- R-CLOCK-3: start, pause, resume ---------------------------------------------------------

def test_r_clock_3_not_started_view():
    v = view(S, ClockState(), T0)
    assert (v.index, v.level_number, v.remaining_ms, v.running, v.started) == (0, 1, 15 * MIN, False, False)
    assert (v.small_blind, v.big_blind, v.ante) == (25, 50, 0)
    assert v.version == 0 and v.at_ms == T0
    # Time passing changes nothing before the start.
    assert view(S, ClockState(), T0 + 10 * MIN).remaining_ms == 15 * MIN


def test_r_clock_3_start_runs_and_marks_started():
    state = started_at()
    assert state == ClockState(index=0, item_elapsed_ms=0, running_since_ms=T0, started=True, version=1)
    v = view(S, state, T0 + 90_000)
    assert v.remaining_ms == 15 * MIN - 90_000 and v.running and v.started


def test_r_clock_3_start_twice_is_refused():
    state = started_at()
    with pytest.raises(ValueError, match="already running"):
        start(S, state, T0 + 1)
    paused = pause(S, state, T0 + 2)
    with pytest.raises(ValueError, match="resume it instead"):
        start(S, paused, T0 + 3)


def test_r_clock_3_pause_resume():
    state = started_at()
    state = pause(S, state, T0 + 5 * MIN)
    assert state.running_since_ms is None and state.item_elapsed_ms == 5 * MIN and state.version == 2
    # Paused: the wall clock moves, the blind clock does not.
    assert view(S, state, T0 + 60 * MIN).remaining_ms == 10 * MIN
    state = resume(S, state, T0 + 60 * MIN)
    assert state.running_since_ms == T0 + 60 * MIN and state.version == 3
    v = view(S, state, T0 + 62 * MIN)
    assert v.index == 0 and v.remaining_ms == 8 * MIN and v.running


def test_r_clock_3_pause_resume_refusals_are_explicit():
    with pytest.raises(ValueError, match="hasn't started yet, so there is nothing to pause"):
        pause(S, ClockState(), T0)
    with pytest.raises(ValueError, match="hasn't started yet; start it first"):
        resume(S, ClockState(), T0)
    state = started_at()
    with pytest.raises(ValueError, match="already running"):
        resume(S, state, T0 + 1)
    state = pause(S, state, T0 + 2)
    with pytest.raises(ValueError, match="already paused"):
        pause(S, state, T0 + 3)


def test_r_clock_3_pause_normalises_across_levels():
    state = pause(S, started_at(), T0 + 20 * MIN)
    assert (state.index, state.item_elapsed_ms) == (1, 5 * MIN)


# --- R-CLOCK-1/2: boundaries, breaks, overtime -----------------------------------------------

def test_r_clock_2_next_level_shows_exactly_at_the_boundary():
    state = started_at()
    just_before = view(S, state, T0 + 15 * MIN - 1)
    at = view(S, state, T0 + 15 * MIN)
    assert (just_before.index, just_before.remaining_ms) == (0, 1)
    assert (at.index, at.level_number, at.remaining_ms, at.big_blind) == (1, 2, 15 * MIN, 100)


def test_r_clock_1_break_shows_the_next_levels_blinds():
    v = view(S, started_at(), T0 + 61 * MIN)
    assert v.is_break and v.is_major_break
    assert (v.index, v.level_number, v.break_label, v.colour_up) == (4, 4, "Major break", "Colour up the 25s")
    assert (v.small_blind, v.big_blind, v.ante) == (150, 300, 0)
    assert v.remaining_ms == 14 * MIN
    assert v.next_item == NextItem(5, False, "Level 5", 15, 150, 300, 0)


def test_r_clock_1_level_view_fields():
    v = view(S, started_at(), T0 + 50 * MIN)
    assert (v.index, v.level_number, v.is_break, v.break_label, v.colour_up, v.is_major_break) == (
        3, 4, False, "", "", False)
    assert v.next_item == NextItem(4, True, "Major break", 15, 150, 300, 0)
    assert v.ms_to_next_break == 10 * MIN


def test_r_clock_1_time_to_next_break_skips_the_current_break():
    state = started_at()
    during_major = view(S, state, T0 + 65 * MIN)
    # 10 min left of the major break + levels 5 and 6.
    assert during_major.ms_to_next_break == 10 * MIN + 30 * MIN
    during_last_break = view(S, state, T0 + 112 * MIN)
    assert during_last_break.is_break and during_last_break.ms_to_next_break is None
    assert view(S, state, T0 + 120 * MIN).ms_to_next_break is None


def test_r_clock_1_overtime_on_the_last_level():
    state = started_at()
    at_end = view(S, state, T0 + END)
    assert (at_end.index, at_end.remaining_ms, at_end.overtime_ms) == (8, 0, 0)
    later = view(S, state, T0 + END + 7 * MIN + 5)
    assert (later.index, later.level_number, later.remaining_ms, later.overtime_ms) == (8, 7, 0, 7 * MIN + 5)
    assert later.big_blind == 600 and later.next_item is None and later.ms_to_next_break is None


def test_r_clock_1_play_elapsed_excludes_breaks():
    state = started_at()
    assert view(S, state, T0 + 10 * MIN).play_elapsed_ms == 10 * MIN
    assert view(S, state, T0 + 70 * MIN).play_elapsed_ms == 60 * MIN  # in the major break
    assert view(S, state, T0 + 80 * MIN).play_elapsed_ms == 65 * MIN
    assert view(S, state, T0 + END + 3 * MIN).play_elapsed_ms == 110 * MIN + 3 * MIN


# --- R-CLOCK-3: next, previous, jump, adjust -------------------------------------------------

def test_r_clock_3_next_level_while_running():
    state = next_level(S, started_at(), T0 + 3 * MIN)
    assert state == ClockState(1, 0, T0 + 3 * MIN, True, 2)
    assert view(S, state, T0 + 4 * MIN).remaining_ms == 14 * MIN


def test_r_clock_3_next_level_while_paused():
    state = pause(S, started_at(), T0 + 3 * MIN)
    state = next_level(S, state, T0 + 9 * MIN)
    assert state == ClockState(1, 0, None, True, 3)
    assert view(S, state, T0 + 20 * MIN).remaining_ms == 15 * MIN


def test_r_clock_3_next_level_before_start_keeps_it_not_started():
    state = next_level(S, ClockState(), T0)
    assert state == ClockState(1, 0, None, False, 1)


def test_r_clock_3_next_level_at_the_last_level_is_refused():
    state = jump_to(S, started_at(), T0, len(S) - 1)
    with pytest.raises(ValueError, match="already at the last level"):
        next_level(S, state, T0 + 1)
    with pytest.raises(ValueError, match="already at the last level"):
        next_level(S, started_at(), T0 + END + MIN)  # in overtime


def test_r_clock_3_previous_level():
    state = started_at()
    back = previous_level(S, state, T0 + 20 * MIN)  # 5 min into level 2
    assert back == ClockState(0, 0, T0 + 20 * MIN, True, 2)
    again = previous_level(S, back, T0 + 21 * MIN)  # first level restarts
    assert again == ClockState(0, 0, T0 + 21 * MIN, True, 3)
    paused = pause(S, state, T0 + 65 * MIN)  # in the major break
    assert previous_level(S, paused, T0 + 70 * MIN) == ClockState(3, 0, None, True, 3)


def test_r_clock_3_previous_from_overtime_goes_to_the_item_before_the_last():
    state = previous_level(S, started_at(), T0 + END + 2 * MIN)
    assert (state.index, state.item_elapsed_ms) == (7, 0)


def test_r_clock_3_jump_to():
    state = jump_to(S, started_at(), T0 + MIN, 5)
    assert state == ClockState(5, 0, T0 + MIN, True, 2)
    paused = jump_to(S, pause(S, state, T0 + 2 * MIN), T0 + 3 * MIN, 2)
    assert paused == ClockState(2, 0, None, True, 4)
    for bad in (-1, len(S)):
        with pytest.raises(ValueError, match="There is no item"):
            jump_to(S, state, T0, bad)


def test_r_clock_3_add_minute_lengthens_the_current_level_only():
    state = started_at()
    state = adjust(S, state, T0 + 15 * MIN + 20_000, MIN)  # 20 s into level 2
    assert (state.index, state.item_elapsed_ms) == (1, -40_000)
    v = view(S, state, T0 + 15 * MIN + 20_000)
    assert (v.index, v.remaining_ms) == (1, 15 * MIN - 20_000 + MIN)
    # Level 2 now ends at 31 minutes instead of 30; level 1 was not touched.
    assert view(S, state, T0 + 31 * MIN - 1).index == 1
    assert view(S, state, T0 + 31 * MIN).index == 2


def test_r_clock_3_remove_minute_carries_into_the_next_level():
    state = started_at()
    state = adjust(S, state, T0 + 15 * MIN - 30_000, -MIN)  # 30 s left on level 1
    assert (state.index, state.item_elapsed_ms) == (1, 30_000)
    assert view(S, state, T0 + 15 * MIN - 30_000).remaining_ms == 15 * MIN - 30_000


def test_r_clock_3_adjust_while_paused_stays_paused():
    state = pause(S, started_at(), T0 + MIN)
    state = adjust(S, state, T0 + 2 * MIN, 2 * MIN)
    assert state == ClockState(0, -MIN, None, True, 3)
    assert view(S, state, T0 + 9 * MIN).remaining_ms == 16 * MIN


def test_r_clock_3_added_time_is_capped_at_an_hour_over_the_duration():
    state = pause(S, started_at(), T0)
    for _ in range(70):
        state = adjust(S, state, T0, MIN)
    v = view(S, state, T0)
    assert v.remaining_ms == 15 * MIN + MAX_ADDED_MS


def test_r_clock_3_adjust_in_overtime():
    state = started_at()
    state = adjust(S, state, T0 + END + 30_000, -MIN)
    assert view(S, state, T0 + END + 30_000).overtime_ms == 90_000
    state = adjust(S, state, T0 + END + 30_000, 2 * MIN)
    v = view(S, state, T0 + END + 30_000)
    assert (v.index, v.remaining_ms, v.overtime_ms) == (8, 30_000, 0)


def test_r_clock_3_every_action_bumps_the_version():
    state = ClockState()
    steps = [
        lambda s, t: start(S, s, t),
        lambda s, t: adjust(S, s, t, MIN),
        lambda s, t: next_level(S, s, t),
        lambda s, t: pause(S, s, t),
        lambda s, t: previous_level(S, s, t),
        lambda s, t: resume(S, s, t),
        lambda s, t: jump_to(S, s, t, 4),
    ]
    for version, step in enumerate(steps, start=1):
        state = step(state, T0 + version * 1000)
        assert state.version == version


def test_r_clock_3_index_beyond_an_edited_structure_is_clamped():
    short = S[:2]
    v = view(short, ClockState(index=7, item_elapsed_ms=0), T0)
    assert v.index == 1


# --- R-LATE-1: registration ------------------------------------------------------------------

def test_r_late_1_registration_closes_exactly_when_the_major_break_starts():
    state = started_at()
    assert view(S, state, T0 + 60 * MIN - 1).registration_open
    at_break = view(S, state, T0 + 60 * MIN)
    assert at_break.is_major_break and not at_break.registration_open
    assert not view(S, state, T0 + 80 * MIN).registration_open
    assert not view(S, state, T0 + END + MIN).registration_open


def test_r_late_1_default_major_break_after_60_minutes_of_play():
    structure = (Level(20, 25, 50), Break(5), Level(20, 50, 100), Level(20, 75, 150),
                 Break(10, "Dinner"), Level(20, 100, 200))
    state = started_at(structure=structure)
    first_break = view(structure, state, T0 + 21 * MIN)
    assert first_break.is_break and not first_break.is_major_break and first_break.registration_open
    assert view(structure, state, T0 + 65 * MIN - 1).registration_open
    dinner = view(structure, state, T0 + 65 * MIN)
    assert dinner.is_major_break and not dinner.registration_open


def test_r_late_1_no_major_break_means_always_open():
    structure = (Level(20, 25, 50), Break(5), Level(20, 50, 100))
    assert view(structure, started_at(structure=structure), T0 + 10 * 60 * MIN).registration_open


# --- R-CHIP-2: bonus window ------------------------------------------------------------------

def test_r_chip_2_bonus_window_before_start_and_during_the_major_break():
    assert bonus_window_open(view(S, ClockState(), T0))
    state = started_at()
    assert not bonus_window_open(view(S, state, T0))
    assert not bonus_window_open(view(S, state, T0 + 60 * MIN - 1))
    assert bonus_window_open(view(S, state, T0 + 60 * MIN))
    assert bonus_window_open(view(S, pause(S, state, T0 + 70 * MIN), T0 + 200 * MIN))
    assert not bonus_window_open(view(S, state, T0 + 75 * MIN))
    assert not bonus_window_open(view(S, state, T0 + 105 * MIN))  # the other break


# --- R-CLOCK-4: shot clock -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("after_ms", "expected"),
    [
        (0, ShotView(70_000, "running")),
        (29_999, ShotView(40_001, "running")),
        (30_000, ShotView(40_000, "warning")),
        (59_999, ShotView(10_001, "warning")),
        (60_000, ShotView(10_000, "count")),
        (69_999, ShotView(1, "count")),
        (70_000, ShotView(0, "expired")),
        (99_000, ShotView(0, "expired")),
        (-500, ShotView(70_000, "running")),
    ],
)
def test_r_clock_4_thpa_shot_clock_phases(after_ms, expected):
    assert shot_view(T0, T0 + after_ms) == expected


def test_r_clock_4_tda_shot_clock_is_25_plus_5():
    tda = SHOT_RULES["tda"]
    phases = [shot_view(T0, T0 + s * 1000, tda.length_s, tda.warning_s, tda.count_s).phase
              for s in (0, 24, 25, 29, 30)]
    assert phases == ["running", "running", "count", "count", "expired"]
    thpa = SHOT_RULES["thpa"]
    assert (thpa.length_s, thpa.warning_s, thpa.count_s) == (70, 40, 10)


def test_r_clock_4_bad_shot_settings_are_refused():
    with pytest.raises(ValueError, match="at least 1 second"):
        ShotRule(0, 0, 0)
    with pytest.raises(ValueError, match="count must be 0 to 30 seconds"):
        shot_view(T0, T0, length_s=30, warning_s=10, count_s=31)


# --- R-LATE-3: missed blinds -----------------------------------------------------------------

def test_r_late_3_missed_blinds_one_round_per_level_begun():
    assert missed_blinds(S, 0) == 0
    assert missed_blinds(S, 1) == 25 + 50
    assert missed_blinds(S, 15 * MIN) == 75  # exactly as level 2 begins: level 1 only
    assert missed_blinds(S, 15 * MIN + 1) == 75 + 150
    # In the major break (60 min of play): levels 1-4.
    assert missed_blinds(S, 60 * MIN) == 75 + 150 + 225 + 300
    # Level 6 has a 400 big-blind ante.
    assert missed_blinds(S, 80 * MIN) == 750 + 450 + 1000


def test_r_late_3_missed_blinds_from_the_clock_view():
    state = started_at()
    v = view(S, state, T0 + 70 * MIN)  # during the major break
    assert missed_blinds(S, v.play_elapsed_ms) == 750
    everything = sum(i.small_blind + i.big_blind + i.ante for i in S if isinstance(i, Level))
    assert missed_blinds(S, view(S, state, T0 + END + 60 * MIN).play_elapsed_ms) == everything


# --- properties ------------------------------------------------------------------------------

ACTIONS = ("start", "pause", "resume", "next", "previous", "adjust", "jump")


@st.composite
def action_runs(draw):
    key = draw(st.sampled_from(sorted(TEMPLATES)))
    structure = TEMPLATES[key][1]
    steps = draw(st.lists(
        st.tuples(
            st.sampled_from(ACTIONS),
            st.integers(0, 90 * MIN),  # time since the previous action
            st.integers(-30 * MIN, 30 * MIN),  # adjust delta
            st.integers(0, len(structure) - 1),  # jump target
        ),
        max_size=25,
    ))
    return structure, steps


def apply(structure, state, action, now, delta, target):
    match action:
        case "start":
            return clock.start(structure, state, now)
        case "pause":
            return clock.pause(structure, state, now)
        case "resume":
            return clock.resume(structure, state, now)
        case "next":
            return clock.next_level(structure, state, now)
        case "previous":
            return clock.previous_level(structure, state, now)
        case "adjust":
            return clock.adjust(structure, state, now, delta)
        case "jump":
            return clock.jump_to(structure, state, now, target)


def check_consistent(structure, state, now):
    v = view(structure, state, now)
    duration = structure[v.index].duration_ms
    assert 0 <= v.index < len(structure)
    assert v.item_duration_ms == duration
    assert 0 <= v.remaining_ms <= duration + MAX_ADDED_MS
    assert v.overtime_ms >= 0
    assert v.overtime_ms == 0 or (v.index == len(structure) - 1 and v.remaining_ms == 0)
    assert v.running == (state.running_since_ms is not None)
    assert v.version == state.version
    return v


@settings(max_examples=300, deadline=None)
@given(action_runs(), st.integers(1, 10 * 60 * MIN))
def test_r_clock_3_property_views_stay_consistent_and_never_jump(run, d):
    structure, steps = run
    state, now = ClockState(), T0
    for action, gap, delta, target in steps:
        now += gap
        check_consistent(structure, state, now)
        try:
            new = apply(structure, state, action, now, delta, target)
        except ValueError:
            continue
        assert new.version == state.version + 1
        before, after = view(structure, state, now), view(structure, new, now)
        moved = total_elapsed(structure, after) - total_elapsed(structure, before)
        if action in ("start", "pause", "resume"):
            # Starting or stopping the clock never moves it.
            assert moved == 0
        else:
            assert (new.running_since_ms is None) == (state.running_since_ms is None)
        if action in ("next", "previous", "jump"):
            expected = {"next": before.index + 1, "previous": max(before.index - 1, 0),
                        "jump": target}[action]
            assert (after.index, after.remaining_ms) == (expected, after.item_duration_ms)
        if action == "adjust":
            capped = after.remaining_ms == after.item_duration_ms + MAX_ADDED_MS
            assert moved == -delta or (capped and moved > -delta)
        state = new
    before = check_consistent(structure, state, now)
    after = check_consistent(structure, state, now + d)
    moved = total_elapsed(structure, after) - total_elapsed(structure, before)
    assert moved == (d if state.running_since_ms is not None else 0)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(TEMPLATES)), st.integers(0, 8 * 60 * MIN), st.integers(-90 * MIN, 90 * MIN))
def test_r_clock_3_property_adjust_moves_the_clock_by_delta(key, at, delta):
    structure = TEMPLATES[key][1]
    state = started_at(structure=structure)
    before = view(structure, state, T0 + at)
    after = view(structure, adjust(structure, state, T0 + at, delta), T0 + at)
    moved = total_elapsed(structure, after) - total_elapsed(structure, before)
    # Added time is capped; otherwise the clock moves back by exactly what was added.
    if before.index == after.index and after.remaining_ms == after.item_duration_ms + MAX_ADDED_MS:
        assert moved >= -delta
    else:
        assert moved == -delta


def test_r_clock_4_shot_rule_for_a_leagues_length():
    from league.clock import SHOT_RULES, shot_rule
    assert shot_rule(70) == SHOT_RULES["thpa"] and shot_rule(30) == SHOT_RULES["tda"]
    other = shot_rule(20)
    assert (other.length_s, other.warning_s, other.count_s) == (20, 20, 10)


# --- R-LATE-1, R-LATE-3: when registration closes, as the clock runs now ------------------------

def test_r_late_3_registration_closes_at_the_major_break_as_the_clock_runs():
    state = started_at()
    assert clock.ms_until_registration_closes(S, state, T0) == 60 * MIN
    assert clock.ms_until_registration_closes(S, state, T0 + 50 * MIN) == 10 * MIN
    assert clock.ms_until_registration_closes(S, state, T0 + 60 * MIN) is None  # closed: the break is on


def test_r_late_3_a_pause_a_skip_or_added_time_moves_the_moment():
    state = started_at()
    paused = pause(S, state, T0 + 20 * MIN)
    assert clock.ms_until_registration_closes(S, paused, T0 + 30 * MIN) is None  # stopped: no moment known
    resumed = resume(S, paused, T0 + 30 * MIN)
    assert clock.ms_until_registration_closes(S, resumed, T0 + 30 * MIN) == 40 * MIN
    skipped = next_level(S, resumed, T0 + 30 * MIN)  # from 5 minutes into L2 to L3's start
    assert clock.ms_until_registration_closes(S, skipped, T0 + 30 * MIN) == 30 * MIN
    added = adjust(S, skipped, T0 + 30 * MIN, 2 * MIN)
    assert clock.ms_until_registration_closes(S, added, T0 + 30 * MIN) == 32 * MIN


def test_r_late_1_the_nights_minutes_of_play_close_it_breaks_not_counted():
    structure = (Level(20, 25, 50), Break(5), Level(20, 50, 100), Level(20, 75, 150))
    state = started_at(structure=structure)
    # 30 minutes of play: L1's 20, the 5-minute break (not play), then 10 of L2
    assert clock.ms_until_registration_closes(structure, state, T0, close_after_minutes=30) == 35 * MIN
    # past the end of the structure, play keeps counting in overtime
    assert clock.ms_until_registration_closes(structure, state, T0, close_after_minutes=70) == 75 * MIN
    assert not clock.registration_open_after(view(structure, state, T0 + 35 * MIN), 30)


def test_r_late_1_no_major_break_and_no_minutes_never_closes():
    structure = (Level(20, 25, 50), Break(5), Level(20, 50, 100))
    assert clock.ms_until_registration_closes(structure, started_at(structure=structure), T0) is None


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(TEMPLATES)), st.integers(0, 6 * 60 * MIN), st.integers(-30 * MIN, 30 * MIN),
       st.one_of(st.none(), st.integers(1, 240)))
def test_r_late_3_property_the_moment_agrees_with_every_screen(key, at, delta, minutes):
    structure = TEMPLATES[key][1]
    state = adjust(structure, started_at(structure=structure), T0 + at, delta)  # time added or taken
    now = T0 + at
    closes_in = clock.ms_until_registration_closes(structure, state, now, minutes)

    def open_at(ms):
        return clock.registration_open_after(view(structure, state, ms), minutes)
    if closes_in is None:  # closed already, or open all night
        assert not open_at(now) or open_at(now + 24 * 60 * MIN)
    else:
        assert closes_in > 0 and open_at(now + closes_in - 1) and not open_at(now + closes_in)
