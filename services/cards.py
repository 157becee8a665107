"""Moving a member's card to a new phone (R-MEM-1): a one-time code, ten digits, valid ten minutes,
used once, stored only as a keyed SHA-256 hash; signing every other phone out. Callers commit.
Ten digits, because a code must not be guessable in its lifetime at the claim form's limits, from any
number of addresses (docs/reliability.md, "Codes and links"); digits, because a phone's number pad
types them."""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from flask import current_app
from sqlalchemy import delete, update

from league.statuses import EventStatus
from services.models import Entry, Event, League, Member, MemberCode, User, utcnow
from wiring.extensions import db

CODE_DIGITS = 10


CODE_LIFETIME = dt.timedelta(minutes=10)


CODE_KEEP = dt.timedelta(days=1)  # used and expired codes are swept after a day


def _code_hash(code: str) -> str:
    """The stored form of a code: HMAC-SHA-256 under the app's secret key, so a copy of the
    database alone cannot be searched for the ten billion possible codes."""
    return hmac.new(current_app.secret_key.encode(), b"member-code:" + code.encode(), hashlib.sha256).hexdigest()


def clean_code(text: str | None) -> str | None:
    """What a person typed ("123 456 7890", "123-456-7890") as the code's digits, or None if it can't be one."""
    digits = "".join(ch for ch in (text or "") if ch.isdigit())
    other = "".join(ch for ch in (text or "") if not ch.isdigit() and not ch.isspace() and ch != "-")
    return digits if len(digits) == CODE_DIGITS and not other else None


def spaced(code: str) -> str:
    """R-MEM-1: a code as the pages show it and a person reads it out: "123 456 7890"."""
    return f"{code[:3]} {code[3:6]} {code[6:]}"


def move_refusal(user: User, member: Member) -> str | None:
    """R-MEM-1: who may give a member a code to move their card to a new phone: an organiser of the
    member's league, or the host of a night tonight the member is in (checked in, playing or
    pre-registered), so that no other host of the league can take a member's card. None if `user`
    may; otherwise the reason, for the host."""
    if user.league_id != member.league_id:
        return "That member is not in your league."
    if user.is_organiser:
        return None
    today = db.session.get(League, member.league_id).today()
    tonight = db.session.scalar(db.select(Event.id).join(Entry, Entry.event_id == Event.id).where(
        Event.host_id == user.id, Entry.member_id == member.id,
        ((Event.status == EventStatus.RUNNING) & (Event.date >= today - dt.timedelta(days=1)))
        | ((Event.status == EventStatus.SCHEDULED) & (Event.date == today))).limit(1))
    if tonight is not None:
        return None
    return (f"Only tonight's host of a night {member.name} is in, or an organiser, can move their card "
            "to a new phone: check them in to your night first, or ask an organiser.")


def issue_code(member: Member, issued_by: int | None = None) -> tuple[str, dt.datetime]:
    """A new one-time code for the member (their own phone asked, or host `issued_by` did) and when
    it expires (UTC). Only one code per member works at a time: a new one replaces the last."""
    now = utcnow()
    db.session.execute(delete(MemberCode).where(
        (MemberCode.expires_at < now - CODE_KEEP)
        | ((MemberCode.member_id == member.id) & MemberCode.used_at.is_(None))))
    while True:  # no two live codes alike, whoever they belong to
        code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
        digest = _code_hash(code)
        if db.session.scalar(db.select(MemberCode.id).where(
                MemberCode.code_hash == digest, MemberCode.used_at.is_(None), MemberCode.expires_at > now)) is None:
            break
    expires = now + CODE_LIFETIME
    db.session.add(MemberCode(member_id=member.id, code_hash=digest, expires_at=expires, issued_by=issued_by))
    db.session.flush()
    return code, expires


def claim_code(text: str | None) -> Member | None:
    """The member whose live code this is, marking it used; None for a wrong, used or expired code
    (and then nothing changes). Two phones claiming one code at once: exactly one gets it."""
    code = clean_code(text)
    if code is None:
        return None
    now = utcnow()
    found = db.session.scalar(db.select(MemberCode).where(
        MemberCode.code_hash == _code_hash(code), MemberCode.used_at.is_(None), MemberCode.expires_at > now))
    if found is None:
        return None
    taken = db.session.execute(update(MemberCode).where(
        MemberCode.id == found.id, MemberCode.used_at.is_(None)).values(used_at=now)
        .execution_options(synchronize_session=False))
    if taken.rowcount != 1:
        return None
    return db.session.get(Member, found.member_id)


def sign_out_other_phones(member: Member) -> None:
    """A new cookie secret: every phone holding the old cookie forgets the member (a lost phone);
    the caller gives this phone the new cookie with remember()."""
    member.cookie_secret = secrets.token_urlsafe(24)



def host_move(member: Member) -> tuple[str, dt.datetime] | None:
    """R-MEM-1: the member's card was moved to a new phone with a code a host gave out, in the last
    day (used codes are kept that long): who gave it (their display name) and when it was claimed
    (UTC), so the member's phone can say so. None if no host moved it."""
    found = db.session.execute(db.select(User.display_name, MemberCode.used_at)
                               .join(User, User.id == MemberCode.issued_by)
                               .where(MemberCode.member_id == member.id, MemberCode.used_at.is_not(None),
                                      MemberCode.used_at > utcnow() - CODE_KEEP)
                               .order_by(MemberCode.used_at.desc()).limit(1)).first()
    return (found[0], found[1]) if found else None
