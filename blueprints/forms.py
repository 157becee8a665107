"""Forms: the set-up pages' Flask-WTF forms (CSRF token and field checks in one place), and the one
parser of the whole numbers (ids, chips, versions) that the hand-written host and player forms post."""
from flask import abort, request
from flask_wtf import FlaskForm
from flask_wtf.form import _Auto, _is_submitted
from wtforms import BooleanField, DateField, PasswordField, SelectChoice, SelectField, StringField, TimeField
from wtforms.validators import DataRequired, Length, Optional, ValidationError

from league.events import EVENT_TYPES, date_problem
from league.finals import final_month_problem
from league.payouts import FREE_NIGHT, MONEY_MAX, NightMoney, default_money
from league.statuses import LeagueKind
from league.structures import TEMPLATES, default_structure, to_json
from league.text import as_sentence, clean_text, text_problem
from services import Refused
from services.models import Event, League

TYPES_OWN = ""  # the night form's blind structure: the event type's own template (DEFAULT_TEMPLATE)
CHIPS_MAX = 10**9  # more chips than any night puts in play: a larger count is a typing slip
ID_MAX = 2**31 - 1  # the largest id (or clock version) an integer column holds


def read_whole_number(raw: str | None, *, low: int = 0, high: int = CHIPS_MAX) -> int | None:
    """The whole number a form field holds, or None when it holds none: plain ASCII digits with
    thousands commas and spaces around allowed ("3,000", " 5000 "), from `low` to `high`. Not a
    sign, a decimal point, an exponent or a digit of another script ("²".isdigit() is true, but
    int("²") fails), and never int() of thousands of digits."""
    text = (raw or "").replace(",", "").strip()
    if not (text.isascii() and text.isdigit()):
        return None
    text = text.lstrip("0") or "0"
    if len(text) > len(str(high)):
        return None
    number = int(text)
    return number if low <= number <= high else None


def whole_number(raw: str | None, refusal: str, *, low: int = 0, high: int = CHIPS_MAX) -> int:
    """The whole number a required form field holds (read_whole_number); Refused(refusal) otherwise."""
    number = read_whole_number(raw, low=low, high=high)
    if number is None:
        raise Refused(refusal)
    return number


def blank_or_whole_number(raw: str | None, refusal: str, *, low: int = 0, high: int = CHIPS_MAX) -> int | None:
    """None for a field left blank (not counted), else whole_number: a count that is not a whole
    number is refused, never taken as blank."""
    return None if not (raw or "").strip() else whole_number(raw, refusal, low=low, high=high)


def row_id(raw: str | None) -> int | None:
    """The row id a form field names, or None when it is not one (the caller says what is missing)."""
    return read_whole_number(raw, low=1, high=ID_MAX)


def picked_id(value) -> int:
    """A picker's (select's) choice as the id it names: plain ASCII digits only. SelectField's own
    coerce=int takes any script's digits ("٣" and "３" are 3 to int()), so a value no option has could
    pass as one; a choice that is no number is refused as "Not a valid choice"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # the form's own default (an id already)
    text = str(value)
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(ID_MAX)):
        raise ValueError("not an id")
    return int(text)


class TypedText:
    """A field's text can be stored (league.text.text_problem: no NUL, control or invisible
    characters, at most `max_length` once cleaned); the field's data becomes its clean form."""

    def __init__(self, max_length: int, what: str) -> None:
        self.max_length, self.what = max_length, what

    def __call__(self, form, field) -> None:
        if problem := text_problem(field.data or "", self.max_length, self.what):
            raise ValidationError(as_sentence(problem))
        field.data = clean_text(field.data or "")


class PageForm(FlaskForm):
    """A form its page posts: the page's own fields only. Flask-WTF would also read a JSON body as the
    form's fields, and a list, a number or a nested object there fails deep in the fields (a 500): a
    JSON body is refused whole with 415, nothing read or written."""

    class Meta(FlaskForm.Meta):
        def wrap_formdata(self, form, formdata):
            if formdata is _Auto and _is_submitted() and request.is_json:
                abort(415, description="This form takes the page's own fields, not JSON, so nothing changed.")
            return super().wrap_formdata(form, formdata)


class VenueForm(PageForm):
    """A new venue (pub) of the league."""
    name = StringField("Venue", validators=[DataRequired("Give the venue a name."),
                                            TypedText(120, "the venue's name")])  # Venue.name: String(120)
    address = StringField("Address", validators=[Optional(), TypedText(200, "the address")])


class LoginFields:
    """A login's username and shown name; whether the username will do (any case taken, its letters) is
    services.logins.new_login's to say, with league/logins.py's reasons."""

    @staticmethod
    def username(label: str = "Username") -> StringField:
        return StringField(label, validators=[DataRequired("Choose a username."), Length(max=200)],
                           render_kw={"autocomplete": "off", "autocapitalize": "none", "spellcheck": "false"})

    @staticmethod
    def display_name(label: str, missing: str) -> StringField:
        return StringField(label, validators=[DataRequired(missing), TypedText(80, "the name shown")])  # String(80)


class HostForm(PageForm):
    """A new host login (R-MEM-2: hosts make the night's rulings): with a password, or none, and then a
    one-time link to hand over that lets the host set their own."""
    username = LoginFields.username()
    display_name = LoginFields.display_name("Name shown", "Give the host's name.")
    password = PasswordField("Password (or leave it empty and hand the host a link to set their own)",
                             validators=[Optional(), Length(max=200)])


class OrganiserForm(PageForm):
    """Another organiser of a league, who sets their own password by a one-time link."""
    display_name = LoginFields.display_name("Organiser's name", "Give the organiser's name.")
    username = LoginFields.username("Organiser's username")


class LeagueForm(OrganiserForm):
    """The operator's new league (R-QUAL-2: its kind sets pass-down; R-STD-1: its time zone dates its
    nights) and its first organiser."""
    name = StringField("League name", validators=[DataRequired("Give the league's name."), Length(max=400)])
    kind = SelectField("Kind", default=LeagueKind.FREE,
                       choices=[SelectChoice(LeagueKind.FREE, "Free to play"), SelectChoice(LeagueKind.CASH, "Cash")])
    timezone = StringField("Time zone", default="Australia/Sydney",
                           validators=[DataRequired("Give the league's time zone."), Length(max=200)],
                           render_kw={"list": "time-zones", "autocomplete": "off", "spellcheck": "false"})


class WholeDollars:
    """A field holds whole dollars from 0 to MONEY_MAX (read_whole_number: "1,000" is a thousand) or
    nothing; the field's data becomes the number, or None (R-PAY-1: amounts are whole dollars)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __call__(self, form, field) -> None:
        if field.data is None or not str(field.data).strip():
            field.data = None  # blank: the league's default for the night's type (NightForm.money)
            return
        number = read_whole_number(str(field.data), high=MONEY_MAX)
        if number is None:
            raise ValidationError(f"{self.what} is whole dollars from 0 to {MONEY_MAX:,} (0 for none).")
        field.data = number


class AsciiDigits:
    """A date or time field's text is ASCII digits and separators only: strptime's %Y takes any
    script's digits ("٢٠٢٦-01-01" is 2026), so a slip of the keyboard could pass as a date."""

    def process_formdata(self, valuelist):
        if any(not str(value).isascii() for value in valuelist or []):
            self.data = None
            raise ValueError(self.gettext(f"Not a valid {self.kind} value."))
        super().process_formdata(valuelist)


class NightDate(AsciiDigits, DateField):
    kind = "date"


class NightTime(AsciiDigits, TimeField):
    kind = "time"


class NightForm(PageForm):
    """A night (or final) at a venue, with its type, host, blind structure (R-CLOCK-1) and, in a cash
    league, its money (R-PAY-1, R-PAY-3): the buy-in, the share of it going to the night's prize
    pool, and the guarantee. A free league's form has no money fields (fit_to_league)."""
    venue = SelectField("Venue", coerce=picked_id)
    date = NightDate("Date", validators=[DataRequired("Pick the date.")])
    start_time = NightTime("Start", validators=[Optional()])
    event_type = SelectField("Type", choices=[SelectChoice(key, kind.label) for key, kind in EVENT_TYPES.items()])
    host = SelectField("Host", coerce=picked_id)
    # R-CLOCK-1: blank, the night takes its type's own structure (a final's, not the nightly one).
    template = SelectField("Blind structure", choices=[
        SelectChoice(TYPES_OWN, "The type's own (THPA nightly; each final its own)"),
        *(SelectChoice(key, label) for key, (label, _) in TEMPLATES.items())])
    buy_in = StringField("Buy-in ($)", validators=[WholeDollars("The buy-in")],
                         render_kw={"inputmode": "numeric"})
    pool_share = StringField("To the night's prize pool, per buy-in ($)",
                             validators=[WholeDollars("The night's pool share")],
                             render_kw={"inputmode": "numeric"})
    guarantee = StringField("Guarantee ($)", validators=[WholeDollars("The guarantee")],
                            render_kw={"inputmode": "numeric"})
    # R-QUAL-1..5: the month whose qualifiers a final is for; blank: the month before its date.
    final_month = StringField("Final for month", validators=[Optional()],
                              render_kw={"type": "month", "placeholder": "YYYY-MM", "pattern": r"\d{4}-\d{2}"})
    # R-PAY-3: a sponsor's money in a final's prize pool, named so the ledger says where it came from.
    sponsor = StringField("Sponsor", validators=[Optional(), TypedText(120, "the sponsor")])  # String(120)
    sponsor_money = StringField("Sponsor's money to the prizes ($)", validators=[WholeDollars("The sponsor's money")],
                                render_kw={"inputmode": "numeric"})
    anyway = BooleanField("Create anyway")  # the host saw the same-night warning and goes ahead

    def validate_date(self, field) -> None:
        """A night between 2000 and 2100 (league.events.date_problem)."""
        if field.data is not None and (problem := date_problem(field.data)):
            raise ValidationError(as_sentence(problem))

    def validate_final_month(self, field) -> None:
        """R-QUAL-1..5: a final's month is a real month begun by its date (league.finals); other
        events have none, whatever was posted."""
        text = (field.data or "").strip()
        if not EVENT_TYPES.get(self.event_type.data) or not EVENT_TYPES[self.event_type.data].is_final or not text:
            field.data = None
            return
        if self.date.data is not None and (problem := final_month_problem(self.date.data, text)):
            raise ValidationError(as_sentence(problem))
        field.data = text

    league: League | None = None  # set by fit_to_league: whose defaults a blank money field takes

    def validate_pool_share(self, field) -> None:
        """R-PAY-3: the night's pool share is part of the buy-in, never more (the guarantee is checked after)."""
        if self.buy_in.errors or field.errors:
            return
        buy_in, share = self._amount("buy_in"), self._amount("pool_share")
        if problem := NightMoney(buy_in, share, 0).problem():
            raise ValidationError(as_sentence(problem))

    def money(self) -> NightMoney:
        """The night's buy-in, pool share and guarantee: each as typed, or when left blank the
        league's default for the night's type (R-PAY-3); a free league's form has none."""
        if "buy_in" not in self or self.league is None:
            return FREE_NIGHT
        return NightMoney(self._amount("buy_in"), self._amount("pool_share"), self._amount("guarantee"))

    def money_defaults(self) -> dict[str, dict[str, int]]:
        """Every event type's default money in the form's league (night_defaults), for the form to
        follow the type picked (static/js/app.js)."""
        return {name: night_defaults(self.league, name) for name in EVENT_TYPES} if self.league else {}

    def _amount(self, name: str) -> int:
        if self[name].data is not None:
            return self[name].data
        return getattr(default_money(self.event_type.data, self.league.kind, self.league.settings), name)

    def new_event(self, league_id: int, host_id: int) -> Event:
        """The validated night as an event, its structure copied from the chosen template (R-CLOCK-1)."""
        structure = (TEMPLATES[self.template.data][1] if self.template.data != TYPES_OWN
                     else default_structure(self.event_type.data))
        event = Event(league_id=league_id, venue_id=self.venue.data, date=self.date.data,
                      start_time=self.start_time.data, event_type=self.event_type.data, host_id=host_id,
                      structure=to_json(structure))
        self.update(event)
        return event

    def update(self, event: Event) -> None:
        """Write the validated venue, date, start, type and money onto a night not under way yet."""
        money = self.money()
        event.venue_id, event.date, event.start_time = self.venue.data, self.date.data, self.start_time.data
        event.event_type = self.event_type.data
        event.buy_in, event.pool_share, event.guarantee = money.buy_in, money.pool_share, money.guarantee
        event.final_month = self.final_month.data or None  # None: the month before its date (R-QUAL-1..5)
        event.sponsor, event.sponsor_money = self.sponsorship()

    def sponsorship(self) -> tuple[str | None, int]:
        """R-PAY-3: a final's sponsor and their money (other events have none, whatever was posted)."""
        kind = EVENT_TYPES.get(self.event_type.data)
        if kind is None or not kind.is_final or not self.sponsor_money.data:
            return None, 0
        return self.sponsor.data or None, self.sponsor_money.data

    def validate_sponsor_money(self, field) -> None:
        """R-PAY-3: sponsor's money comes from a named sponsor: the ledger says whose it is."""
        if field.data and not (self.sponsor.data or "").strip():
            raise ValidationError("Name the sponsor whose money it is.")


def night_defaults(league: League, event_type: str = "nightly") -> dict[str, int]:
    """A new night form's money, from the league's settings or the house defaults (R-PAY-3)."""
    money = default_money(event_type, league.kind, league.settings)
    return {"buy_in": money.buy_in, "pool_share": money.pool_share, "guarantee": money.guarantee}


def fit_to_league(form: NightForm, league: League) -> NightForm:
    """The form for this league's nights: a blank money field takes its defaults; a free-to-play
    league's nights are free, so its form has no money fields."""
    form.league = league
    if league.kind != LeagueKind.CASH:
        del form.buy_in, form.pool_share, form.guarantee
    return form


class AssignHostForm(PageForm):
    """Give a night to a host."""
    host = SelectField("Host", coerce=picked_id)
