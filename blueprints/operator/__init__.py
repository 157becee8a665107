"""The operator's blueprint: the person who runs this ShuffleUp starts its leagues, gives each league's
organisers their logins (by a one-time password link), suspends, reinstates or removes them, and removes
a league whole (the demo, once a real league begins).

base.py holds the blueprint and its login check; importing the view module here adds its routes."""

from blueprints.operator import leagues
from blueprints.operator.base import bp

__all__ = ["bp", "leagues"]
