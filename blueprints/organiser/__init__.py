"""The organiser's blueprint: the league's tables and its set-up. One blueprint, so every URL and
`url_for("organiser.…")` is the same whichever module holds the view:

- month: a month's standings, tickets, Shoot-out and High-roller Final; the season table
- setup: venues, host logins, upcoming nights and their hosts
- data: results from a CSV file (preview, confirm), the whole league exported and imported

base.py holds the blueprint, its login check and `my_league`; importing the view modules here is
what adds their routes to it."""

from blueprints.organiser import data, month, setup
from blueprints.organiser.base import bp

__all__ = ["bp", "data", "month", "setup"]
