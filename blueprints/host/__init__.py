"""The host's blueprint: one host (or an organiser) runs the night from a phone. One blueprint, so
every URL and `url_for("host.…")` is the same whichever module holds the view:

- nights: the start page, a new night, and a night edited or cancelled before play
- clock:  the clock's controls and the blind structure editor (R-CLOCK-1..4)
- line:   the clock's taps over one WebSocket the host's screen keeps open (R-CLOCK-3/4)
- roster: check-in, seats, bonus chips, bust-outs, the deal and settling, each one journalled
          host action with Undo
- floor:  warnings and penalties for one player (R-PEN), and the roster's re-entry and rebuy (R-ENTRY)
- correct: a settled night corrected and settled again (a ruling, with Undo)
- ballot: pass the phone, a player's private deal ballot on the host's phone (R-PAY-2)

base.py holds the blueprint, its login check and `my_event`; importing the view modules here is
what adds their routes to it."""

from blueprints.host import ballot, clock, correct, floor, line, nights, roster
from blueprints.host.base import bp

__all__ = ["ballot", "bp", "clock", "correct", "floor", "line", "nights", "roster"]
