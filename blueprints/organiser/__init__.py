"""The organiser's blueprint: the league's tables and its set-up. One blueprint, so every URL and
`url_for("organiser.…")` is the same whichever module holds the view:

- month: the month-end pack on screen; the season's Top 50, its months and Top-50 pool
- pack: the pack to publish: print page, PDF, CSV, pictures, share image
- setup: venues, host logins, upcoming nights and their hosts

base.py holds the blueprint, its login check and `my_league`; importing the view modules here is
what adds their routes to it."""

from blueprints.organiser import month, pack, setup
from blueprints.organiser.base import bp

__all__ = ["bp", "month", "pack", "setup"]
