"""The night's roster on the host's phone: arrivals, walk-ins, seats, bonus chips, bust-outs, the deal and
settling, each one journalled host action (R-MEM-1, R-LATE, R-SEAT, R-CHIP, R-PTS, R-PAY)."""

import datetime as dt
from collections.abc import Callable
from typing import NamedTuple

from flask import jsonify, render_template, request, url_for
from flask_login import current_user
from werkzeug.datastructures import MultiDict

from blueprints import host_action, page_or_fragment
from blueprints.filters import ordinal
from blueprints.forms import blank_or_whole_number, row_id, whole_number
from blueprints.host.base import bp, my_event, tapped_at, tapped_moment
from league.chips import BONUS_LABELS, WINDOWED_BONUSES
from league.deals import MAX_DEAL_PLAYERS
from league.members import search_key
from league.statuses import DealStatus, EntryStatus, EventStatus
from live import qr
from services import (
    Overridable,
    Refused,
    bonuses,
    busts,
    checkin,
    clocks,
    deals,
    field,
    journal,
    members,
    pool_shares,
    prereg,
    results,
    seats,
    settling,
)
from services.models import Entry, Event, Member
from services.night_snapshot import NightSnapshot, read_night
from wiring.extensions import db


def _roster(entries: list[Entry]) -> dict[str, list[Entry]]:
    by_status: dict[str, list[Entry]] = {}
    for entry in entries:
        by_status.setdefault(entry.status, []).append(entry)
    for group in by_status.values():
        group.sort(key=_by_position)
    # R-PTS-5: those out, by their finishing place (a row without one, from a file or a hand-made
    # database, last, never a failed sort)
    by_status["out"] = sorted(by_status.get(EntryStatus.PLAYED, []) + by_status.get(EntryStatus.DQ, []),
                              key=_by_position)
    return by_status


def _by_position(entry: Entry) -> tuple[bool, int, str]:
    return (entry.position is None, entry.position or 0, entry.member.name.casefold())


class SeatGroup(NamedTuple):
    """One block of the roster's players in the game: a table (its players by seat), or those not
    seated yet (seat None)."""
    table: int | None
    title: str
    rows: list[tuple[int | None, Entry]]


def _seat_groups(playing: list[Entry]) -> list[SeatGroup]:
    """R-SEAT: the players in the game as the table map has them, Table 1 seat 1 first; then the
    players not seated yet (before the draw), by name."""
    tables: dict[int, list[tuple[int | None, Entry]]] = {}
    unseated: list[tuple[int | None, Entry]] = []
    for entry in playing:
        if entry.table_no:
            tables.setdefault(entry.table_no, []).append((entry.seat_no, entry))
        else:
            unseated.append((None, entry))
    groups = [SeatGroup(table, f"Table {table}", sorted(rows, key=lambda r: r[0] or 0))
              for table, rows in sorted(tables.items())]
    if unseated:
        groups.append(SeatGroup(None, "Not seated yet" if tables else "Seats not drawn yet",
                                sorted(unseated, key=lambda r: r[1].member.name.casefold())))
    return groups


# The one-tap bonus buttons' words (R-CHIP-1), short enough for a row on a 390 px phone.
SHORT_LABELS = {"membership": "Card", "food": "Food", "drink": "Drink", "early_registration": "Early",
                "promotional": "Promo"}


def _bonus_now(kinds: list[bonuses.KindNow], tapped: str) -> str:
    """The kind the one-tap buttons give: the one the host just used, else the first open now."""
    posted = request.form.get("kind", "") if tapped.startswith("bonus") else ""
    known = [k.kind for k in kinds]
    if posted in known:
        return posted
    return next((k.kind for k in kinds if k.open), known[0] if known else "")


Form = MultiDict[str, str]


class Override(NamedTuple):
    """A refusal the host may override (R-MEM-2): the fields re-posted with the same op, the name of
    the reason field its handler reads, and the button's words."""
    carry: list[tuple[str, str]]
    field: str
    label: str


# R-LATE-1 late entry, R-CHIP-2 a bonus outside its window, R-QUAL-3..5 a final's entry, R-CHIP-3 a
# deal's count that differs from the chips in play: what each override re-posts (a name ending in "-"
# stands for every field it starts: each player's count).
OVERRIDES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "walk_in": ((), "reason", "Let them in anyway"),
    "join": (("name", "adult", "under_21"), "reason", "Let them in anyway"),
    "bonus": (("bonus_entry", "kind"), "why", "Give the bonus anyway"),
    "prereg": ((), "reason", "Pre-register anyway"),  # R-QUAL-3..5: a final's non-qualifier
    "deal": (("deal-", "method"), "count_reason", "Put it to the vote with these counts"),
}


def override_of(op: str, form: Form) -> Override | None:
    """The override form a refusal of `op` offers, with what the host had posted."""
    if op not in OVERRIDES:
        return None
    names, field_name, label = OVERRIDES[op]
    posted = [name for name in form if name in names or any(n.endswith("-") and name.startswith(n) for n in names)]
    return Override([(name, value) for name in posted for value in form.getlist(name)], field_name, label)


def _players(night: NightSnapshot, error: str | None = None, message: str | None = None, status: int = 200,
             tapped: str = "", override: Override | None = None):
    # The night read once (services.night_snapshot): the roster, the counts, the tables, the bonus
    # buttons and the journal all come from it.
    event, entries = night.event, night.entries
    chips_in_play, average = night.chip_count()
    zone = event.league.zone()
    recent = [(action, action.at.replace(tzinfo=dt.UTC).astimezone(zone).strftime("%H:%M"))
              for action in night.recent]
    roster = _roster(entries)
    prizes = night.prizes
    kinds = bonuses.kinds_now(event) if event.status != EventStatus.SETTLED else []
    ticked = set(request.form.getlist("out")) if error and tapped == "bust_hand" else set()
    dq_entry = next((e for e in entries if str(e.id) == request.form.get("dq_entry")), None) if error else None
    missed = {e.id: blinds for e in roster.get(EntryStatus.PLAYING, []) if (blinds := night.missed_blinds(e))}
    return page_or_fragment("host/players.html", "host/_players.html", event=event, roster=roster,
                            groups=_seat_groups(roster.get(EntryStatus.PLAYING, [])), claimed=night.claimed,
                            kinds=kinds, bonus_now=_bonus_now(kinds, tapped), short_labels=SHORT_LABELS,
                            for_everyone=WINDOWED_BONUSES, ticked=ticked, missed=missed,
                            dq_name=dq_entry.member.name if dq_entry else "",
                            players_left=night.players_left, last=night.last_action,
                            settle_offered=settling.settle_problem(night) is None,
                            provisional=night.provisional,
                            recent=recent,
                            plan=seats.table_plan(night), walk=_walk(night, tapped), redo=night.redo_action,
                            chips_in_play=chips_in_play, average=average,
                            prizes=prizes, shares_in=pool_shares.shares_drawn(event) if not prizes else 0,
                            ticketed=results.ticketed(event) if event.status == EventStatus.SETTLED else set(),
                            ballot=deals.ballot(night) if event.deal_status == DealStatus.OPEN else (0, 0),
                            max_deal=MAX_DEAL_PLAYERS,
                            check_in_url=url_for("play.check_in", code=event.check_in_code, _external=True),
                            reentry_rule=event.reentry,  # R-ENTRY-1: once, not once per player
                            server_ms=clocks.now_ms(),  # host/_kept.html: the moment of a tap kept offline
                            error=error, message=message, status=status, tapped=tapped, override=override)


def _walk(night: NightSnapshot, tapped: str) -> list[Entry]:
    """R-SEAT-1..4: the players the host has still to see sat down at the seats a draw gave them,
    starting after the one just marked done (those passed over with Next come round again)."""
    walk = seats.walk(night)
    op, _, done = tapped.partition(":")
    entry = night.entry(row_id(done)) if op == "walk_done" else None
    if entry is None or entry.table_no is None:
        return walk
    seat = (entry.table_no, entry.seat_no)
    return [e for e in walk if (e.table_no, e.seat_no) > seat] + [e for e in walk if (e.table_no, e.seat_no) < seat]


@bp.route("/events/<int:event_id>/players")
def players(event_id: int):
    """R-MEM-1, R-PTS-5..7: the host's list of arrivals, players in the game and players out."""
    return _players(read_night(my_event(event_id)))


@bp.route("/events/<int:event_id>/members")
def member_search(event_id: int):
    """R-MEM-1, R-LATE-4: the walk-in search: the members the host's typing finds, each with where
    they are tonight; a new member is offered only under a name no member has."""
    event = my_event(event_id)
    q = request.args.get("q", "").strip()
    found = members.at_the_door(event, q) if q else []
    offer_join = not any(search_key(f.member.name) == search_key(q) for f in found)
    return render_template("host/_search.html", event=event, found=found, q=q, offer_join=offer_join)


@bp.route("/events/<int:event_id>/members.json")
def door_members(event_id: int):
    """R-MEM-1, R-LATE-4: the league's members for the door while the host's phone has no signal
    (static/host/roster.js filters it as the search does, and keeps a Check in to send later): each
    one's id, name, whether photo ID is still to see (under 21), and their entry tonight. No contact
    details: the search shows none."""
    event = my_event(event_id)
    listed = [{"id": member.id, "name": member.name,
               "id_first": bool(member.under_21 and not member.id_checked_at),
               "entry": entry.id if entry else None, "status": entry.status if entry else None,
               "table": entry.table_no if entry else None, "seat": entry.seat_no if entry else None}
              for member, entry in members.door_list(event)]
    response = jsonify({"buy_in": event.buy_in or 0, "members": listed})
    response.headers["Cache-Control"] = "private, no-store"
    return response


RosterHandler = Callable[[NightSnapshot, str, Form, journal.Journal], str]


class RosterAction(NamedTuple):
    """A roster op's handler, and whether host_action records it in the journal."""
    run: RosterHandler
    record: bool


ROSTER_ACTIONS: dict[str, RosterAction] = {}


def roster_action(op: str, *, record: bool = True) -> Callable[[RosterHandler], RosterHandler]:
    """Register the handler of the roster button posting op=<op>[:<argument>]; `record=False` for
    Undo alone, which marks an earlier action undone instead of being one."""
    def register(handler: RosterHandler) -> RosterHandler:
        if op in ROSTER_ACTIONS:
            raise ValueError(f"two handlers for the roster's {op!r}")
        ROSTER_ACTIONS[op] = RosterAction(handler, record)
        return handler
    return register


def _entry(night: NightSnapshot, raw: str | None) -> Entry:
    """The entry in this game that a form field names (Refused otherwise)."""
    entry = night.entry(row_id(raw))
    if entry is None:
        raise Refused("That player is not in this game.")
    return entry


def _member(event: Event, raw: str | None) -> Member:
    """The member of the event's league that a form field names (Refused otherwise)."""
    member_id = row_id(raw)
    member = db.session.get(Member, member_id) if member_id else None
    if member is None or member.league_id != event.league_id:
        raise Refused("No such member.")
    return member


def _id_seen_in(arg: str) -> tuple[str, bool]:
    """R-MEM-1: an op's argument, and whether its button said the host saw photo ID ("…:id", the
    "ID checked · Confirm" of a member under 21)."""
    raw, _, seen = arg.partition(":")
    return raw, seen == "id"


def _buy_in_taken(event: Event, *, arrived: bool = False) -> str:
    """R-PAY-1: a cash night's check-in says the buy-in was taken (not again for a pre-registered
    player, who paid it when pre-registering: R-LATE-3)."""
    return f" · ${event.buy_in:,} buy-in taken" if event.buy_in and not arrived else ""


@roster_action("undo", record=False)
def _undo(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """The journal's Undo (no rule id of its own): take back the action undo:<id> and every later
    one, newest first, if the night's newest action is still the one the host's screen showed
    (`journal_top` from the journal list; the Undo bar's own action is the newest it showed)."""
    action_id = row_id(arg)
    last = night.last_action
    if action_id is None or last is None:
        raise Refused("Nothing to undo, or it was already undone on another screen.")
    seen = row_id(form.get("journal_top")) if form.get("journal_top") else action_id
    if seen != last.id:
        raise Refused("Nothing to undo, or it was already undone on another screen.")
    undone = journal.undo_since(night.event, action_id, seen)
    return "Took back: " + "; ".join(action.summary for action in reversed(undone))


@roster_action("redo", record=False)
def _redo(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """The journal's Redo (no rule id of its own): put back redo:<id>, what Undo took back last, if
    it is still what Redo would put back (no new action since; not redone on another screen)."""
    action = journal.redo(night.event, row_id(arg), night.last_action)
    return f"Put back: {action.summary}"


@roster_action("confirm")
def _confirm(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1, R-LATE-3: an arrival (or a paid pre-registration request) is confirmed."""
    raw, id_seen = _id_seen_in(arg)
    entry = _entry(night, raw)
    paid_before = entry.pre_registered  # R-LATE-3: a pre-registered player's buy-in was taken then
    if id_seen:
        members.id_checked(entry.member, log)
    checkin.confirm(night, entry, log)
    return f"Confirmed {entry.member.name}{_own_stack(entry)}{_buy_in_taken(night.event, arrived=paid_before)}"


def _own_stack(entry: Entry | None) -> str:
    """R-FIN: a finalist whose starting stack is their own (the High-roller Final's 20,000 / 25,000 /
    +2,000) hears it with the check-in, so the host hands over the right chips."""
    if entry is None or entry.starting_stack is None:
        return ""
    return f": starting stack {entry.starting_stack:,}"


@roster_action("reject")
def _reject(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1, R-LATE-3: an arrival (or an unpaid pre-registration request) is turned away."""
    entry = _entry(night, arg)
    name = entry.member.name  # read before the entry goes
    checkin.reject(night, entry, log)
    return f"Turned away {name}"


@roster_action("clear_arrivals")
def _clear_arrivals(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1: every arrival waiting for Confirm, up to clear_arrivals:<the newest the screen
    showed>, is turned away in one action (Undo brings them all back)."""
    names = checkin.clear_arrivals(night, log, row_id(arg) or 0)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"Turned away {len(names)} waiting arrival{'s' if len(names) != 1 else ''}: {shown}"


@roster_action("id")
def _id_checked(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1: the host saw photo ID for a member under 21."""
    entry = _entry(night, arg)
    members.id_checked(entry.member, log)
    return f"Photo ID checked for {entry.member.name}"


@roster_action("walk_in")
def _walk_in(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1, R-LATE-1..4: the host checks in a member (a walk-in, or a pre-registered player
    arriving) and seats them; once the major break has started, only with a reason (a ruling)."""
    raw, id_seen = _id_seen_in(arg)
    member = _member(night.event, raw)
    if id_seen:
        members.id_checked(member, log)
    entry = checkin.check_in(night.event, member, log, by_host=True, override_reason=form.get("reason", ""),
                             user_id=current_user.id, night=night, tapped_at_ms=tapped_at(form))
    return f"Checked in {member.name}{_own_stack(entry)}{_buy_in_taken(night.event, arrived=entry.pre_registered)}"


@roster_action("prereg")
def _prereg(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-LATE-3: the host pre-registers a member with the full buy-in: their stack is in play."""
    member = _member(night.event, arg)
    prereg.pre_register(night.event, member, log, override_reason=form.get("reason", ""), user_id=current_user.id)
    return f"Pre-registered {member.name}{_own_stack(field.entry_of(night.event, member))}"


@roster_action("deduct")
def _deduct(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-LATE-3: the host confirms (or edits) a late pre-registered player's missed blinds."""
    entry = _entry(night, arg)
    chips = whole_number(form.get(f"blinds-{entry.id}"), "Give the chips to deduct as a whole number.")
    prereg.deduct(entry, chips, log)
    return f"{entry.member.name}: {chips:,} missed blinds deducted"


@roster_action("join")
def _join(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-MEM-1, R-LATE-1/4: a new member joins on the spot (free, 18 or over) and is checked in."""
    name = form.get("name", "")
    # R-MEM-1: the host's "Under 21 (photo ID checked)" box says they saw the ID.
    member = log.created(members.join(night.event.league_id, name, form.get("adult") == "yes",
                                      form.get("under_21") == "yes", id_checked=True))
    checkin.check_in(night.event, member, log, by_host=True, override_reason=form.get("reason", ""),
                     user_id=current_user.id, night=night)
    return f"New member {name.strip()}{_buy_in_taken(night.event)}"


@roster_action("bust")
def _bust(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PTS-5: one player is out and takes the worst position still open."""
    entry = _entry(night, arg)
    positions = busts.bust(night, {entry: None}, log)
    return f"{entry.member.name} out in {ordinal(positions[entry])}"


@roster_action("bust_hand")
def _bust_hand(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PTS-5/6: the ticked players are out in one hand, ordered by their chips at its start."""
    refusal = "Give each one's chips at the start of the hand as a whole number."
    stacks = {_entry(night, entry_id): blank_or_whole_number(form.get(f"stack-{entry_id}"), refusal)
              for entry_id in form.getlist("out")}
    positions = busts.bust(night, stacks, log)
    return "Out in one hand: " + ", ".join(
        f"{e.member.name} {ordinal(p)}" for e, p in sorted(positions.items(), key=lambda i: i[1]))[:180]


@roster_action("dq")
def _disqualify(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PTS-5, R-MEM-2, R-CHIP-3: a disqualification, with its reason; the chips they had (or,
    blank, the average stack) leave play."""
    if not (arg or form.get("dq_entry")):
        raise Refused("Pick the player to disqualify.")
    entry = _entry(night, arg or form.get("dq_entry"))
    chips = blank_or_whole_number(form.get("dq_chips"),
                                  "Give the chips they had as a whole number, or leave it blank.")
    busts.disqualify(night, entry, form.get("reason", ""), log, current_user.id, chips)
    return f"{entry.member.name} disqualified"


@roster_action("draw")
def _draw(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-1: every player in the game draws a random seat."""
    seats.draw(night, log)
    return "Seats drawn"


@roster_action("break")
def _break_table(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-3: the table that is due breaks; its players draw new seats."""
    seats.break_table(night, log)
    return "Table broken"


@roster_action("final")
def _final_table(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-4: everyone fits at one table: a fresh random draw to the final table."""
    seats.final_table(night, log)
    return "Final table drawn"


@roster_action("walk_done")
def _walk_done(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-1..4: the host saw a player the draw moved (walk_done:<entry>) sit down at their new seat."""
    came_from, entry = seats.walk_done(night, row_id(arg), log)
    return f"{entry.member.name} moved: T{came_from.table} S{came_from.seat} → T{entry.table_no} S{entry.seat_no}"


@roster_action("move_to")
def _move(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-2: a balancing move (move_to:<proposal>:<table>:<seat>), the host choosing who moves."""
    proposal, _, where = arg.partition(":")
    table, _, seat = where.partition(":")
    return _move_to(night, _entry(night, form.get(f"mover-{proposal}")), table, seat, log)


@roster_action("seat")
def _seat(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-SEAT-2: the host moves one player (seat:<entry>) to the empty seat picked on their sheet
    (`to`: <table>-<seat>)."""
    table, _, seat = form.get("to", "").partition("-")
    return _move_to(night, _entry(night, arg), table, seat, log)


def _move_to(night: NightSnapshot, entry: Entry, table: str, seat: str, log: journal.Journal) -> str:
    table_no = whole_number(table, "Pick the seat to move to.", low=1)
    seat_no = whole_number(seat, "Pick the seat to move to.", low=1)
    seats.move(night, entry, table_no, seat_no, log)
    return f"{entry.member.name} moved to table {table_no} seat {seat_no}"


@roster_action("bonus")
def _bonus(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-CHIP-1..3: a bonus claim, within its window or with the host's recorded override."""
    entry = _entry(night, arg or form.get("bonus_entry"))
    kind = form.get("kind", "")
    chips = bonuses.claim_bonus(night.event, entry, kind, log, override_reason=form.get("why", ""),
                                user_id=current_user.id, tapped_at_ms=tapped_at(form))
    return f"{entry.member.name}: {BONUS_LABELS.get(kind, kind)} bonus +{chips:,}"


@roster_action("bonus_all")
def _bonus_all(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-CHIP-1/2: food (or drink) for everyone at the start of play or in the major break: one
    action, each player in the game once; refused outside the window, with the reason."""
    players, chips = bonuses.claim_for_everyone(night.event, arg, log, user_id=current_user.id)
    return f"{BONUS_LABELS[arg]} bonus +{chips:,} for {players} player{'s' if players != 1 else ''}"


@roster_action("deal")
def _deal(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PTS-7, R-PAY-2: the chip count of every remaining player, and the split put to their vote;
    R-CHIP-3: a count that differs from the chips in play only with the host's reason (a ruling)."""
    counts = {entry: blank_or_whole_number(form.get(f"deal-{entry.id}"),
                                           f"Give {entry.member.name}'s chips as a whole number.")
              for entry in night.deal_players}
    deals.open_deal(night, counts, form.get("method", ""), log, difference_reason=form.get("count_reason", ""),
                    user_id=current_user.id)
    return "Deal put to the vote"


@roster_action("deal_off")
def _deal_off(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PAY-2: the host takes the deal off the ballot; play goes on."""
    deals.call_off_deal(night.event, log)
    return "Deal called off"


@roster_action("settle")
def _settle(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PTS-1..8, R-LATE-3, R-PAY-1, R-QUAL-1/2: one player remains (or a deal was agreed): the
    night's positions, points, prizes and the month's tickets."""
    settling.settle(night, log)
    return "Night settled"


def kept_since(log: journal.Journal, form: Form) -> dt.datetime | None:
    """R-PTS-5, R-PEN-1/2: an action the host's phone kept while it had no signal is journalled at the
    moment it was tapped (base.tapped_moment; a bust-out's time is its action's), not when the signal
    came back. → that moment, or None for an action sent as it was made. Raises Refused."""
    at = tapped_moment(form)
    if at is not None:
        log.action.at = at
    return at


@bp.route("/events/<int:event_id>/players", methods=["POST"])
def player_action(event_id: int):
    """One host action on the roster, as one transaction that Undo can take back: confirm or turn
    away an arrival (R-MEM-1), check in a walk-in or a new member (R-LATE-1/4), photo ID seen,
    pre-registration and missed blinds (R-LATE-3), bust-outs (R-PTS-5/6, several in one hand by
    stacks), disqualification (R-PTS-5), seats (R-SEAT-1..4), bonus chips (R-CHIP), the deal
    (R-PTS-7, R-PAY-2), settling, re-entry and rebuy (R-ENTRY, their handlers in floor.py) and
    Undo. An op the roster doesn't have is refused, nothing written.
    A refusal (422) is the roster with the reason beside the button tapped (`tapped`); where the
    rule allows the host's ruling (R-LATE-1, R-CHIP-2, R-MEM-2) with the override form too."""
    event = my_event(event_id)
    op, _, arg = request.form.get("op", "").partition(":")
    action = ROSTER_ACTIONS.get(op)
    tapped = request.form.get("op", "")
    if action is None:
        return _players(read_night(event), error="That button did nothing: reload the page.", status=422)
    try:
        with host_action(event, op, record=action.record) as log:
            kept_since(log, request.form)
            message = log.action.summary = action.run(log.night, arg, request.form, log)
    except Overridable as refused:
        return _players(read_night(event), error=str(refused), status=422, tapped=tapped,
                        override=override_of(op, request.form))
    except Refused as refused:
        return _players(read_night(event), error=str(refused), status=422, tapped=tapped)
    return _players(log.night, message=message, tapped=tapped)


@bp.route("/events/<int:event_id>/check-in.svg")
def check_in_qr(event_id: int):
    """R-MEM-1: the QR code of the event's check-in link, for the host's phone to show."""
    event = my_event(event_id)
    link = url_for("play.check_in", code=event.check_in_code, _external=True)
    return qr.svg(link), 200, {"Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=3600"}
