"""What a player's phone is told while its page is closed (Web Push), and which subscriptions are taken.

Pure rules: which push-service addresses the server will ever post to (a subscription's endpoint is an
address the phone supplies, so only the browsers' own push services are allowed: anything else would
let anyone make the server post where they like), whether a subscription's keys can be encrypted to
(RFC 8291: a P-256 public key and a 16-byte secret), and the words of each message.
"""
from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

# The browsers' push services, over https: Chrome, Edge and Android (FCM), Firefox (Mozilla's autopush),
# Edge's older Windows service, and Safari on macOS and iPhone (Apple's).
DEFAULT_PUSH_SERVICES = (
    "https://fcm.googleapis.com",
    "https://android.googleapis.com",
    "https://updates.push.services.mozilla.com",
    "https://*.notify.windows.com",
    "https://web.push.apple.com",
    "https://*.push.apple.com",
)
MAX_ENDPOINT_LENGTH = 1024  # the services' endpoints are a few hundred characters
AUTH_BYTES = 16  # RFC 8291: the subscription's authentication secret
P256_POINT_BYTES = 65  # an uncompressed P-256 point: 0x04, x, y


def allowed_services(setting: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The PUSH_SERVICES setting as origins ("https://host[:port]", a leading "*." for any subdomain):
    a comma-separated string (from the environment) or a list; empty or unset gives the browsers' own."""
    if not setting:
        return DEFAULT_PUSH_SERVICES
    items = setting.split(",") if isinstance(setting, str) else list(setting)
    return tuple(item.strip().rstrip("/").lower() for item in items if item.strip())


def _origin(scheme: str, host: str, port: int | None) -> str:
    default = {"https": 443, "http": 80}.get(scheme)
    return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"


def endpoint_problem(endpoint: object, services: tuple[str, ...]) -> str | None:
    """R-MEM-1 (a phone acts only for its own member, and never for the server): why the server will not
    post to this endpoint, or None. Only an https (or a listed http) URL whose origin is one of the
    allowed push services, with no user name or password in it."""
    if not isinstance(endpoint, str) or not endpoint:
        return "The subscription has no endpoint."
    if len(endpoint) > MAX_ENDPOINT_LENGTH:
        return "The subscription's endpoint is too long."
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return "The subscription's endpoint is not a web address."
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.username or parts.password:
        return "The subscription's endpoint is not a web address."
    origin = _origin(parts.scheme, parts.hostname.lower(), port)
    if not any(_matches(origin, service) for service in services):
        return "That push service is not one this server sends to."
    return None


def _matches(origin: str, service: str) -> bool:
    """An origin against an allowed one; "https://*.notify.windows.com" takes any subdomain (never the
    bare domain, never another scheme or port)."""
    scheme, _, host = service.partition("://")
    if not host.startswith("*."):
        return origin == service
    prefix, _, rest = origin.partition("://")
    return prefix == scheme and rest.endswith(host[1:]) and len(rest) > len(host) - 1 and "*" not in rest


def _b64url(value: object) -> bytes | None:
    if not isinstance(value, str) or len(value) > 200:
        return None
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def keys_problem(p256dh: object, auth: object) -> str | None:
    """RFC 8291: why the message could not be encrypted to these keys, or None: `p256dh` must be a point
    on P-256 (uncompressed, base64url) and `auth` 16 bytes (base64url)."""
    point = _b64url(p256dh)
    if point is None or len(point) != P256_POINT_BYTES or point[0] != 4:
        return "The subscription's p256dh key is not a P-256 public key."
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        return "The subscription's p256dh key is not a point on P-256."
    secret = _b64url(auth)
    if secret is None or len(secret) != AUTH_BYTES:
        return "The subscription's auth secret must be 16 bytes."
    return None


@dataclass(frozen=True)
class Message:
    """One notification: its title, its body and the page a tap opens (the payload is these three)."""
    title: str
    body: str
    url: str

    def payload(self) -> dict[str, str]:
        """The JSON the phone decrypts: {"title", "body", "url"}."""
        return {"title": self.title, "body": self.body, "url": self.url}


def seat_words(table: int, seat: int) -> str:
    """A seat as the room says it: "Table 1, Seat 8"."""
    return f"Table {table}, Seat {seat}"


class Moved:
    """Why a player's seat changed (R-SEAT-2..4)."""
    BALANCING = "balancing"
    TABLE_BREAK = "table_break"
    FINAL_TABLE = "final_table"
    LATE_TABLE = "late_table"  # a late arrival opened a table and a draw filled it (R-LATE-2)


def seat_moved(why: str, table: int, seat: int, url: str, broken: int | None = None) -> Message:
    """R-SEAT-2 (balancing), R-SEAT-3 (a table broken), R-SEAT-4 (the final table), R-LATE-2: the
    player's new seat, named as the room says it."""
    where = seat_words(table, seat)
    if why == Moved.FINAL_TABLE:
        return Message("Final table", f"You made the final table: {where}.", url)
    if why == Moved.TABLE_BREAK:
        broke = f"Table {broken} is broken. " if broken is not None else ""
        return Message("Your seat moved", f"{broke}Your new seat: {where}.", url)
    return Message("Your seat moved", f"Please move to {where}.", url)


REGISTRATION_WARNING_MINUTES = 10  # "registration closes in 10 minutes"
_MINUTE_MS = 60_000


def registration_warning(closes_in_ms: int | None) -> tuple[int, int] | None:
    """R-LATE-3: when to tell the pre-registered not yet arrived that registration is closing, from how
    long until it closes (R-LATE-1): (in how many ms, the minutes the message names). Ten minutes
    before; already closer than that (the clock started late, or a level skipped): at once, naming the
    minutes left to the nearest; under a minute, or no moment known (None): not at all, too late to help."""
    if closes_in_ms is None or closes_in_ms < _MINUTE_MS:
        return None
    warning_ms = REGISTRATION_WARNING_MINUTES * _MINUTE_MS
    if closes_in_ms >= warning_ms:
        return closes_in_ms - warning_ms, REGISTRATION_WARNING_MINUTES
    return 0, (closes_in_ms + _MINUTE_MS // 2) // _MINUTE_MS


def newly_qualified(before: set[int], after: set[int]) -> set[int]:
    """R-QUAL-4: who a night's settling put into the month's Top-10 Shoot-out qualifiers: in after it,
    not before (those already in are not told again, nor those it pushed out)."""
    return after - before


def registration_closing(venue: str, minutes: int, url: str) -> Message:
    """R-LATE-3: a pre-registered player not yet checked in hears that registration closes soon."""
    unit = "minute" if minutes == 1 else "minutes"
    return Message("Registration closes soon",
                   f"Registration at {venue} closes in {minutes} {unit}: check in at the door to keep your place.",
                   url)


def penalty_over(url: str) -> Message:
    """R-PEN-2: the player's penalty is over; they may go back to their seat."""
    return Message("Penalty over", "Your penalty is over: you can go back to your seat.", url)


def ticket_won(event_label: str, url: str) -> Message:
    """R-QUAL-1/2: the player won a Monthly Final ticket at a night."""
    return Message("Monthly Final ticket", f"You won a Monthly Final ticket at {event_label}.", url)


def shootout_made(month_label: str, url: str) -> Message:
    """R-QUAL-4: the player is in the month's Top-10 Shoot-out."""
    return Message("Top-10 Shoot-out", f"You made the Top-10 Shoot-out for {month_label}.", url)


def results_posted(event_label: str, position: int | None, points: int, url: str) -> Message:
    """R-PTS: the night's results are posted; the player's own finish and points in the body."""
    finish = f"You finished {ordinal(position)} with {points} points." if position else "See how the night ended."
    return Message("Results are up", f"{event_label}: {finish}", url)


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st..."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
