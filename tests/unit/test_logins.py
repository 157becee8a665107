"""R-MEM-2: a login is its holder's alone. Usernames are one name whatever their case, and a password is
refused when it is short, mismatched, made of one or two characters, holds the username or is one of
the first guessed (league/logins.py), for any text at all."""
from hypothesis import given
from hypothesis import strategies as st

from league.logins import COMMON_PASSWORDS, PASSWORD_MAX, PASSWORD_MIN, password_problem, username_key, username_problem

USERNAME = st.from_regex(r"[A-Za-z0-9._-]{3,40}", fullmatch=True)
ANY_TEXT = st.text(max_size=60)


@given(USERNAME)
def test_r_mem_2_a_username_is_one_name_in_every_case(name):
    assert username_problem(name) is None
    assert username_key(name) == username_key(name.upper()) == username_key(name.lower()) == username_key(f" {name} ")
    assert username_key(username_key(name)) == username_key(name)


@given(ANY_TEXT)
def test_r_mem_2_a_username_outside_the_plain_letters_is_refused_with_a_reason(name):
    problem = username_problem(name)
    plain = name.strip()
    ok = 3 <= len(plain) <= 40 and plain.isascii() and all(c.isalnum() or c in "._-" for c in plain)
    assert (problem is None) == ok
    assert problem is None or problem.endswith(".")


@given(ANY_TEXT, ANY_TEXT)
def test_r_mem_2_two_different_passwords_are_always_refused(password, again):
    if password != again:
        assert password_problem(password, again) is not None


@given(st.text(min_size=PASSWORD_MIN, max_size=80), USERNAME)
def test_r_mem_2_an_accepted_password_meets_every_rule(password, username):
    if password_problem(password, password, username) is None:
        folded = password.casefold()
        assert PASSWORD_MIN <= len(password) <= PASSWORD_MAX and len(set(folded)) >= 3
        assert username_key(username) not in folded and folded not in COMMON_PASSWORDS


def test_r_mem_2_password_refusals_say_why():
    assert "at least 8" in password_problem("abc1234", "abc1234")
    assert "at most 200" in password_problem("ab1" * 100, "ab1" * 100)
    assert "not the same" in password_problem("pub-night-1", "pub-night-2")
    assert "too easy" in password_problem("abababab", "abababab")
    assert "username" in password_problem("I-am-Hana-2026", "I-am-Hana-2026", "hana")
    assert "first anyone guesses" in password_problem("Password123", "Password123")
    assert password_problem("pub-night-2026", "pub-night-2026", "hana") is None
