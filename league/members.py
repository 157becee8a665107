"""Members (R-MEM): names as the league writes them, and how two spellings are matched."""
import unicodedata
from difflib import SequenceMatcher
from functools import lru_cache

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


def id_refusal(name: str, under_21: bool, id_checked: bool) -> str | None:
    """R-MEM-1: why the host may not seat a member yet (photo ID is checked for anyone under 21, and
    the host records it), or None."""
    if under_21 and not id_checked:
        return f"{name} is under 21: see their photo ID first, then tap “ID checked”."
    return None


def search_key(text: str) -> str:
    """R-MEM-1: a name as a search matches it: case, spacing, accents and apostrophes left out ("Zoë"
    finds "zoe", "JOSÉ" finds "Jose", "obrien" finds "O'Brien")."""
    folded = unicodedata.normalize("NFKD", name_key(text))
    return " ".join("".join(c for c in folded if not unicodedata.combining(c) and c not in "'’`").split())


def _split(text: str) -> tuple[str, ...]:
    return tuple("".join(c if c.isalnum() else " " for c in search_key(text)).split())


@lru_cache(maxsize=256)  # what the host types, matched against every name
def name_words(text: str) -> tuple[str, ...]:
    """R-MEM-1: the words of a name as a search matches them (search_key's form; hyphens, dots and
    other marks between letters split words: "Smith-Jones" is "smith", "jones")."""
    return _split(text)


def _is_subsequence(wanted: str, letters: str) -> bool:
    rest = iter(letters)
    return all(ch in rest for ch in wanted)


def _starts_in_order(tokens: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Each token starts a later word than the one before it."""
    rest = iter(words)
    return all(any(word.startswith(token) for word in rest) for token in tokens)


def _each_word_its_own(tokens: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Every token starts a word of its own (two tokens never share one word), in any order: a
    matching of tokens to words, found by augmenting paths (never tries every order)."""
    owner: dict[int, int] = {}  # word index -> token index

    def place(token: int, seen: set[int]) -> bool:
        for i, word in enumerate(words):
            if i not in seen and word.startswith(tokens[token]):
                seen.add(i)
                if i not in owner or place(owner[i], seen):
                    owner[i] = token
                    return True
        return False

    return all(place(token, set()) for token in range(len(tokens)))


@lru_cache(maxsize=8192)  # a league's names, matched again at every keystroke of the walk-in search
def _indexed(name: str) -> tuple[tuple[str, ...], str, str]:
    """A name's words, the words as one string with a space before each, and its initials."""
    words = _split(name)
    return words, "".join(" " + w for w in words), "".join(w[0] for w in words)


def name_match(query: str, name: str) -> int | None:
    """R-MEM-1: how well what the host typed finds a member's name at the door, or None when it does
    not: 0 the whole name; 1 every typed word starts a word of the name, in the name's order ("Nad Ga"
    finds Nadia Gallagher); 2 the same in any order ("ga nad" finds her too, after Gary Nadler); 3 the
    initials ("ng", "jd" Jack Doyle; in order, middle names may be skipped); 4 the typed text inside
    the name ("llag"). Case, spacing, accents and apostrophes are left out (search_key). Lower is
    better; nothing typed finds nothing."""
    typed = name_words(query)
    words, spaced, initials = _indexed(name)
    if not typed or not words:
        return None
    # Each typed word starting some word of the name (a search in C over one string) comes first:
    # most names fail it at once.
    if all(" " + t in spaced for t in typed):
        if typed == words:
            return 0
        if _starts_in_order(typed, words):
            return 1
        if len(typed) <= len(words) and _each_word_its_own(typed, words):
            return 2
    if len(typed) == 1 and len(typed[0]) > 1 and _is_subsequence(typed[0], initials):
        return 3
    if " ".join(typed) in spaced:
        return 4
    return None


# R-MEM-1: how alike two names must be (difflib's ratio of their search keys) to be offered as one
# person's two records: "Dave OBrien" and "Dave O'Brian" are; "Archie Smith" and "Archie Jones" are not.
LIKELY_SAME = 0.8


def likely_same(name: str, other: str) -> bool:
    """R-MEM-1: whether two member names may be one person typed twice, for the merge suggestions: the
    same once case, accents and apostrophes are left out, or the same words in another order, or a
    name of two or more words that starts the other ("Sam Stone", "Sam Stone Jr"), or a typo's
    distance apart (LIKELY_SAME). A first name alone, shared by every Archie, is not enough."""
    a, b = list(name_words(name)), list(name_words(other))
    if not a or not b:
        return False
    if sorted(a) == sorted(b):
        return True
    short, long = sorted((a, b), key=len)
    if 2 <= len(short) < len(long) and all(long[i].startswith(word) for i, word in enumerate(short)):
        return True
    return SequenceMatcher(None, " ".join(a), " ".join(b)).ratio() >= LIKELY_SAME
