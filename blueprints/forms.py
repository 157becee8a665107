"""Forms: the set-up pages' Flask-WTF forms (CSRF token and field checks in one place), and the one
parser of the whole numbers (ids, chips, versions) that the hand-written host and player forms post."""
from flask_wtf import FlaskForm
from wtforms import DateField, PasswordField, SelectChoice, SelectField, StringField, TimeField
from wtforms.validators import DataRequired, Length, Optional, Regexp, ValidationError

from league.events import EVENT_TYPES, date_problem
from league.structures import TEMPLATES, to_json
from league.text import as_sentence, clean_text, text_problem
from services import Refused
from services.models import Event

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


class TypedText:
    """A field's text can be stored (league.text.text_problem: no NUL, control or invisible
    characters, at most `max_length` once cleaned); the field's data becomes its clean form."""

    def __init__(self, max_length: int, what: str) -> None:
        self.max_length, self.what = max_length, what

    def __call__(self, form, field) -> None:
        if problem := text_problem(field.data or "", self.max_length, self.what):
            raise ValidationError(as_sentence(problem))
        field.data = clean_text(field.data or "")


class VenueForm(FlaskForm):
    """A new venue (pub) of the league."""
    name = StringField("Venue", validators=[DataRequired("Give the venue a name."),
                                            TypedText(120, "the venue's name")])  # Venue.name: String(120)
    address = StringField("Address", validators=[Optional(), TypedText(200, "the address")])


class HostForm(FlaskForm):
    """A new host login (R-MEM-2: hosts make the night's rulings)."""
    username = StringField("Username", validators=[
        DataRequired("Choose a username."), Length(min=3, max=40),
        Regexp(r"^[A-Za-z0-9._-]+$", message="Letters, digits, dots, dashes and underscores only.")])
    display_name = StringField("Name shown", validators=[DataRequired("Give the host's name."),
                                                         TypedText(80, "the name shown")])  # String(80)
    password = PasswordField("Password", validators=[
        DataRequired("Choose a password."), Length(min=8, message="At least 8 characters.")])


class NightForm(FlaskForm):
    """A new night (or final) at a venue, with its type, host and blind structure (R-CLOCK-1)."""
    venue = SelectField("Venue", coerce=int)
    date = DateField("Date", validators=[DataRequired("Pick the date.")])
    start_time = TimeField("Start", validators=[Optional()])
    event_type = SelectField("Type", choices=[SelectChoice(key, kind.label) for key, kind in EVENT_TYPES.items()])
    host = SelectField("Host", coerce=int)
    template = SelectField("Blind structure",
                           choices=[SelectChoice(key, label) for key, (label, _) in TEMPLATES.items()])

    def validate_date(self, field) -> None:
        """A night between 2000 and 2100 (league.events.date_problem)."""
        if field.data is not None and (problem := date_problem(field.data)):
            raise ValidationError(as_sentence(problem))

    def new_event(self, league_id: int, host_id: int) -> Event:
        """The validated night as an event, its structure copied from the chosen template (R-CLOCK-1)."""
        return Event(league_id=league_id, venue_id=self.venue.data, date=self.date.data,
                     start_time=self.start_time.data, event_type=self.event_type.data, host_id=host_id,
                     structure=to_json(TEMPLATES[self.template.data][1]))


class AssignHostForm(FlaskForm):
    """Give a night to a host."""
    host = SelectField("Host", coerce=int)
