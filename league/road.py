"""The road to the finals: what one player needs from the standings as they stand (R-STD-1/2,
R-QUAL-1/2/4): their place in the table, the points from the Top-10 Shoot-out and from the season's
Top 50, and how a Monthly Final ticket can still be earned this month."""

from __future__ import annotations

import enum
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from league.qualify import SHOOTOUT_PLACES, TICKET_PLACES
from league.standings import SEASON_TABLE_SIZE, StandingRow


@dataclass(frozen=True)
class Place:
    """A player's line in a ranked table as the standings show it (R-STD-1): the shared rank of
    equal points, whether it is shared, and how many players the table holds."""

    rank: int
    tied: bool
    points: int
    events: int
    players: int


@dataclass(frozen=True)
class Cut:
    """Where a player stands against a cut of the table (R-QUAL-4's ten, R-STD-2's fifty).

    `cut`: the points that get a player in as the table stands: the last place's total (a player
    tied with it is in), or, while places are still open, the least that counts (`open_places` > 0).
    `needed`: the points the player still needs to reach it, 0 once in (or when playing is enough).
    """

    places: int
    inside: bool
    cut: int
    needed: int
    open_places: int


def place_of(table: Sequence[StandingRow], key: Hashable) -> Place | None:
    """R-STD-1/2: the player's rank (shared on equal points, as rank_table gives it), points and
    nights in a ranked table; None when they are not in it (no point-awarding night yet)."""
    row = next((row for row in table if row.key == key), None)
    if row is None:
        return None
    tied = sum(1 for other in table if other.rank == row.rank) > 1
    return Place(row.rank, tied, row.points, row.events, len(table))


def _cut(table: Sequence[StandingRow], key: Hashable, places: int, *, least: int) -> Cut:
    """The cut over the rows that count (points >= `least`), in rank_table order: the `places`-th
    counted row's points, everyone level with it in too; with fewer counted rows, `least` gets a
    player in."""
    if places < 1:
        raise ValueError(f"a cut needs at least one place, not {places}")
    counted = [row for row in table if row.points >= least]
    mine = next((row for row in table if row.key == key), None)
    points = mine.points if mine is not None else 0
    if len(counted) < places:
        cut, open_places = least, places - len(counted)
        inside = mine is not None and mine.points >= least
    else:
        cut, open_places = counted[places - 1].points, 0
        inside = mine is not None and mine.points >= cut
    return Cut(places, inside, cut, 0 if inside else max(cut - points, 0), open_places)


def shootout_cut(month: Sequence[StandingRow], key: Hashable, places: int = SHOOTOUT_PLACES) -> Cut:
    """R-QUAL-4: the points the player needs to reach the Top-10 Shoot-out as the month stands.

    The ten highest scorers qualify and so does anyone tied with the 10th, so the player needs the
    10th scorer's total (0 if already in). With fewer than ten scorers all qualify: any points get
    a player in (`cut` 1, as shootout_qualifiers counts a scorer: more than 0 points).
    `month` is ordered as rank_table returns it; agrees with league.qualify.shootout_qualifiers.
    """
    return _cut(month, key, places, least=1)


def top50_cut(season: Sequence[StandingRow], key: Hashable, places: int = SEASON_TABLE_SIZE) -> Cut:
    """R-STD-2: the points the player needs to reach the season's published Top 50 (players tied
    with the 50th are shown too). With fewer than 50 players in the table everyone in it is shown,
    so a player not in it needs only to play a point-awarding night (`cut` 0, `needed` 0, not
    `inside`). `season` is ordered as rank_table returns it; agrees with league.standings.top_with_ties.
    """
    return _cut(season, key, places, least=0)


class TicketRoad(enum.StrEnum):
    """R-QUAL-1/2: where a player stands for this month's Monthly Final ticket."""

    HELD = "held"  # a ticket for the month is in hand
    NIGHTS_LEFT = "nights_left"  # none yet; a nightly game this month can still give one
    NO_NIGHTS_LEFT = "no_nights_left"  # none, and no nightly game is left this month


@dataclass(frozen=True)
class TicketChance:
    """R-QUAL-1/2: how the player stands for the month's Monthly Final ticket: `road`, the nightly
    games left this month (every venue), the finishing places that earn one, and whether a ticket
    passes down past finishers who already hold one (R-QUAL-2's pass-down)."""

    road: TicketRoad
    nights_left: int
    places: int
    pass_down: bool


def ticket_chance(*, holds_ticket: bool, nights_left: int, pass_down: bool,
                  places: int = TICKET_PLACES) -> TicketChance:
    """R-QUAL-1/2: the player's road to this month's Monthly Final ticket. A ticket in hand is the
    end of it (a player holds at most one a month); else a top-`places` finish in any nightly game
    left this month earns one, and with pass-down on a lower finish at the final table can too when
    players above already hold one."""
    if nights_left < 0:
        raise ValueError(f"nights left cannot be negative, not {nights_left}")
    if holds_ticket:
        road = TicketRoad.HELD
    else:
        road = TicketRoad.NIGHTS_LEFT if nights_left else TicketRoad.NO_NIGHTS_LEFT
    return TicketChance(road, nights_left, places, pass_down)
