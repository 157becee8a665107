"""The words and timing of the messages a player's phone is told with its page closed (R-LATE-3:
registration closing, R-QUAL-4: the Top-10 Shoot-out)."""
from league import push

MIN = 60_000


def test_r_late_3_told_ten_minutes_before_registration_closes():
    assert push.registration_warning(45 * MIN) == (35 * MIN, 10)
    assert push.registration_warning(10 * MIN) == (0, 10)


def test_r_late_3_closer_than_ten_minutes_told_at_once_with_the_minutes_left():
    assert push.registration_warning(10 * MIN - 10) == (0, 10)  # to the nearest minute
    assert push.registration_warning(4 * MIN + 20_000) == (0, 4)
    assert push.registration_warning(MIN) == (0, 1)


def test_r_late_3_under_a_minute_or_no_moment_known_not_told():
    assert push.registration_warning(MIN - 1) is None
    assert push.registration_warning(None) is None


def test_r_late_3_the_message_names_the_venue_and_the_minutes():
    message = push.registration_closing("Rose & Crown", 10, "/events/3")
    assert message.payload() == {
        "title": "Registration closes soon", "url": "/events/3",
        "body": "Registration at Rose & Crown closes in 10 minutes: check in at the door to keep your place."}
    assert "closes in 1 minute:" in push.registration_closing("Rose & Crown", 1, "/events/3").body


def test_r_qual_4_only_the_newly_in_are_told():
    assert push.newly_qualified({1, 2, 3}, {2, 3, 4, 5}) == {4, 5}
    assert push.newly_qualified({1, 2}, {1, 2}) == set()
    assert push.newly_qualified(set(), {7}) == {7}


def test_r_qual_4_the_shootout_message():
    assert push.shootout_made("December 2026", "/leagues/x/months/2026-12/qualifiers").body == \
        "You made the Top-10 Shoot-out for December 2026."
