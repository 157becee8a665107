"""The organiser's members (R-MEM-1, R-MEM-2): search, a member's record, edits, bans with their reason,
merging two records of one person (undoable), and deleting a record with no history."""

from flask import abort, flash, redirect, request, url_for
from flask_login import current_user

from blueprints import page_or_fragment
from blueprints.forms import row_id
from blueprints.organiser.base import bp, my_league
from league.members import likely_same, search_key
from services import Refused, members
from services.models import League, Member, MemberMerge
from wiring.extensions import db


def _member_or_404(league: League, member_id: int) -> Member:
    member = db.session.get(Member, member_id)
    if member is None or member.league_id != league.id:
        abort(404)
    return member


@bp.route("/<slug>/members")
def members_list(slug: str):
    """R-MEM-1: find a member by any part of their name (case and accents left out)."""
    league = my_league(slug)
    q = request.args.get("q", "")[:80]
    found = members.search(league.id, q)
    return page_or_fragment("organiser/members.html", "organiser/_member_list.html", league=league, q=q,
                            found=found)


def _duplicates(member: Member) -> list[Member]:
    """R-MEM-1: records that may be the same person: found by a word of this one's name (accents left
    out), then kept only when the whole names are alike (league.members.likely_same), not every
    member who shares a first name."""
    words = [w for w in search_key(member.name).split() if len(w) > 1]
    seen: dict[int, Member] = {}
    for word in words[:4]:
        for other in members.search(member.league_id, word[:4], limit=50):
            if other.id != member.id and likely_same(member.name, other.name):
                seen.setdefault(other.id, other)
    return list(seen.values())[:20]


def _member_page(league: League, member: Member, status: int = 200, *, problem: str | None = None,
                 saved: str | None = None, typed: dict | None = None):
    return page_or_fragment("organiser/member.html", "organiser/_member.html", status, league=league,
                            rec=members.record(member), duplicates=_duplicates(member), problem=problem,
                            saved=saved, typed=typed or {},
                            kept=db.session.get(Member, member.merged_into_id) if member.merged_into_id else None)


@bp.route("/<slug>/members/<int:member_id>")
def member(slug: str, member_id: int):
    """R-MEM-1, R-MEM-2: a member's nights, points, tickets, rulings and merges."""
    league = my_league(slug)
    return _member_page(league, _member_or_404(league, member_id))


def _refused(league: League, member_id: int, refused: Refused, status: int = 422, typed: dict | None = None):
    db.session.rollback()
    return _member_page(league, _member_or_404(league, member_id), status, problem=str(refused), typed=typed)


@bp.route("/<slug>/members/<int:member_id>", methods=["POST"])
def edit_member(slug: str, member_id: int):
    """R-MEM-1: correct a member's name and contact, the 18-or-over and photo-ID flags."""
    league = my_league(slug)
    member = _member_or_404(league, member_id)
    form = request.form
    typed = {"name": form.get("name", "")[:400], "contact": form.get("contact", "")[:400]}
    try:
        members.edit(member, name=typed["name"], contact=typed["contact"], under_21=bool(form.get("under_21")),
                     adult=bool(form.get("adult")), id_checked=bool(form.get("id_checked")))
    except Refused as refused:
        return _refused(league, member_id, refused, typed=typed)
    db.session.commit()
    return _member_page(league, member, saved="Saved.")


@bp.route("/<slug>/members/<int:member_id>/ban", methods=["POST"])
def ban_member(slug: str, member_id: int):
    """R-MEM-2: ban a member with the reason (recorded as a ruling): no check-in, no pre-registration."""
    return _ruling(slug, member_id, members.ban, "Banned.")


@bp.route("/<slug>/members/<int:member_id>/unban", methods=["POST"])
def unban_member(slug: str, member_id: int):
    """R-MEM-2: lift a ban with the reason (recorded as a ruling)."""
    return _ruling(slug, member_id, members.unban, "Ban lifted.")


def _ruling(slug: str, member_id: int, rule, saved: str):
    """A ban or its lifting: the reason given, the ruling recorded, the member's page again."""
    league = my_league(slug)
    try:
        rule(_member_or_404(league, member_id), request.form.get("reason", "")[:2000], current_user.id)
    except Refused as refused:
        return _refused(league, member_id, refused)
    db.session.commit()
    return _member_page(league, _member_or_404(league, member_id), saved=saved)


@bp.route("/<slug>/members/<int:member_id>/merge", methods=["POST"])
def merge_member(slug: str, member_id: int):
    """R-MEM-1: merge another record of the same person into this one, keeping all its history;
    refused when both played one night (one person twice in one night)."""
    league = my_league(slug)
    kept = _member_or_404(league, member_id)
    other_id = row_id(request.form.get("other"))
    other = db.session.get(Member, other_id) if other_id else None
    if other is None and request.form.get("other_name", "").strip():
        other = members.find_member(league.id, request.form.get("other_name", "")[:200])
    if other is None or other.league_id != league.id:
        return _refused(league, member_id, Refused("Pick the other record to merge into this one."))
    try:
        members.merge(kept, other, current_user.id)
    except Refused as refused:
        return _refused(league, member_id, refused, 409)
    db.session.commit()
    return _member_page(league, kept, saved=f"Merged {other.name} into {kept.name}.")


@bp.route("/<slug>/members/<int:member_id>/delete", methods=["POST"])
def delete_member(slug: str, member_id: int):
    """R-MEM-1: delete a member record that holds no history (a name a flood of scans or a typo made),
    once the organiser ticked "Yes, delete"; refused (409) with what it holds otherwise, nothing changed."""
    league = my_league(slug)
    member = _member_or_404(league, member_id)
    name = member.name
    if request.form.get("sure") != "yes":
        return _refused(league, member_id, Refused(f"Tick “Yes, delete {name}'s record” to delete it."))
    try:
        members.delete(member)
    except Refused as refused:
        return _refused(league, member_id, refused, 409)
    db.session.commit()
    flash(f"Deleted {name}'s record.")
    return redirect(url_for("organiser.members_list", slug=league.slug), 303)


@bp.route("/<slug>/merges/<int:merge_id>/undo", methods=["POST"])
def undo_merge(slug: str, merge_id: int):
    """Take a merge back: each record has its own history again."""
    league = my_league(slug)
    merge_row = db.session.get(MemberMerge, merge_id)
    if merge_row is None or merge_row.league_id != league.id:
        abort(404)
    kept_id = merge_row.kept_id
    try:
        members.undo_merge(merge_row)
    except Refused as refused:
        return _refused(league, kept_id, refused, 409)
    db.session.commit()
    return _member_page(league, _member_or_404(league, kept_id), saved="Merge undone.")
