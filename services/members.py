"""Members in the database (R-MEM-1): finding one by name, joining, photo ID checked."""
from __future__ import annotations

from league.members import ADULTS_ONLY, clean_name, name_key, name_problem
from league.text import as_sentence, clean_text, text_problem
from services import Refused
from services.journal import Journal
from services.models import Member, utcnow
from wiring.extensions import db

MAX_CONTACT_LENGTH = 120  # Member.contact is String(120)


def find_member(league_id: int, name: str) -> Member | None:
    """The member of that name (any spacing or case)."""
    return db.session.scalar(db.select(Member).where(Member.league_id == league_id,
                                                     Member.name_key == name_key(name)))


def name_taken(name: str) -> str:
    """R-MEM-1: the refusal of a name another member has (joining with it would hand this phone
    their card)."""
    return (f"A member called {clean_name(name)} already exists. If that's you, ask the host "
            "to check you in, or open your member card on your own phone.")


def join(league_id: int, name: str, adult: bool, under_21: bool, contact: str = "") -> Member:
    """R-MEM-1: a new member: free, 18 or over (they confirm it), photo ID to be checked if under 21.

    An existing name is refused: taking it would hand this phone someone else's card.
    """
    problem = name_problem(name) or text_problem(contact, MAX_CONTACT_LENGTH, "the contact")
    if problem:
        raise Refused(as_sentence(problem))
    if not adult:
        raise Refused(ADULTS_ONLY)
    if find_member(league_id, name):
        raise Refused(name_taken(name))
    member = Member.named(league_id, name)
    member.contact = clean_text(contact) or None
    member.under_21 = under_21
    member.adult_confirmed_at = utcnow()
    db.session.add(member)
    db.session.flush()
    return member


def id_checked(member: Member, journal: Journal) -> None:
    """R-MEM-1: the host saw photo ID for a member under 21."""
    journal.touch(member).id_checked_at = utcnow()

