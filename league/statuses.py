"""The statuses of events and entries, and the named sets the rules use (R-PTS-5, R-CHIP-3, R-LATE-3/4)."""
from __future__ import annotations

from league.points import PARTICIPANT_STATUSES

LIVE = ("pending", "playing")  # R-LATE-4: in a game until they are out


OPEN_EVENTS = ("scheduled", "running")


# A player's own pre-registration for a night with a buy-in waits in this status until the host
# confirms the buy-in was paid (confirm) or turns it away (reject). It is nowhere in the game: not
# live for R-LATE-4, no stack in play (R-CHIP-3), not among the players left.
REQUESTED = "requested"


PRE_REGISTERED = ("registered", REQUESTED)  # not arrived yet: they may still check in or cancel


STILL_IN = ("playing", "registered")  # a pre-registered player's stack is in play (R-LATE-3)


STACK_IN_PLAY = STILL_IN + PARTICIPANT_STATUSES  # R-CHIP-3: busted players' chips stay in play


FIELD = ("playing",) + PARTICIPANT_STATUSES  # R-PTS-5: who took a seat, still in or not

