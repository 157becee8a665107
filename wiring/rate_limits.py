"""The rate limits on what anyone can do without a login, keyed as each needs (the address, the link,
the member, the username), and a counter for limits that slow down instead of refusing.

Every limit is a setting (wiring/config.py) read when the request comes, so the tests can lower it.
The decorators are Flask-Limiter's, which count in Redis when there is one and in this process's
memory while it is down (RATELIMIT_IN_MEMORY_FALLBACK_ENABLED); `count_try` and `over` do the
same for the counts a view keeps itself."""
from __future__ import annotations

import hashlib

from flask import current_app, request
from flask_limiter.util import get_remote_address
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from wiring.extensions import limiter

# Where a view's own counts go while the limiter's storage cannot be reached.
_fallback = FixedWindowRateLimiter(MemoryStorage())


def setting(name: str):
    """A limit read from the settings when the request comes (Flask-Limiter takes a callable)."""
    return lambda: current_app.config[name]


def hashed(text: str) -> str:
    """A secret (a link's code) as a limit's key: hashed, so the limiter's storage never holds it."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def address() -> str:
    """The client's address (after ProxyFix, behind a proxy PROXY_HOPS trusts)."""
    return get_remote_address() or "unknown"


def count_try(limit_name: str, *keys: str) -> bool:
    """Count one try against the limit `limit_name` for `keys`; False once the limit was already used up."""
    if not limiter.enabled:
        return True
    item = parse(current_app.config[limit_name])
    try:
        return limiter.limiter.hit(item, *keys)
    except Exception:  # the limiter's Redis is down: count here, as its own limits do
        return _fallback.hit(item, *keys)


def over(limit_name: str, *keys: str) -> bool:
    """Whether `keys` have used up the limit `limit_name` (nothing counted)."""
    if not limiter.enabled:
        return False
    item = parse(current_app.config[limit_name])
    try:
        return not limiter.limiter.test(item, *keys)
    except Exception:
        return not _fallback.test(item, *keys)


def posted_value(name: str) -> str:
    """A posted field for a key, cut short (the body limit keeps the form small already)."""
    return request.form.get(name, "").strip().casefold()[:80]
