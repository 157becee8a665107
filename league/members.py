"""Members (R-MEM): names as the league writes them, and how two spellings are matched."""
import re
import unicodedata

MAX_NAME_LENGTH = 80


def name_key(name: str) -> str:
    """R-MEM-1: the form used to match one member's name across nights ("dave  o'brien" = "Dave O'Brien")."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip().casefold()


def clean_name(name: str) -> str:
    """R-MEM-1: a member's name as shown: inner runs of spaces folded, ends trimmed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip()


def name_problem(name: str) -> str | None:
    """R-MEM-1: why a name cannot be a member's name (empty, too long, control characters), or None."""
    cleaned = clean_name(name)
    if not cleaned:
        return "the player's name is empty"
    if len(cleaned) > MAX_NAME_LENGTH:
        return f"the player's name is longer than {MAX_NAME_LENGTH} characters"
    if any(unicodedata.category(ch) == "Cc" for ch in cleaned):
        return "the player's name contains control characters"
    return None


# R-MEM-1: said wherever someone joins or confirms their age.
ADULTS_ONLY = "Members must be 18 or over: tick the box to confirm you are."
