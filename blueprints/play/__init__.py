"""The player's blueprint: pages anyone can open, no login, and a player's own pages,
found by the member cookie. One blueprint, so every URL and `url_for("play.…")` is
the same whichever module holds the view:

- night:   tonight's game on a player's phone: the event's clock, their entry, the big screen,
           check-in, the deal ballot, pre-registration
- leagues: the home page and each league's pages: its home, month and season standings with a name
           search, qualifiers, each night's results, coming nights
- venues:  a venue's permanent link (its poster's QR): tonight's check-in there, or its coming nights
- shell:   what makes them an installable app: the manifest, the service worker at the site root and
           the offline page
- card:    the player's own pages: /me, the member card, moving the card to a new phone
- push:    the phone's Web Push subscription ("Tell me when I move")
- too_many: their answer to a rate limit

base.py holds the blueprint and the helpers more than one of them uses; importing the view
modules here is what adds their routes to it."""

from blueprints.play import card, leagues, night, push, shell, too_many, venues
from blueprints.play.base import bp

__all__ = ["bp", "card", "leagues", "night", "push", "shell", "too_many", "venues"]
