"""The league's records as typed SQLAlchemy 2 models. Small methods only: the rules live in league/."""
from __future__ import annotations

import datetime as dt
import re
import secrets
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import current_app
from flask_login import UserMixin
from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    UniqueConstraint,
    event,
    false,
    inspect,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates
from werkzeug.security import check_password_hash, generate_password_hash

from league.logins import username_key
from league.members import clean_name, name_key
from league.reentry import ReentryRule, reentry_rule
from league.settings import event_snapshot, from_stored
from league.statuses import (
    DealMethod,
    DealStatus,
    EntryStatus,
    EventStatus,
    LeagueKind,
    LinkPurpose,
    PenaltyKind,
    Role,
    values,
)
from league.text import as_sentence, hidden_problem, text_problem
from services import MAX_REASON_LENGTH, Refused
from wiring.extensions import db, login_manager


def utcnow() -> dt.datetime:
    """The current time in UTC, naive, as stored in every timestamp column."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def moment(ms: int) -> dt.datetime:
    """Server time in epoch ms (the clock's) as a timestamp column stores it: UTC, naive."""
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).replace(tzinfo=None)


def one_of(column: str, vocabulary) -> CheckConstraint:
    """The database refuses any value of `column` outside the vocabulary (league/statuses.py); NULL
    passes, as SQL's CHECK lets it, where the column allows it."""
    allowed = ", ".join(f"'{value}'" for value in values(vocabulary))
    return CheckConstraint(f"{column} IN ({allowed})", name=column)


def slugify(name: str) -> str:
    """A URL-safe league or venue slug."""
    slug = re.sub(r"[^a-z0-9]+", "-", name_key(name)).strip("-")
    return slug or "league"


@event.listens_for(db.Model, "before_insert", propagate=True)
@event.listens_for(db.Model, "before_update", propagate=True)
def _stored_text_is_clean(mapper, connection, target) -> None:
    """Every text a row stores passes the one hygiene check (league.text.hidden_problem), whatever path
    wrote it: the services clean what people type (typed_text) and say why; this refuses what a path
    that forgot would store (a NUL PostgreSQL refuses with a 500, a right-to-left mark on every phone),
    so the flush stops, nothing is written, and the view's Refused answer (or the app's 422) says why."""
    for column in mapper.columns:
        if isinstance(column.type, String):
            value = getattr(target, mapper.get_property_by_column(column).key, None)
            if isinstance(value, str) and (problem := hidden_problem(value, f"the {column.name.replace('_', ' ')}")):
                raise Refused(as_sentence(problem))


class League(db.Model):
    """A league: free-to-play or cash, with its settings (pass-down, payout percentage, stacks, bonuses)."""
    __tablename__ = "leagues"
    __table_args__ = (one_of("kind", LeagueKind),)
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    kind: Mapped[str] = mapped_column(String(10))  # LeagueKind
    timezone: Mapped[str] = mapped_column(String(64), default="Australia/Sydney")
    pass_down: Mapped[bool] = mapped_column(default=True)
    payout_percent: Mapped[int] = mapped_column(default=10)
    shot_clock_seconds: Mapped[int] = mapped_column(default=70)
    # Per event type: {"nightly": {"starting_stack": 10000, "bonuses": {"food": 1000}}, ...}
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # When the organiser last looked over the settings and kept or saved them (a new league's checklist).
    settings_reviewed_at: Mapped[dt.datetime | None]

    venues: Mapped[list[Venue]] = relationship(back_populates="league", order_by="Venue.name")

    def zone(self) -> dt.tzinfo:
        """The time zone of the league's venues (UTC if the setting names none known)."""
        try:
            return ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError, TypeError):
            return dt.UTC

    def today(self) -> dt.date:
        """Today at the league's venues (R-STD-1 counts the venue's local date), not the server's."""
        return dt.datetime.now(self.zone()).date()


class Venue(db.Model):
    """A pub where the league plays."""
    __tablename__ = "venues"
    __table_args__ = (UniqueConstraint("league_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    name: Mapped[str] = mapped_column(String(120))
    address: Mapped[str] = mapped_column(String(200), default="")
    # A retired venue keeps its history; no new night is booked there.
    retired_at: Mapped[dt.datetime | None]
    # R-MEM-1: the venue's permanent link, printed as a QR on its poster: tonight's check-in while a
    # night is open there. Unguessable, and kept in clear (not hashed) so the poster can be printed again;
    # a lost poster's link is replaced, the old one kept in ReplacedVenueLink to say so.
    link_code: Mapped[str] = mapped_column(String(43), unique=True, default=lambda: secrets.token_urlsafe(16))
    # When the poster of the current link was printed (None: not yet, or the link was replaced since).
    poster_printed_at: Mapped[dt.datetime | None]

    league: Mapped[League] = relationship(back_populates="venues")


class ReplacedVenueLink(db.Model):
    """A venue's old permanent link, replaced (a lost poster): it opens nothing, and says to scan the new poster."""
    __tablename__ = "replaced_venue_links"
    id: Mapped[int] = mapped_column(primary_key=True)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(43), unique=True)
    replaced_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    replaced_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

    venue: Mapped[Venue] = relationship()


class HostVenue(db.Model):
    """A host's venue: a host given venues runs only their nights (organisers run every night)."""
    __tablename__ = "host_venues"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"), primary_key=True)


class SettingChange(db.Model):
    """One change of a league setting: who, when, old and new value (shown on the settings page)."""
    __tablename__ = "setting_changes"
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    key: Mapped[str] = mapped_column(String(60))
    old: Mapped[Any] = mapped_column(JSON, nullable=True)
    new: Mapped[Any] = mapped_column(JSON, nullable=True)

    user: Mapped[User | None] = relationship()


class Member(db.Model):
    """A league member (R-MEM-1): free, 18+, photo ID checked when under 21."""
    __tablename__ = "members"
    __table_args__ = (UniqueConstraint("league_id", "name_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(80))
    contact: Mapped[str | None] = mapped_column(String(120))
    adult_confirmed_at: Mapped[dt.datetime | None]
    under_21: Mapped[bool] = mapped_column(default=False)
    id_checked_at: Mapped[dt.datetime | None]
    card_code: Mapped[str] = mapped_column(String(43), unique=True, default=lambda: secrets.token_urlsafe(24))
    # Banned by the organiser (R-MEM-2, the reason recorded as a ruling too): no check-in, no pre-registration.
    banned_at: Mapped[dt.datetime | None]
    ban_reason: Mapped[str | None] = mapped_column(String(500))
    # Merged into another record of the same person (services.members.merge): hidden, history moved.
    merged_into_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"))
    # The secret in the member's long-lived phone cookie; a new one signs every old phone out.
    cookie_secret: Mapped[str] = mapped_column(String(43), default=lambda: secrets.token_urlsafe(24))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    @classmethod
    def named(cls, league_id: int, name: str) -> Member:
        """A new member with the matching key filled in."""
        return cls(league_id=league_id, name=clean_name(name), name_key=name_key(name))


class User(UserMixin, db.Model):
    """A login: the operator (runs this ShuffleUp: its leagues and their organisers), an organiser (runs
    a league) or a host (runs nights)."""
    __tablename__ = "users"
    __table_args__ = (one_of("role", Role),)
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80))
    # What usernames are unique on (league.logins.username_key: `Hana` and `hana` are one name); None
    # once the login is removed, so that the name is free again while its nights still show who ran them.
    username_key: Mapped[str | None] = mapped_column(String(80), unique=True)
    display_name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(10))  # Role
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"))  # None: the operator
    # A suspended login logs in nowhere until reinstated; a removed one never again (its row stays for
    # the nights it ran and the rulings it made).
    suspended_at: Mapped[dt.datetime | None]
    removed_at: Mapped[dt.datetime | None]
    # What the login session and the remember-me cookie name the user by (Flask-Login's alternative
    # token, never the row id): a new one on logout, on a new password, on suspension and removal, so
    # every cookie made with the old one stops logging in.
    session_token: Mapped[str] = mapped_column(String(43), unique=True, default=lambda: secrets.token_urlsafe(32))

    league: Mapped[League | None] = relationship()

    @validates("username")
    def _keyed(self, _key: str, username: str) -> str:
        """Every username carries its key, however the row is made (a form, a command, a test)."""
        self.username_key = username_key(username)
        return username

    def get_id(self) -> str:
        """Flask-Login's id for the session and the remember cookie: the revocable token."""
        if self.session_token is None:  # a user not yet flushed
            self.session_token = secrets.token_urlsafe(32)
        return self.session_token

    def rotate_session_token(self) -> None:
        """Revoke every session and remember-me cookie of this login (logout, a new password)."""
        self.session_token = secrets.token_urlsafe(32)

    def set_password(self, password: str) -> None:
        """Store only a salted hash; a new password signs every other session out."""
        self.password_hash = generate_password_hash(password, method=current_app.config["PASSWORD_HASH_METHOD"])
        self.rotate_session_token()

    def check_password(self, password: str) -> bool:
        """Compare against the stored hash."""
        return check_password_hash(self.password_hash, password)

    @property
    def is_organiser(self) -> bool:
        return self.role == Role.ORGANISER

    @property
    def is_operator(self) -> bool:
        return self.role == Role.OPERATOR

    @property
    def is_active(self) -> bool:
        """Flask-Login's check: a suspended or removed login is signed out wherever it was."""
        return self.suspended_at is None and self.removed_at is None


# Built once: every logged-in request runs it first (a statement built per call costs as much again
# as running it).
_USER_BY_TOKEN = db.select(User).where(User.session_token == db.bindparam("token"), User.suspended_at.is_(None),
                                       User.removed_at.is_(None))


@login_manager.user_loader
def _load_user(token: str) -> User | None:
    """The user whose current session token the session or remember cookie carries; an old
    (rotated) token, or a bare row id from before tokens, loads no one."""
    if not token or len(token) > 43:
        return None
    return db.session.scalar(_USER_BY_TOKEN, {"token": token})


class Event(db.Model):
    """One night's game (or a final) at a venue, with its blind structure and clock state."""
    __tablename__ = "events"
    __table_args__ = (
        Index("ix_events_league_date", "league_id", "date"),
        one_of("status", EventStatus), one_of("deal_status", DealStatus), one_of("deal_method", DealMethod),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id"))
    event_type: Mapped[str] = mapped_column(String(20))
    date: Mapped[dt.date]
    start_time: Mapped[dt.time | None]
    status: Mapped[str] = mapped_column(String(12), default=EventStatus.SCHEDULED)  # EventStatus
    host_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # The blind structure (league.structures JSON) and the stored clock state (league.clock.ClockState).
    structure: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    clock_index: Mapped[int] = mapped_column(default=0)
    clock_item_elapsed_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    clock_running_since_ms: Mapped[int | None] = mapped_column(BigInteger)
    clock_started: Mapped[bool] = mapped_column(default=False)
    clock_version: Mapped[int] = mapped_column(default=0)
    # R-CLOCK-3: server time of the clock's last change by a host: a tap kept offline is applied no earlier.
    clock_changed_ms: Mapped[int | None] = mapped_column(BigInteger)
    # A called clock (R-CLOCK-4): when it started (server ms) and for which seat; None when off.
    shot_started_ms: Mapped[int | None] = mapped_column(BigInteger)
    shot_seat: Mapped[str | None] = mapped_column(String(40))
    # R-HFH-1/2: hand-for-hand at the money bubble; the hand in play, numbered through the night (None
    # until the host's first Next hand since it was switched on), and the hands dealt so far tonight, so
    # a second spell of hand-for-hand never numbers a hand twice (Entry.hfh_hand). Journalled: Undo takes
    # a switch or a hand back.
    hand_for_hand: Mapped[bool] = mapped_column(default=False, server_default=false())
    hand_number: Mapped[int | None]
    hands_dealt: Mapped[int] = mapped_column(default=0, server_default="0")
    # The check-in link's secret (R-MEM-1): unguessable, and dead once the event ends.
    check_in_code: Mapped[str] = mapped_column(String(43), unique=True, default=lambda: secrets.token_urlsafe(16))
    max_seats: Mapped[int] = mapped_column(default=10)
    buy_in: Mapped[int] = mapped_column(default=0)  # whole dollars; 0 for free-to-play
    pool_share: Mapped[int] = mapped_column(default=0)  # dollars of each buy-in that go to the night's prizes
    guarantee: Mapped[int] = mapped_column(default=0)
    # R-PAY-3: money a named sponsor puts into the prize pool (a final's prizes need a source the
    # organiser's ledger can name, beside buy-ins, shares and the guarantee).
    sponsor: Mapped[str | None] = mapped_column(String(120))
    sponsor_money: Mapped[int] = mapped_column(default=0, server_default="0")
    deal_status: Mapped[str] = mapped_column(String(8), default=DealStatus.NONE)  # DealStatus
    deal_method: Mapped[str | None] = mapped_column(String(10))  # DealMethod: the split on the ballot
    # A final's qualifying month, YYYY-MM (R-QUAL-3..5); None: the month before its date
    # (league.finals.qualifying_month). Unused by other events.
    final_month: Mapped[str | None] = mapped_column(String(7))
    # The league's settings as they were when the night was created (event_snapshot):
    # a later change applies to later nights only. None: a night from before snapshots (read the league's).
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    settled_at: Mapped[dt.datetime | None]
    # A night cancelled before play stays on the list (EventStatus.CANCELLED): who, when and why.
    cancelled_at: Mapped[dt.datetime | None]
    cancelled_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    cancel_reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    league: Mapped[League] = relationship()
    venue: Mapped[Venue] = relationship()
    host: Mapped[User | None] = relationship(foreign_keys=[host_id])
    canceller: Mapped[User | None] = relationship(foreign_keys=[cancelled_by])
    entries: Mapped[list[Entry]] = relationship(back_populates="event", cascade="all, delete-orphan")

    @property
    def month(self) -> str:
        """The event's month as YYYY-MM (the venue's local date)."""
        return self.date.strftime("%Y-%m")

    def setting(self, name: str, default: Any = None) -> Any:
        """A setting this night reads (its type's, such as bonus_windows, registration_close_minutes or
        awards_points, or a league-wide one it keeps, such as hands_per_hour): from its own snapshot
        (event_snapshot), so a later change applies to later nights only; a night without one (from
        before snapshots, or a snapshot without that setting) reads the league's settings now, its
        type's group then the league-wide ones (stored under "league", as league/settings.py's
        to_stored writes them); `default` when neither has it."""
        if self.settings and name in self.settings:
            return self.settings[name]
        stored = self.league.settings or {}
        for group in (stored.get(self.event_type), stored.get("league")):
            if isinstance(group, dict) and name in group:
                return group[name]
        return default

    @property
    def reentry(self) -> ReentryRule:
        """R-ENTRY-1: whether this game allows re-entries, rebuys or neither, and how many a player:
        its type's setting as the night was created with it (its snapshot, event_snapshot),
        so a later change of the league's settings applies to later nights only; a night without one
        (from before snapshots) reads the league's settings now."""
        if self.settings and "reentry" in self.settings:
            return reentry_rule({self.event_type: self.settings}, self.event_type)
        return reentry_rule(self.league.settings, self.event_type)


@event.listens_for(Event, "before_insert")
def _snapshot_settings(mapper, connection, target: Event) -> None:
    """A new night keeps the league's settings as they are now (event_snapshot)."""
    if target.settings is not None:
        return
    _take_snapshot(connection, target)


@event.listens_for(Event, "before_update")
def _snapshot_on_new_type(mapper, connection, target: Event) -> None:
    """A night booked as one type and changed to another before play takes the other type's settings."""
    if target.status == EventStatus.SCHEDULED and not target.clock_started and target.settings and \
            inspect(target).attrs.event_type.history.has_changes():
        _take_snapshot(connection, target)


def _take_snapshot(connection, target: Event) -> None:
    row = connection.execute(db.select(League.kind, League.settings, League.pass_down, League.payout_percent,
                                       League.shot_clock_seconds, League.timezone)
                             .where(League.id == target.league_id)).one_or_none()
    if row is None:
        return
    values = from_stored(row.kind, row.settings, {
        "pass_down": row.pass_down, "payout_percent": row.payout_percent,
        "shot_clock_seconds": row.shot_clock_seconds, "timezone": row.timezone})
    snap = event_snapshot(values, target.event_type)
    # The night's own money is what it was booked with (the form may differ from the defaults).
    snap.update(buy_in=target.buy_in or 0, pool_share=target.pool_share or 0, guarantee=target.guarantee or 0)
    target.settings = snap


class MemberMerge(db.Model):
    """Two records of one person merged (R-MEM-1): what moved from `merged` to `kept`, so the merge
    can be taken back exactly; `undone_at` marks it taken back."""
    __tablename__ = "member_merges"
    # A record is merged into one other at a time (a merge taken back may be made again): a double tap
    # that reached the database twice records one merge, and the other is refused.
    __table_args__ = (Index("uq_member_merges_merged_id_open", "merged_id", unique=True,
                            sqlite_where=text("undone_at IS NULL"), postgresql_where=text("undone_at IS NULL")),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    kept_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    merged_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # {"entries": [ids], "tickets": [ids], "member_codes": [ids], "kept_before": {column: value}}
    moved: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    undone_at: Mapped[dt.datetime | None]

    kept: Mapped[Member] = relationship(foreign_keys=[kept_id])
    merged: Mapped[Member] = relationship(foreign_keys=[merged_id])


class Entry(db.Model):
    """A member in an event: status, finishing position, chips at a deal, points and prize."""
    __tablename__ = "entries"
    __table_args__ = (
        UniqueConstraint("event_id", "member_id"),
        Index("ix_entries_member", "member_id"),
        one_of("status", EntryStatus),
        CheckConstraint("buy_ins >= 1", name="buy_ins"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    # EntryStatus: requested (pre-registered from their phone, the buy-in not yet confirmed) |
    # registered (pre-registered, not arrived) | pending (checked in on their phone, not yet confirmed
    # by the host) | playing | played (finished: busted, won or by a deal) | dq | no_show
    status: Mapped[str] = mapped_column(String(12), default=EntryStatus.PLAYING)
    position: Mapped[int | None]
    chips_at_deal: Mapped[int | None] = mapped_column(BigInteger)
    points: Mapped[int] = mapped_column(default=0)
    prize: Mapped[int] = mapped_column(default=0)
    pre_registered: Mapped[bool] = mapped_column(default=False)
    arrived_at: Mapped[dt.datetime | None]
    table_no: Mapped[int | None]
    seat_no: Mapped[int | None]
    chips_removed: Mapped[int] = mapped_column(BigInteger, default=0)  # missed blinds, absent stacks (R-CHIP-3)
    # The order of elimination (services.places): bust-outs in one hand share a number (R-PTS-6), a
    # disqualification has one of its own (R-PTS-5); numbers grow through the night.
    bust_hand: Mapped[int | None]
    stack_at_bust: Mapped[int | None] = mapped_column(BigInteger)
    # R-HFH-3: the hand-for-hand hand this player went out in (Event.hand_number then); every player
    # out in it, at any table, shares the places they cover. None for a bust-out outside hand-for-hand.
    hfh_hand: Mapped[int | None]
    # The player's own starting stack where it differs by player (R-FIN: the High-roller Final's
    # 20,000/25,000/+2,000); None: the event type's (services.field.starting_stack).
    starting_stack: Mapped[int | None] = mapped_column(BigInteger)
    # The player's secret vote on the deal (R-PAY-2): only the tally is ever shown.
    deal_vote: Mapped[bool | None]
    # R-PAY-2: the vote was cast on the host's phone handed to the player (pass the phone), not their own.
    deal_vote_handed: Mapped[bool] = mapped_column(default=False, server_default=false())
    # R-PAY-2: the player has a phone of their own in tonight's game (they checked in, pre-registered or
    # voted on it): they vote on it, and the host's phone is never handed to them for it.
    own_phone: Mapped[bool] = mapped_column(default=False, server_default=false())
    # R-ENTRY-1/2: the stacks this player bought (1, plus each re-entry or rebuy): one entry per player
    # a night, so the field, their one finishing position and the events they played stay the player's.
    buy_ins: Mapped[int] = mapped_column(default=1, server_default="1")
    # R-PEN-2: when the player's missed-hand or missed-round penalty is estimated to end (UTC); None when
    # they are at the table. Read with the seats, so their phone hears of it (live.seats).
    penalty_until: Mapped[dt.datetime | None]
    # R-SEAT-1..4: the seat a draw that reseated players (a table broken, the final table, a late
    # entrant's new table) moved this player from, until the host marks them sat down at the new one
    # (the walk, services.seats.walk); None when there is nothing to walk.
    moved_from_table: Mapped[int | None]
    moved_from_seat: Mapped[int | None]
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    event: Mapped[Event] = relationship(back_populates="entries")
    member: Mapped[Member] = relationship()

    def back_from_penalty(self, now: dt.datetime | None = None) -> dt.datetime | None:
        """R-PEN-2: the estimated return of the penalty keeping this player away, in the league's
        local time; None when none does (they are at the table, or its time has passed)."""
        if self.penalty_until is None or self.penalty_until <= (now or utcnow()):
            return None
        return self.penalty_until.replace(tzinfo=dt.UTC).astimezone(self.event.league.zone())


class BonusClaim(db.Model):
    """Bonus chips accepted for an entry (R-CHIP-1..3); `override` marks one the host allowed
    outside the rules, with its ruling."""
    __tablename__ = "bonus_claims"
    # R-CHIP-1 (house decision): one of each kind per player per game, held by the database too.
    __table_args__ = (UniqueConstraint("entry_id", "kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    chips: Mapped[int] = mapped_column(BigInteger)
    override: Mapped[bool] = mapped_column(default=False)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    entry: Mapped[Entry] = relationship()


class Penalty(db.Model):
    """A warning or penalty the host gave a player (R-PEN-1..3): who gave it, when, why, the player's
    table and seat then, the hands it keeps them away and when they are estimated back; `ended_at`
    when the host ended it early. Its ruling is in the rulings log (R-MEM-2)."""
    __tablename__ = "penalties"
    __table_args__ = (one_of("kind", PenaltyKind), Index("ix_penalties_member", "member_id", "at"))
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(20))  # PenaltyKind
    reason: Mapped[str] = mapped_column(String(500), default="")
    table_no: Mapped[int | None]
    seat_no: Mapped[int | None]
    table_size: Mapped[int | None]  # players at their table when given (R-PEN-1's missed round)
    rounds: Mapped[int | None]
    hands: Mapped[int | None]  # the hands it keeps them away, extensions included
    until: Mapped[dt.datetime | None]  # the estimated return (R-PEN-2)
    ended_at: Mapped[dt.datetime | None]

    entry: Mapped[Entry] = relationship()
    event: Mapped[Event] = relationship()
    user: Mapped[User | None] = relationship()


class Action(db.Model):
    """One host action of a night, as one transaction: who, when, what, and how to take it back.

    `changes` lists the rows it touched as [table, id, values before] (None before = created by
    the action), so undo restores them exactly; `undone_at` marks it taken back. Undo keeps the rows
    as the action left them in `redo` ([table, id, values after], None after = no such row), and in
    `undone_turn` the night's newest action then, so Redo can put the action back until a new one
    is made (services/journal.py).
    """
    __tablename__ = "actions"
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(32))
    summary: Mapped[str] = mapped_column(String(200))
    changes: Mapped[list[Any]] = mapped_column(JSON, default=list)
    undone_at: Mapped[dt.datetime | None]
    redo: Mapped[list[Any] | None] = mapped_column(JSON)
    undone_turn: Mapped[int | None]

    user: Mapped[User | None] = relationship()


class Ticket(db.Model):
    """A Monthly Final ticket (R-QUAL-1..3): one per member per month, from the event that gave it."""
    __tablename__ = "tickets"
    __table_args__ = (UniqueConstraint("league_id", "month", "member_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    month: Mapped[str] = mapped_column(String(7))  # YYYY-MM
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    position: Mapped[int]
    presented_at: Mapped[dt.datetime | None]
    # The final it was presented at (R-QUAL-3): turning that arrival away gives the ticket back.
    presented_event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id", ondelete="SET NULL"))

    member: Mapped[Member] = relationship()
    event: Mapped[Event] = relationship(foreign_keys=[event_id])


class Ruling(db.Model):
    """The append-only record of rulings and overrides (R-MEM-2): who, when, what and why."""
    __tablename__ = "rulings"
    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    kind: Mapped[str] = mapped_column(String(40))  # RulingKind
    rule_id: Mapped[str] = mapped_column(String(20), default="")
    reason: Mapped[str] = mapped_column(String(500), default="")
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    @validates("reason")
    def _typed_reason(self, key: str, reason: str) -> str:
        """R-MEM-2: the reason as the host typed it, never a NUL, a control or an invisible mark
        (the services check it first; this holds for every ruling whoever records it)."""
        if problem := text_problem(reason or "", MAX_REASON_LENGTH, "the reason"):
            raise Refused(as_sentence(problem))
        return reason


@event.listens_for(Ruling, "before_update")
@event.listens_for(Ruling, "before_delete")
def _rulings_are_append_only(mapper, connection, target):
    """R-MEM-2: a ruling, once recorded, is never changed or removed; a correction is a new ruling."""
    raise ValueError("rulings are append-only: record a new ruling instead")


class LoginLink(db.Model):
    """A one-time link that sets a password: the set-up link that makes this ShuffleUp's operator
    (no login yet: `user_id` None), or a login's own password link, handed over by their organiser
    or the operator (valid 24 hours). Only the SHA-256 of its secret is stored; it dies once used,
    and a newer link of the same kind kills the older."""
    __tablename__ = "login_links"
    __table_args__ = (one_of("purpose", LinkPurpose),)
    id: Mapped[int] = mapped_column(primary_key=True)
    purpose: Mapped[str] = mapped_column(String(10))  # LinkPurpose
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[dt.datetime | None]  # None: the set-up link, alive until used or replaced
    used_at: Mapped[dt.datetime | None]
    failed_tries: Mapped[int] = mapped_column(default=0, server_default="0")  # services.logins.LINK_TRIES
    issued_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    user: Mapped[User | None] = relationship(foreign_keys=[user_id])


class MemberCode(db.Model):
    """A one-time code that moves a member's card to a new phone (R-MEM-1: players act only for
    themselves). Only its keyed SHA-256 hash is stored; it is valid ten minutes and used once.
    `issued_by` is the host who gave it out (None: the member's own phone asked for it)."""
    __tablename__ = "member_codes"
    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), index=True)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]
    issued_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    member: Mapped[Member] = relationship()


class PushSubscription(db.Model):
    """One phone's Web Push subscription for its member (R-MEM-1: a phone acts for its own member): the
    push service's endpoint (one of the allowed services, league.push) and the keys its messages are
    encrypted to (RFC 8291). A phone has one endpoint; the member who subscribed it last owns it."""
    __tablename__ = "push_subscriptions"
    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(1024), unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))
    auth: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)

    member: Mapped[Member] = relationship()


class RequestKey(db.Model):
    """One tap, one action: a state-changing request's idempotency key as its sender sent it (`who`:
    the login, else the browser's session, hashed; `key`: the SHA-256 of the page's key and
    of the request it came with). Claimed before the view runs by `owner` (one request); `applied`
    is set in the same transaction as the action's own write, so it is true exactly when the action
    was committed; `status`, `body` and `headers` are the first answer, which a repeat gets instead
    of applying again. Kept a day, then pruned."""
    __tablename__ = "request_keys"
    __table_args__ = (UniqueConstraint("who", "key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    who: Mapped[str] = mapped_column(String(80))
    key: Mapped[str] = mapped_column(String(64))
    owner: Mapped[str] = mapped_column(String(32))
    path: Mapped[str] = mapped_column(String(200))
    claimed_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)
    applied: Mapped[bool] = mapped_column(default=False)
    status: Mapped[int | None]
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    headers: Mapped[list[Any] | None] = mapped_column(JSON)


class PushSent(db.Model):
    """A message a member is told once only (R-LATE-3: registration closing, once a night; R-QUAL-4: a
    Top-10 Shoot-out place, once a month): `kind` and `ref` (the night's id, the month) name it. The row
    is claimed by inserting it just before the message goes (unique: of two senders, one wins), so a
    pause and resume, a second process or an undone and redone settle never tells it twice."""
    __tablename__ = "push_sent"
    __table_args__ = (UniqueConstraint("member_id", "kind", "ref"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    ref: Mapped[str] = mapped_column(String(40))
    sent_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
