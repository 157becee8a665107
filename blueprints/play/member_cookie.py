"""Players act only for themselves: a long-lived, signed member cookie on their phone (no password).

The cookie holds the member's id and their cookie secret; giving a member a new secret signs
every phone they used out (how a lost phone is cut off)."""
from __future__ import annotations

from flask import current_app, request
from itsdangerous import BadSignature, URLSafeSerializer

from services.models import Member
from wiring.extensions import db

COOKIE = "shuffleup_member"


CACHE = "shuffleup.member"


MAX_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt="member-cookie")


def current_member() -> Member | None:
    """The member this phone belongs to, or None (no cookie, a forged one, or a revoked secret)."""
    if CACHE not in request.environ:  # once per request (not g: an app context can outlive a request)
        found = None
        raw = request.cookies.get(COOKIE)
        if raw:
            try:
                member_id, secret = _signer().loads(raw)
                member = db.session.get(Member, int(member_id))
            except (BadSignature, ValueError, TypeError):
                member = None
            if member is not None and member.cookie_secret == secret:
                found = member
        request.environ[CACHE] = found
    return request.environ[CACHE]


def remember(response, member: Member):
    """Give this phone the member's cookie (HttpOnly: no script on the page can read it)."""
    response.set_cookie(COOKIE, _signer().dumps([member.id, member.cookie_secret]), max_age=MAX_AGE,
                        httponly=True, samesite="Lax", secure=request.is_secure)
    request.environ[CACHE] = member
    return response

