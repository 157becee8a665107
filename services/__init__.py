"""The database side of the league: typed models, the night's journal, and one module for each
thing the host and organiser do (check-in, seats, bonus chips, bust-outs, finishing positions,
deals, settling, pre-registration, results, standings, members). Each asks league/ for every
decision, reads and writes models through the session, and never commits: the view or command that
called it does.
"""


class Refused(ValueError):
    """A rule said no; the message is for the person who asked."""
