"""The database side of the league: typed models, the night's journal, and one module for each
thing the host and organiser do (check-in, seats, bonus chips, bust-outs, finishing positions,
deals, settling, pre-registration, results, standings, members). Each asks league/ for every
decision, reads and writes models through the session, and never commits: the view or command that
called it does.
"""
from league.text import as_sentence, clean_text, text_problem

MAX_REASON_LENGTH = 500  # Ruling.reason is String(500)


class Refused(ValueError):
    """A rule said no; the message is for the person who asked."""


def typed_text(text: str, max_length: int, what: str, *, required: bool = False) -> str:
    """Text someone typed, cleaned for storage (league.text.clean_text); Refused with the reason
    when it cannot be stored (league.text.text_problem: controls, invisible marks, too long)."""
    problem = text_problem(text, max_length, what, required=required)
    if problem:
        raise Refused(as_sentence(problem))
    return clean_text(text)


class Overridable(Refused):
    """A refusal the host may override with a reason, recorded as a ruling (R-MEM-2): late entry
    after the major break (R-LATE-1), a bonus outside its window (R-CHIP-2)."""
