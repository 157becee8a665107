"""The database side of the league: typed models, the night's journal, and one module for each
thing the host and organiser do (check-in, seats, bonus chips, bust-outs, deals, settling,
pre-registration, results, standings, members). Each asks league/ for every decision, reads and
writes models through the session, and never commits: the view or command that called it does.
"""


class Refused(ValueError):
    """A rule said no; the message is for the person who asked."""


class Overridable(Refused):
    """A refusal the host may override with a reason, recorded as a ruling (R-MEM-2): late entry
    after the major break (R-LATE-1), a bonus outside its window (R-CHIP-2)."""
