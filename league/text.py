"""Text people type (member, venue and host names, addresses, contacts, reasons): its shown form,
and why it cannot be stored (R-MEM-1: one name, one member; no look-alikes)."""
import re
import unicodedata

# Whitespace people type (a tab, a line break in a reason): folded to one space, never refused.
_TYPED_SPACE = "\t\n\r"
# Characters of other categories that draw nothing: the Hangul fillers, the braille blank (a symbol
# that passes for a name while showing none), the Khmer inherent vowels and the combining grapheme
# joiner: as invisible as a zero-width space.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f")
# Control (Cc), invisible format (Cf: zero-width, bidi overrides, soft hyphen) and lone surrogate (Cs).
_HIDDEN = frozenset(("Cc", "Cf", "Cs"))


def _hidden(ch: str) -> bool:
    return ch not in _TYPED_SPACE and (unicodedata.category(ch) in _HIDDEN or ch in _BLANK_LETTERS)


def visible(text: str) -> str:
    """The text without the characters that draw nothing (controls, invisible format marks):
    what two spellings are compared on, so "Jack Burke" + a zero-width space is "Jack Burke"."""
    return "".join(ch for ch in text if not _hidden(ch))


def clean_text(text: str) -> str:
    """Typed text as stored and shown: compatibility forms folded (NFKC), runs of whitespace one
    space, ends trimmed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def hidden_problem(text: str, what: str = "the text") -> str | None:
    """Why text holds a character no stored text may: NUL and other control characters, zero-width
    characters, right-to-left overrides and other invisible marks, lone surrogates; None when it holds
    none (checked at once for the printable text most is)."""
    if text.isprintable() and not _BLANK_LETTERS.intersection(text):
        return None
    if "\x00" in text:
        return f"{what} contains a NUL character"
    hidden = [ch for ch in text if _hidden(ch)]
    if any(unicodedata.category(ch) == "Cc" for ch in hidden):
        return f"{what} contains control characters"
    if hidden:
        return f"{what} contains invisible characters (zero-width or right-to-left marks)"
    return None


def text_problem(text: str, max_length: int, what: str = "the text", *, required: bool = False) -> str | None:
    """Why typed text cannot be stored, or None: empty (when `required`), longer than `max_length`
    characters once cleaned (the column's size), or holding a character that draws nothing or
    changes how the rest draws (hidden_problem). The reason starts lower-case, naming `what`."""
    if problem := hidden_problem(text, what):
        return problem
    cleaned = clean_text(text)
    if required and not cleaned:
        return f"{what} is empty"
    if len(cleaned) > max_length:
        return f"{what} is longer than {max_length} characters"
    return None


def as_sentence(problem: str) -> str:
    """A text_problem reason as a sentence for the person who typed it."""
    return problem[:1].upper() + problem[1:] + "."
