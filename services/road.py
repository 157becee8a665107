"""A player's road to the finals, read from the database in a fixed number of queries (R-STD-1/2,
R-QUAL-1/2/4): their place this month and this season, the points from the Top-10 Shoot-out and the
season's Top 50, their Monthly Final ticket or how to still earn one, the nights left this month at
the venues they play, and their last results. league.road decides; /me, the league's home and the
API read the one Road this module builds, so a player has one number everywhere."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import joinedload

from league.events import EVENT_TYPES
from league.road import Cut, Place, TicketChance, place_of, shootout_cut, ticket_chance, top50_cut
from league.standings import StandingRow
from league.statuses import PARTICIPANT_STATUSES, EventStatus
from services import finals, leagues, results, standings
from services.models import Entry, Event, League, Member, Ticket
from wiring.extensions import db

FORM_RESULTS = 10  # the chart of a player's form shows their last ten point-awarding results
POINT_TYPES = frozenset(name for name, kind in EVENT_TYPES.items() if kind.awards_points)
TICKET_TYPES = frozenset(name for name, kind in EVENT_TYPES.items() if kind.awards_tickets)


@dataclass(frozen=True)
class Road:
    """R-STD-1/2, R-QUAL-1/2/4: what one member needs this month and season, as every screen shows it.

    `nights`: this month's point-awarding nights still to play (running, or booked from today) at the
    venues the member has played, soonest first; every venue's when `at_their_venues` is False (they
    have played nowhere yet). `form`: their last point-awarding results, oldest first (the chart's
    left to right). `finals`: the Monthly Final(s) booked for this month's tickets."""

    member: Member
    month: str
    year: str
    month_place: Place | None
    season_place: Place | None
    shootout: Cut
    top50: Cut
    ticket: Ticket | None
    finals: list[Event]
    chance: TicketChance
    nights: list[Event]
    at_their_venues: bool
    form: list[Entry]

    @property
    def month_label(self) -> str:
        """The month as people say it: "November 2026"."""
        return leagues.parse_month(self.month)[0].strftime("%B %Y")


def road_of(league: League, member: Member, *, month_table: list[StandingRow] | None = None,
            season_table: list[StandingRow] | None = None, recent: list[Entry] | None = None) -> Road:
    """R-STD-1/2, R-QUAL-1/2/4: the member's road this month (the league's local today). Pass the
    month's and season's tables and the member's settled results (newest first,
    results.member_results) when the caller has read them already: nothing is read twice."""
    today = league.today()
    month, year = today.strftime("%Y-%m"), str(today.year)
    if month_table is None:
        month_table = standings.month_standings(league, month)
    if season_table is None:
        season_table = standings.year_standings(league, year)
    if recent is None:
        # Finals among them award no points (R-PTS-8) and stay off the chart: read enough to fill it.
        recent = results.member_results(member, limit=4 * FORM_RESULTS)
    ticket = db.session.scalar(db.select(Ticket).options(joinedload(Ticket.event).joinedload(Event.venue)).where(
        Ticket.league_id == league.id, Ticket.month == month, Ticket.member_id == member.id))
    first, following = leagues.parse_month(month)
    left = [night for night in leagues.nights_from(league, today)
            if first <= night.date < following and night.event_type in POINT_TYPES]
    played_at = _venues_played(member)
    theirs = [night for night in left if night.venue_id in played_at]
    chance = ticket_chance(holds_ticket=ticket is not None, pass_down=league.pass_down,
                           nights_left=sum(1 for night in left if night.event_type in TICKET_TYPES))
    form = [entry for entry in recent if entry.event.event_type in POINT_TYPES][:FORM_RESULTS]
    return Road(member=member, month=month, year=year, month_place=place_of(month_table, member.id),
                season_place=place_of(season_table, member.id), shootout=shootout_cut(month_table, member.id),
                top50=top50_cut(season_table, member.id), ticket=ticket,
                finals=finals.finals_for(league, month, ("monthly_final",)), chance=chance,
                nights=theirs if played_at else left, at_their_venues=bool(played_at), form=form[::-1])


def _venues_played(member: Member) -> set[int]:
    """The venues where the member has played a settled game (R-PTS-5: played or disqualified)."""
    return set(db.session.scalars(db.select(Event.venue_id).join(Entry, Entry.event_id == Event.id).where(
        Entry.member_id == member.id, Entry.status.in_(PARTICIPANT_STATUSES),
        Event.status == EventStatus.SETTLED).distinct()))

