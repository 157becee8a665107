"""Logins: what makes a username one name whatever its case, and a password strong enough to guard a
league's nights (R-MEM-2: only the league's hosts and organisers make its rulings, so a login must be
theirs alone)."""
import re

USERNAME_MIN, USERNAME_MAX = 3, 40
PASSWORD_MIN = 8
PASSWORD_MAX = 200  # a hash of a longer one costs the server more than it guards
_USERNAME = re.compile(r"[A-Za-z0-9._-]+")
# The passwords tried first by anyone guessing (the top of the leaked lists) and the app's own words.
COMMON_PASSWORDS = frozenset((
    "password", "password1", "password123", "12345678", "123456789", "1234567890", "qwertyuiop", "qwerty123",
    "iloveyou", "sunshine", "football", "baseball", "letmein1", "welcome1", "11111111", "00000000", "abcdefgh",
    "abcd1234", "passw0rd", "trustno1", "shuffleup", "shuffleup1", "poker123", "pokerpoker", "texasholdem",
    "organiser", "organizer", "operator",
))


def username_key(username: str) -> str:
    """R-MEM-2: the one form of a username that logins are unique on, whatever its case: `Hana`,
    `hana` and `HANA` are one name (casefold, so `ß` and `SS` are one too)."""
    return username.strip().casefold()


def username_problem(username: str) -> str | None:
    """R-MEM-2: why a new username cannot be used, or None: 3 to 40 letters, digits, dots, dashes and
    underscores (what a phone's keyboard types without a second thought, and never a look-alike)."""
    name = username.strip()
    if not name:
        return "Choose a username."
    if not _USERNAME.fullmatch(name) or not name.isascii():
        return "A username is letters, digits, dots, dashes and underscores only."
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        return f"A username is {USERNAME_MIN} to {USERNAME_MAX} characters."
    return None


def password_problem(password: str, again: str, username: str = "") -> str | None:
    """R-MEM-2: why a new password cannot be used, or None: at least 8 characters and at most 200, the
    same typed twice, not one character repeated, not the username, and not one of the first
    passwords anyone guesses."""
    if len(password) < PASSWORD_MIN:
        return f"A password needs at least {PASSWORD_MIN} characters."
    if len(password) > PASSWORD_MAX:
        return f"A password is at most {PASSWORD_MAX} characters."
    if password != again:
        return "The two passwords are not the same: type it again in both."
    folded = password.casefold()
    if len(set(folded)) < 3:
        return "That password is too easy to guess: use more different characters."
    if username and username_key(username) in folded:
        return "A password must not contain the username."
    if folded in COMMON_PASSWORDS:
        return "That password is one of the first anyone guesses: choose another."
    return None
