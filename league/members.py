"""Members (R-MEM): names as the league writes them, and how two spellings are matched."""
import unicodedata

from league.text import clean_text, text_problem, visible

MAX_NAME_LENGTH = 80  # Member.name and Member.name_key are String(80)


def name_key(name: str) -> str:
    """R-MEM-1: the form used to match one member's name across nights ("dave  o'brien" = "Dave O'Brien");
    characters that draw nothing are left out, so a zero-width space makes no second "Jack Burke"."""
    return clean_text(visible(name)).casefold()


def clean_name(name: str) -> str:
    """R-MEM-1: a member's name as shown: inner runs of spaces folded, ends trimmed."""
    return clean_text(name)


def name_problem(name: str) -> str | None:
    """R-MEM-1: why a name cannot be a member's name (empty, too long, control or invisible
    characters such as a zero-width space or a right-to-left override), or None."""
    problem = text_problem(name, MAX_NAME_LENGTH, "the player's name", required=True)
    if problem is None and len(name_key(name)) > MAX_NAME_LENGTH:  # casefold can lengthen ("ß" → "ss")
        problem = f"the player's name is longer than {MAX_NAME_LENGTH} characters"
    return problem


# R-MEM-1: said wherever someone joins or confirms their age.
ADULTS_ONLY = "Members must be 18 or over: tick the box to confirm you are."


def search_key(text: str) -> str:
    """R-MEM-1: a name as a search matches it: case, spacing, accents and apostrophes left out ("Zoë"
    finds "zoe", "JOSÉ" finds "Jose", "obrien" finds "O'Brien")."""
    folded = unicodedata.normalize("NFKD", name_key(text))
    return " ".join("".join(c for c in folded if not unicodedata.combining(c) and c not in "'’`").split())
