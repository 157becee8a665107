"""The shared blind clock (R-CLOCK-1..4, R-LATE-1, R-LATE-3), derived from stored state.

No process keeps the clock in memory: the database holds a ClockState, and every screen is
view(structure, state, now_ms) with the server's epoch milliseconds. Host actions are pure
functions from one ClockState to the next.
"""

from __future__ import annotations

from dataclasses import dataclass

from league.structures import (
    MS_PER_MINUTE,
    Break,
    Level,
    Structure,
    major_break_index,
    play_starts_ms,
)

# R-CLOCK-3: the host can add time, but a level stretched without limit is almost always a
# mis-tap; an hour of slack covers any real reason (a dispute, a long colour-up).
MAX_ADDED_MS = 60 * MS_PER_MINUTE


@dataclass(frozen=True)
class ClockState:
    """What is stored for an event's clock (R-CLOCK-3).

    `index`: the item current at the last change. `item_elapsed_ms`: time elapsed in it at the
    last change; negative when time was added, which lengthens only the current item.
    `running_since_ms`: server time it last started running; None when paused or not started.
    `started`: the clock has run at least once (R-CHIP-2 "commencement of play").
    `version`: bumped by every host action, so devices can tell stale state from fresh.
    """

    index: int = 0
    item_elapsed_ms: int = 0
    running_since_ms: int | None = None
    started: bool = False
    version: int = 0


@dataclass(frozen=True)
class NextItem:
    """The item after the current one, for "Next: ..." (R-CLOCK-2).

    For a level: label "Level N" and its blinds. For a break: its label, and the blinds of the
    level after it, so a screen can say "Break 15 min, then 150/300".
    """

    index: int
    is_break: bool
    label: str
    minutes: int
    small_blind: int
    big_blind: int
    ante: int


@dataclass(frozen=True)
class ClockView:
    """Everything a screen shows, derived from the stored state at `at_ms` (R-CLOCK-1..3, R-LATE-1).

    During a break the blinds are those of the next level. `remaining_ms` is 0 in overtime and
    `overtime_ms` is the time past the end of the last item (the clock keeps counting on the last
    level rather than sticking at 00:00). `play_elapsed_ms` is the position on the structure's
    timeline counting levels only; time added to a level is not play until it is used up.
    """

    at_ms: int
    index: int
    level_number: int
    is_break: bool
    break_label: str
    colour_up: str
    is_major_break: bool
    small_blind: int
    big_blind: int
    ante: int
    item_duration_ms: int
    remaining_ms: int
    overtime_ms: int
    running: bool
    started: bool
    version: int
    next_item: NextItem | None
    ms_to_next_break: int | None
    registration_open: bool
    play_elapsed_ms: int


def _position(structure: Structure, index: int, elapsed_ms: int) -> tuple[int, int]:
    """Walk forward from (index, elapsed) to the item that time falls in.

    Exactly at a boundary the next item is current. On the last item elapsed may exceed its
    duration: that excess is overtime.
    """
    if not structure:
        raise ValueError("The structure has no levels, so there is no clock to show")
    # A structure edited after the clock started may be shorter than the stored index.
    index = min(max(index, 0), len(structure) - 1)
    while index < len(structure) - 1 and elapsed_ms >= structure[index].duration_ms:
        elapsed_ms -= structure[index].duration_ms
        index += 1
    return index, elapsed_ms


def _now_position(structure: Structure, state: ClockState, now_ms: int) -> tuple[int, int]:
    elapsed = state.item_elapsed_ms
    if state.running_since_ms is not None:
        # Processes' clocks may differ slightly; a lagging one must not run the clock backwards.
        elapsed += max(0, now_ms - state.running_since_ms)
    return _position(structure, state.index, elapsed)


def _level_in_force(structure: Structure, index: int) -> Level:
    """The level whose blinds apply at `index`: itself, or for a break the next level."""
    after = [item for item in structure[index:] if isinstance(item, Level)]
    if after:
        return after[0]
    before = [item for item in structure[:index] if isinstance(item, Level)]
    return before[-1] if before else Level(0, 0, 0)


def _next_item(structure: Structure, index: int) -> NextItem | None:
    if index + 1 >= len(structure):
        return None
    item = structure[index + 1]
    blinds = _level_in_force(structure, index + 1)
    if isinstance(item, Break):
        label = item.label
    else:
        label = f"Level {sum(isinstance(i, Level) for i in structure[: index + 2])}"
    return NextItem(index + 1, isinstance(item, Break), label, item.minutes,
                    blinds.small_blind, blinds.big_blind, blinds.ante)


def _play_at(structure: Structure, starts: tuple[int, ...], index: int, elapsed_ms: int) -> int:
    """Play time (levels only) at `elapsed_ms` into item `index`: time added to a level is not play until
    it is used up; overtime on the last level is play (R-LATE-1)."""
    item = structure[index]
    if isinstance(item, Break):
        return starts[index]
    duration = item.duration_ms
    return starts[index] + min(max(elapsed_ms, 0), duration) + max(0, elapsed_ms - duration)


def view(structure: Structure, state: ClockState, now_ms: int) -> ClockView:
    """The clock as every device shows it at server time `now_ms` (R-CLOCK-1..3, R-LATE-1).

    Elapsed in the item = item_elapsed_ms, plus now_ms - running_since_ms while running; time
    then walks forward through the items; past the end of the last item it is overtime.
    Registration is open while the current item is before the major break (R-LATE-1), always
    when the structure has none.
    """
    index, elapsed = _now_position(structure, state, now_ms)
    item = structure[index]
    duration = item.duration_ms
    remaining = max(0, duration - elapsed)
    overtime = max(0, elapsed - duration)
    blinds = _level_in_force(structure, index)
    is_break = isinstance(item, Break)
    major = major_break_index(structure)

    ms_to_next_break: int | None = None
    ahead = remaining
    for later in structure[index + 1:]:
        if isinstance(later, Break):
            ms_to_next_break = ahead
            break
        ahead += later.duration_ms

    play_elapsed = _play_at(structure, play_starts_ms(structure), index, elapsed)

    return ClockView(
        at_ms=now_ms,
        index=index,
        level_number=sum(isinstance(i, Level) for i in structure[: index + 1]),
        is_break=is_break,
        break_label=item.label if is_break else "",
        colour_up=item.colour_up if is_break else "",
        is_major_break=index == major,
        small_blind=blinds.small_blind,
        big_blind=blinds.big_blind,
        ante=blinds.ante,
        item_duration_ms=duration,
        remaining_ms=remaining,
        overtime_ms=overtime,
        running=state.running_since_ms is not None,
        started=state.started,
        version=state.version,
        next_item=_next_item(structure, index),
        ms_to_next_break=ms_to_next_break,
        registration_open=major is None or index < major,
        play_elapsed_ms=play_elapsed,
    )


def registration_open_after(clock_view: ClockView, close_after_minutes: int | None) -> bool:
    """R-LATE-1: whether registration is open: until the major break commences (the view's own
    answer), or, when the night's settings name minutes of play, until that much play has passed."""
    if close_after_minutes is None:
        return clock_view.registration_open
    return clock_view.play_elapsed_ms < close_after_minutes * MS_PER_MINUTE


def ms_until_registration_closes(structure: Structure, state: ClockState, now_ms: int,
                                 close_after_minutes: int | None = None) -> int | None:
    """R-LATE-1, R-LATE-3: how long until registration closes, while the clock runs as it stands
    (None: it is closed already, it never closes, or the clock is stopped, so no moment is known).

    The moment is found by halving the interval, asking at each step what view() would answer (the
    same position and play time): registration, once closed, stays closed while the clock runs, so
    this agrees with every screen to the millisecond. A pause,
    a level skip or time added moves the moment; the caller asks again after each.
    """
    starts, major = play_starts_ms(structure), major_break_index(structure)
    close_ms = None if close_after_minutes is None else close_after_minutes * MS_PER_MINUTE

    def open_at(at_ms: int) -> bool:  # as view(...).registration_open, with the setting, computes it
        index, elapsed = _now_position(structure, state, at_ms)
        if close_ms is None:
            return major is None or index < major
        return _play_at(structure, starts, index, elapsed) < close_ms

    if state.running_since_ms is None or not open_at(now_ms):
        return None
    # No later than the whole structure, the most time a host can add, and the play the setting
    # names (play keeps counting in overtime) from now.
    latest = sum(item.duration_ms for item in structure) + MAX_ADDED_MS + (close_ms or 0)
    if open_at(now_ms + latest):
        return None  # no major break ahead and no minutes set: it stays open all night
    open_ms, closed_ms = 0, latest
    while closed_ms - open_ms > 1:
        middle = (open_ms + closed_ms) // 2
        if open_at(now_ms + middle):
            open_ms = middle
        else:
            closed_ms = middle
    return closed_ms


def bonus_window_open(clock_view: ClockView) -> bool:
    """Whether food and drink bonuses are accepted now (R-CHIP-2).

    Only at the commencement of play (before the clock first starts) and while the major break
    is on the clock; the host's override is recorded by the caller.
    """
    return not clock_view.started or clock_view.is_major_break


def _changed(structure: Structure, state: ClockState, now_ms: int, index: int, elapsed_ms: int,
             *, running: bool, started: bool | None = None) -> ClockState:
    """The state after a host action: anchored at now_ms, so nothing on screen jumps."""
    index, elapsed_ms = _position(structure, index, elapsed_ms)
    return ClockState(
        index=index,
        item_elapsed_ms=elapsed_ms,
        running_since_ms=now_ms if running else None,
        started=state.started if started is None else started,
        version=state.version + 1,
    )


def _running(state: ClockState) -> bool:
    return state.running_since_ms is not None


def start(structure: Structure, state: ClockState, now_ms: int) -> ClockState:
    """Start the clock for the first time: play commences (R-CLOCK-3, R-CHIP-2)."""
    if _running(state):
        raise ValueError("The clock is already running")
    if state.started:
        raise ValueError("The clock has already started; resume it instead")
    index, elapsed = _now_position(structure, state, now_ms)
    return _changed(structure, state, now_ms, index, elapsed, running=True, started=True)


def pause(structure: Structure, state: ClockState, now_ms: int) -> ClockState:
    """Pause the clock where it stands (R-CLOCK-3)."""
    if not state.started:
        raise ValueError("The clock hasn't started yet, so there is nothing to pause")
    if not _running(state):
        raise ValueError("The clock is already paused")
    index, elapsed = _now_position(structure, state, now_ms)
    return _changed(structure, state, now_ms, index, elapsed, running=False)


def resume(structure: Structure, state: ClockState, now_ms: int) -> ClockState:
    """Resume a paused clock from where it stopped (R-CLOCK-3)."""
    if not state.started:
        raise ValueError("The clock hasn't started yet; start it first")
    if _running(state):
        raise ValueError("The clock is already running")
    index, elapsed = _now_position(structure, state, now_ms)
    return _changed(structure, state, now_ms, index, elapsed, running=True)


def next_level(structure: Structure, state: ClockState, now_ms: int) -> ClockState:
    """Go to the start of the next item, level or break; running or paused stays so (R-CLOCK-3)."""
    index, _ = _now_position(structure, state, now_ms)
    if index >= len(structure) - 1:
        raise ValueError("The clock is already at the last level")
    return _changed(structure, state, now_ms, index + 1, 0, running=_running(state))


def previous_level(structure: Structure, state: ClockState, now_ms: int) -> ClockState:
    """Go to the start of the previous item; on the first, restart it (R-CLOCK-3)."""
    index, _ = _now_position(structure, state, now_ms)
    return _changed(structure, state, now_ms, max(index - 1, 0), 0, running=_running(state))


def adjust(structure: Structure, state: ClockState, now_ms: int, delta_ms: int) -> ClockState:
    """Add (delta_ms > 0) or remove (< 0) time on the current item (R-CLOCK-3).

    Added time lengthens only the current item, up to its duration + 60 minutes left. Removing
    more than is left carries the rest into the following items. In overtime, removing time
    adds to the overtime and adding time takes it back off (and past it, gives the last level
    time left again).
    """
    index, elapsed = _now_position(structure, state, now_ms)
    elapsed = max(elapsed - delta_ms, -MAX_ADDED_MS)
    return _changed(structure, state, now_ms, index, elapsed, running=_running(state))


def jump_to(structure: Structure, state: ClockState, now_ms: int, index: int) -> ClockState:
    """Go to the start of item `index` (0-based, levels and breaks alike) (R-CLOCK-3)."""
    if not 0 <= index < len(structure):
        raise ValueError(f"There is no item {index + 1}: the structure has {len(structure)} items")
    return _changed(structure, state, now_ms, index, 0, running=_running(state))


@dataclass(frozen=True)
class ShotRule:
    """Settings for a called clock (R-CLOCK-4): total seconds, warning and count-down points.

    A warning at or below the count means no separate warning phase.
    """

    length_s: int
    warning_s: int
    count_s: int

    def __post_init__(self) -> None:
        if self.length_s < 1:
            raise ValueError(f"A shot clock needs at least 1 second, not {self.length_s}")
        for name, value in (("warning", self.warning_s), ("count", self.count_s)):
            if not 0 <= value <= self.length_s:
                raise ValueError(f"The {name} must be 0 to {self.length_s} seconds, not {value}")


# R-CLOCK-4. THPA: 70 s, warning at 40 left, count of the last 10. TDA (rule 31): "up to 25
# seconds plus a 5 second countdown", so 30 s in all with the count as its only warning.
SHOT_RULES: dict[str, ShotRule] = {
    "thpa": ShotRule(length_s=70, warning_s=40, count_s=10),
    "tda": ShotRule(length_s=30, warning_s=0, count_s=5),
}


@dataclass(frozen=True)
class ShotView:
    """A called clock at one moment (R-CLOCK-4); phase: running, warning, count or expired."""

    remaining_ms: int
    phase: str


def shot_view(started_ms: int, now_ms: int, length_s: int = 70, warning_s: int = 40,
              count_s: int = 10) -> ShotView:
    """The called clock at `now_ms` (R-CLOCK-4); defaults are THPA's, SHOT_RULES has TDA's.

    Phases by time left: above the warning point "running"; at or below it "warning"; at or
    below the count point "count"; at 0 "expired".
    """
    rule = ShotRule(length_s, warning_s, count_s)
    remaining = max(0, rule.length_s * 1000 - max(0, now_ms - started_ms))
    if remaining == 0:
        phase = "expired"
    elif remaining <= rule.count_s * 1000:
        phase = "count"
    elif remaining <= rule.warning_s * 1000:
        phase = "warning"
    else:
        phase = "running"
    return ShotView(remaining, phase)


def missed_blinds(structure: Structure, play_elapsed_ms: int) -> int:
    """Chips to deduct from a pre-registered player who arrives late (R-LATE-3), as proposed.

    One round of forced bets, small blind + big blind + big-blind ante, for every level that
    had begun before they arrived. `play_elapsed_ms` is ClockView.play_elapsed_ms at arrival:
    play time, breaks excluded. A level counts once its first moment has passed, so arriving
    before the clock starts costs nothing and arriving exactly as level 3 begins costs levels 1
    and 2. Overtime on the last level adds nothing more.

    Why one round per level: a self-dealt pub table takes about a level to go round once, and
    an absent player posts the blinds once per round. The host confirms or changes the figure;
    capping it at the player's stack is the caller's job.
    """
    owed = 0
    for item, start in zip(structure, play_starts_ms(structure)):
        if isinstance(item, Level) and start < play_elapsed_ms:
            owed += item.small_blind + item.big_blind + item.ante
    return owed


def shot_rule(length_s: int) -> ShotRule:
    """R-CLOCK-4: the called-clock rule for a league's shot length: THPA's or TDA's when the length
    is theirs, otherwise THPA's warning and count, cut to fit a shorter shot."""
    for rule in SHOT_RULES.values():
        if rule.length_s == length_s:
            return rule
    return ShotRule(length_s, min(40, length_s), min(10, length_s))


# R-CLOCK-3: a tap kept on the host's phone while the signal was down is applied at the moment it
# was tapped, so a pause taken offline stops every phone's clock where the host's thumb stopped it.
# Only so far back: a tap older than this was taken on a night that has since gone on without it
# (the host redoes or drops it).
TAP_KEPT_MS = 10 * MS_PER_MINUTE


class TapTooOld(ValueError):
    """A tap kept on the host's phone longer than TAP_KEPT_MS: refused, nothing changed."""


def tap_time(tapped_at_ms: int | None, now_ms: int, changed_ms: int | None) -> int:
    """R-CLOCK-3: the server time a host's tap is applied at. `tapped_at_ms` is when the host tapped
    (server time as the phone reckoned it; None: a tap sent as it was made, applied now).

    Never in the future (a phone's reckoning a little ahead: now); never before the clock's last
    change `changed_ms` (a phone's reckoning a little behind: then), as no clock can be paused
    before it was last resumed; more than TAP_KEPT_MS ago: refused (TapTooOld)."""
    if tapped_at_ms is None or tapped_at_ms >= now_ms:
        return now_ms
    if now_ms - tapped_at_ms > TAP_KEPT_MS:
        raise TapTooOld(f"Tapped more than {TAP_KEPT_MS // MS_PER_MINUTE} minutes ago, too long to apply as "
                        "then: redo it now or drop it.")
    return max(tapped_at_ms, changed_ms or tapped_at_ms)
