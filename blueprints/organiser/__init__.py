"""The organiser's blueprint: the league's tables and its set-up. One blueprint, so every URL and
`url_for("organiser.…")` is the same whichever module holds the view:

- month: the month-end pack on screen; the season's Top 50, its months and Top-50 pool
- pack: the pack to publish: print page, PDF, CSV, pictures, share image
- setup: venues (add, rename, retire), host logins and their venues, upcoming nights and their hosts
- posters: a venue's poster (its permanent check-in QR), printing it, replacing a lost poster's link
- league_settings: the league's settings with THPA's defaults, and the record of their changes
- members: search, a member's record, edits, bans and merges
- data: results from a CSV file (preview, confirm), the whole league exported and imported

base.py holds the blueprint, its login check and `my_league`; importing the view modules here is
what adds their routes to it."""

from blueprints.organiser import data, league_settings, members, month, pack, posters, setup
from blueprints.organiser.base import bp

__all__ = ["bp", "data", "league_settings", "members", "month", "pack", "posters", "setup"]
