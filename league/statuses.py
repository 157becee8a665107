"""The league's vocabularies as `str` enums, and the named sets of statuses the rules use
(R-PTS-5, R-CHIP-3, R-LATE-3, R-LATE-4, R-PAY-2).

Each member is its own string ("playing" == EntryStatus.PLAYING), so the database stores the plain
word, JSON and templates read it as it is, and the migrations' CHECK constraints list the same
values (`values()`), so the database refuses any other.
"""
from __future__ import annotations

from enum import StrEnum


class EventStatus(StrEnum):
    """Where a night is: booked, under way (the clock has started), settled (points given), or
    cancelled before play (kept on the list with who cancelled it and why; it awards nothing)."""
    SCHEDULED = "scheduled"
    RUNNING = "running"
    SETTLED = "settled"
    CANCELLED = "cancelled"


class EntryStatus(StrEnum):
    """Where a member is in one night."""
    REQUESTED = "requested"  # pre-registered from their phone for a night with a buy-in: waits for the host
    REGISTERED = "registered"  # pre-registered (R-LATE-3), not arrived: their stack is in play
    PENDING = "pending"  # checked in on their own phone, not yet confirmed by the host
    PLAYING = "playing"  # in the game
    PLAYED = "played"  # finished: busted, won, or placed by a deal
    DQ = "dq"  # disqualified (R-PTS-5): in the field with 0 points
    NO_SHOW = "no_show"  # pre-registered and never came (R-LATE-3): not in the field


class DealStatus(StrEnum):
    """A deal at the final table (R-PAY-2): none yet, on the ballot, agreed, or voided by a no."""
    NONE = "none"
    OPEN = "open"
    AGREED = "agreed"
    VOID = "void"


class DealMethod(StrEnum):
    """How a deal splits the unpaid prizes (R-PAY-2)."""
    CHIP_CHOP = "chip_chop"
    ICM = "icm"


class TicketState(StrEnum):
    """A member's Monthly Final ticket for one month (R-QUAL-3): none, held, or presented at a final
    already (a ticket admits once)."""
    NONE = "none"
    UNUSED = "unused"
    USED = "used"


class LeagueKind(StrEnum):
    """Free-to-play or cash (R-QUAL-2's pass-down default differs)."""
    FREE = "free"
    CASH = "cash"


class Role(StrEnum):
    """Who a login is (R-MEM-2: hosts make the night's rulings). The operator runs this ShuffleUp (its
    leagues and their organisers) and belongs to no league."""
    ORGANISER = "organiser"
    HOST = "host"
    OPERATOR = "operator"


class LinkPurpose(StrEnum):
    """What a one-time login link does (R-MEM-2: each login is its holder's alone): set up this
    ShuffleUp's operator, or set a login's own password."""
    SETUP = "setup"
    PASSWORD = "password"


def values(vocabulary: type[StrEnum]) -> tuple[str, ...]:
    """Every value of a vocabulary, in order (for CHECK constraints and form choices)."""
    return tuple(member.value for member in vocabulary)


# R-PTS-5: results. A disqualified player took a seat and a position, so counts in the field.
RESULT_STATUSES = (EntryStatus.PLAYED, EntryStatus.DQ, EntryStatus.NO_SHOW)
PARTICIPANT_STATUSES = (EntryStatus.PLAYED, EntryStatus.DQ)
# R-LATE-4: in a game until they are out.
LIVE = (EntryStatus.PENDING, EntryStatus.PLAYING)
OPEN_EVENTS = (EventStatus.SCHEDULED, EventStatus.RUNNING)
# A player's own pre-registration for a night with a buy-in waits as EntryStatus.REQUESTED until the
# host confirms the buy-in was paid (confirm) or turns it away (reject). It is nowhere in the game: not
# live for R-LATE-4, no stack in play (R-CHIP-3), not among the players left.
PRE_REGISTERED = (EntryStatus.REGISTERED, EntryStatus.REQUESTED)  # not arrived: may still check in or cancel
STILL_IN = (EntryStatus.PLAYING, EntryStatus.REGISTERED)  # a pre-registered player's stack is in play (R-LATE-3)
STACK_IN_PLAY = STILL_IN + PARTICIPANT_STATUSES  # R-CHIP-3: busted players' chips stay in play
FIELD = (EntryStatus.PLAYING,) + PARTICIPANT_STATUSES  # R-PTS-5: who took a seat, still in or not
WAITING = (EntryStatus.PENDING, EntryStatus.REQUESTED)  # for the host to confirm or turn away
# A member's entry in a night not settled yet, for their home page.
ON_THEIR_PHONE = (EntryStatus.REQUESTED, EntryStatus.PENDING, EntryStatus.REGISTERED, EntryStatus.PLAYING,
                  EntryStatus.PLAYED, EntryStatus.DQ)


class PenaltyKind(StrEnum):
    """What the host gives a player on the floor (R-PEN-1): a verbal warning, a missed-hand or a
    missed-round penalty, or a disqualification (R-PTS-5)."""
    WARNING = "warning"
    MISSED_HANDS = "missed_hands"
    MISSED_ROUNDS = "missed_rounds"
    DISQUALIFICATION = "disqualification"


class RulingKind(StrEnum):
    """What a ruling in the league's record is (R-MEM-2: who, when, what and why), with the rule it
    is made under."""
    BAN = "ban"  # R-MEM-2
    UNBAN = "unban"  # R-MEM-2
    DISQUALIFICATION = "disqualification"  # R-PTS-5
    PENALTY = "penalty"  # R-PEN-1: a warning, or missed hands or rounds
    PENALTY_ENDED = "penalty_ended"  # R-PEN-2: ended early
    PENALTY_EXTENDED = "penalty_extended"  # R-PEN-2
    BONUS_OVERRIDE = "bonus_override"  # R-CHIP-2: a refused bonus accepted
    LATE_ENTRY_OVERRIDE = "late_entry_override"  # R-LATE-1: let in after registration closed
    FINAL_ENTRY_OVERRIDE = "final_entry_override"  # R-QUAL-3..5: into a final without qualifying
    RESULT_CORRECTION = "result_correction"  # R-MEM-2: a settled night's results corrected
    DEAL_COUNT = "deal_count"  # R-CHIP-3, R-PTS-7: a deal's chip count that differs from the chips in play


class ReentryMode(StrEnum):
    """Whether an event type lets a player buy back in (R-ENTRY-1): not at all (THPA), a re-entry
    after busting (a new random seat), or a rebuy when all their chips are lost (the same seat)."""
    OFF = "off"
    REENTRY = "reentry"
    REBUY = "rebuy"
