"""Forms for the organiser's set-up pages (Flask-WTF: CSRF token and field checks in one place)."""
from flask_wtf import FlaskForm
from wtforms import DateField, PasswordField, SelectChoice, SelectField, StringField, TimeField
from wtforms.validators import DataRequired, Length, Optional, Regexp

from league.events import EVENT_TYPES
from league.structures import TEMPLATES, to_json
from services.models import Event


class VenueForm(FlaskForm):
    """A new venue (pub) of the league."""
    name = StringField("Venue", validators=[DataRequired("Give the venue a name."), Length(max=120)])
    address = StringField("Address", validators=[Optional(), Length(max=200)])


class HostForm(FlaskForm):
    """A new host login (R-MEM-2: hosts make the night's rulings)."""
    username = StringField("Username", validators=[
        DataRequired("Choose a username."), Length(min=3, max=40),
        Regexp(r"^[A-Za-z0-9._-]+$", message="Letters, digits, dots, dashes and underscores only.")])
    display_name = StringField("Name shown", validators=[DataRequired("Give the host's name."), Length(max=80)])
    password = PasswordField("Password", validators=[
        DataRequired("Choose a password."), Length(min=8, message="At least 8 characters.")])


class NightForm(FlaskForm):
    """A new night (or final) at a venue, with its type, host and blind structure (R-CLOCK-1)."""
    venue = SelectField("Venue", coerce=int)
    date = DateField("Date", validators=[DataRequired("Pick the date.")])
    start_time = TimeField("Start", validators=[Optional()])
    event_type = SelectField("Type", choices=[SelectChoice(key, kind.label) for key, kind in EVENT_TYPES.items()])
    host = SelectField("Host", coerce=int)
    template = SelectField("Blind structure", choices=[SelectChoice(key, label) for key, (label, _) in TEMPLATES.items()])

    def new_event(self, league_id: int, host_id: int) -> Event:
        """The validated night as an event, its structure copied from the chosen template (R-CLOCK-1)."""
        return Event(league_id=league_id, venue_id=self.venue.data, date=self.date.data,
                     start_time=self.start_time.data, event_type=self.event_type.data, host_id=host_id,
                     structure=to_json(TEMPLATES[self.template.data][1]))


class AssignHostForm(FlaskForm):
    """Give a night to a host."""
    host = SelectField("Host", coerce=int)
