"""Logins and their one-time links: the set-up link that makes this ShuffleUp's operator, new logins,
password links handed over to a host or an organiser, changing one's own password, suspending,
reinstating and removing a login. Asks league/logins.py whether a username or password will do; never
commits (the view or command does)."""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from sqlalchemy import update

from league.logins import password_problem, username_key, username_problem
from league.statuses import LinkPurpose, Role
from services import Refused, typed_text
from services.models import League, LoginLink, User, utcnow
from wiring.extensions import db

PASSWORD_LINK_LIFE = dt.timedelta(hours=24)
DEAD_LINK = ("This link has been used, has expired, was replaced or was tried wrongly too often: ask for a "
             "new one.")
DEAD_SETUP_LINK = ("This set-up link no longer works: it was used, tried wrongly too often, or a later start "
                   "of the server printed another.")
LINK_TRIES = 10  # failed tries a link takes before it dies (its form refused: a weak password, a taken name)


def link_hash(token: str) -> str:
    """The only form of a link's secret the database keeps. A plain SHA-256 is enough: the secret is 32
    random bytes (nobody guesses it from its hash), and needs no key, so a link printed by one process
    (`flask league setup-link`) opens in any other."""
    return hashlib.sha256(token.encode()).hexdigest()


def _new_link(purpose: LinkPurpose, user: User | None, issued_by: User | None,
              life: dt.timedelta | None) -> str:
    """A new link of `purpose` for `user`; every older unused one of the same kind dies (a link handed
    over twice works only the second time)."""
    now = utcnow()
    db.session.execute(update(LoginLink).where(
        LoginLink.purpose == purpose, LoginLink.used_at.is_(None),
        LoginLink.user_id.is_(None) if user is None else LoginLink.user_id == user.id).values(used_at=now))
    token = secrets.token_urlsafe(32)
    db.session.add(LoginLink(purpose=purpose, user_id=user.id if user else None, token_hash=link_hash(token),
                             expires_at=now + life if life else None,
                             issued_by=issued_by.id if issued_by else None))
    db.session.flush()
    return token


def live_link(token: str, purpose: LinkPurpose) -> LoginLink | None:
    """The link a secret opens, while it lives (not used, not expired, its login still there), else None."""
    if not token or len(token) > 64:
        return None
    link = db.session.scalar(db.select(LoginLink).where(
        LoginLink.token_hash == link_hash(token), LoginLink.purpose == purpose, LoginLink.used_at.is_(None)))
    if link is None or (link.expires_at is not None and link.expires_at <= utcnow()) or link.failed_tries >= LINK_TRIES:
        return None
    if purpose == LinkPurpose.PASSWORD and (link.user is None or link.user.removed_at is not None):
        return None
    if purpose == LinkPurpose.SETUP and has_operator():
        return None
    return link


# ---- The operator and the set-up link ----

def has_operator() -> bool:
    """Whether this ShuffleUp has its operator yet (until then, every start prints a set-up link)."""
    return db.session.scalar(db.select(User.id).where(User.role == Role.OPERATOR, User.removed_at.is_(None))
                             .limit(1)) is not None


def issue_setup_link() -> str | None:
    """The secret of a new set-up link while no operator exists (the older one dies), else None."""
    if has_operator():
        return None
    return _new_link(LinkPurpose.SETUP, None, None, None)


def setup_url(base: str, token: str) -> str:
    """The line a start prints: the set-up link on a line of its own."""
    return f"Set up this ShuffleUp: {base.rstrip('/')}/setup/{token}"


def count_failed_try(link_id: int) -> None:
    """One more failed try of a link's form, counted in the database itself (one UPDATE: two tries at
    once both count); at LINK_TRIES the link is dead (live_link)."""
    db.session.execute(update(LoginLink).where(LoginLink.id == link_id)
                       .values(failed_tries=LoginLink.failed_tries + 1))


def use_setup_link(link: LoginLink, username: str, password: str, again: str) -> User:
    """Make the operator with the set-up link, which then dies; Refused (nothing written) on a bad form."""
    operator = new_login(username, username, Role.OPERATOR, None, password=password, again=again)
    link.used_at = utcnow()
    return operator


# ---- New logins ----

def find_login(username: str) -> User | None:
    """The login a username names, whatever its case (a removed login's name names no one)."""
    return db.session.scalar(db.select(User).where(User.username_key == username_key(username)))


def new_login(username: str, display_name: str, role: Role, league: League | None, *,
              password: str | None = None, again: str | None = None) -> User:
    """A new login; without a password it has none that works until its password link is used.
    Refused: a username that cannot be used or is taken (any case), a weak or mismatched password."""
    if problem := username_problem(username):
        raise Refused(problem)
    if find_login(username) is not None:
        raise Refused(f"The username {username.strip()} is taken (in any case): choose another.")
    name = typed_text(display_name, 80, "the name shown", required=True)
    user = User(username=username.strip(), display_name=name, role=role, league_id=league.id if league else None)
    if password is None:
        user.set_password(secrets.token_urlsafe(32))  # known to no one: the password link sets the real one
    else:
        _set_password(user, password, password if again is None else again)
    db.session.add(user)
    db.session.flush()
    return user


def _set_password(user: User, password: str, again: str) -> None:
    if problem := password_problem(password, again, user.username):
        raise Refused(problem)
    user.set_password(password)


# ---- Passwords ----

def issue_password_link(user: User, issued_by: User | None) -> str:
    """The secret of a one-time link (24 hours) that sets `user`'s password, to hand over; the older dies."""
    if user.removed_at is not None:
        raise Refused(f"{user.display_name}'s login is removed.")
    return _new_link(LinkPurpose.PASSWORD, user, issued_by, PASSWORD_LINK_LIFE)


def use_password_link(link: LoginLink, password: str, again: str) -> User:
    """Set the password the link is for, which then dies (every other session of the login signed out)."""
    _set_password(link.user, password, again)
    link.used_at = utcnow()
    return link.user


def change_password(user: User, current: str, password: str, again: str) -> None:
    """Everyone's own new password: the current one needed; every other session signed out."""
    if not user.check_password(current):
        raise Refused("That is not your current password.")
    if password == current:
        raise Refused("The new password is the one you have: choose another.")
    _set_password(user, password, again)


# ---- Suspend, reinstate, remove ----

def suspend(user: User) -> None:
    """Sign the login out everywhere at once and let it in nowhere until reinstated."""
    if user.suspended_at is not None:
        raise Refused(f"{user.display_name} is suspended already.")
    user.suspended_at = utcnow()
    user.rotate_session_token()


def reinstate(user: User) -> None:
    """Let a suspended login in again (with the password it had)."""
    if user.suspended_at is None:
        raise Refused(f"{user.display_name} is not suspended.")
    user.suspended_at = None


def remove(user: User) -> None:
    """Sign the login out everywhere and for good; its username is free again. The row stays, so the
    nights it ran and the rulings it made still say who."""
    user.removed_at = utcnow()
    user.username_key = None
    user.rotate_session_token()
    db.session.execute(update(LoginLink).where(LoginLink.user_id == user.id, LoginLink.used_at.is_(None))
                       .values(used_at=user.removed_at))


def logins_of(league: League, *roles: Role) -> list[User]:
    """The league's logins of those roles (every role when none is named) that are not removed, by name."""
    query = db.select(User).where(User.league_id == league.id, User.removed_at.is_(None))
    if roles:
        query = query.where(User.role.in_(roles))
    return db.session.scalars(query.order_by(User.display_name, User.id)).all()


def login_of(league: League | None, user_id: int, *roles: Role) -> User | None:
    """A login of the league (None: of no league, the operator's) with one of `roles`, not removed."""
    user = db.session.get(User, user_id)
    if user is None or user.league_id != (league.id if league else None) or user.role not in roles \
            or user.removed_at is not None:
        return None
    return user


# What the organiser (for hosts) and the operator (for organisers) may do to a login, by the word in its URL.
CHANGES = ("password-link", "suspend", "reinstate", "remove")


def change_login(user: User, change: str, by: User) -> tuple[str, str | None]:
    """Do one of CHANGES to a login: what was done, as a sentence, and the password link's secret (to
    hand over) when one was made. Refused (nothing written) when the change makes no sense now."""
    if change == "password-link":
        return (f"Hand this link to {user.display_name}: it sets their password once, within 24 hours.",
                issue_password_link(user, by))
    {"suspend": suspend, "reinstate": reinstate, "remove": remove}[change](user)
    done = {"suspend": "is suspended: logged out everywhere, and no login until reinstated.",
            "reinstate": "is reinstated: they log in with the password they had.",
            "remove": "is removed: logged out everywhere, for good; the nights they ran keep their name."}
    return f"{user.display_name} {done[change]}", None
