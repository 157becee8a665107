"""Refusals a person reads (blueprints/errors.py): a page in the app's layout at phone width saying
what happened and what to do next; the refusal alone for htmx; JSON for scripts and /api/."""
import pytest
from werkzeug.exceptions import abort

from tests.conftest import csrf_token, login, make_app
from tests.fixtures.host import host_op, new_night, the_night
from tests.fixtures.pages import html, text
from wiring.extensions import db

HX = {"HX-Request": "true"}


def check_page(response, status, title, *says):
    """A refusal as a page: its status, the app's own layout at phone width, the heading, the words."""
    page = text(response)
    assert response.status_code == status
    assert response.headers["Cache-Control"] == "no-store"
    assert '<meta name="viewport" content="width=device-width' in page and 'class="bar"' in page
    assert f"<title>{title} · ShuffleUp</title>" in page and f"<h1>{title}</h1>" in page
    assert 'role="alert"' in page
    for words in says:
        assert words in page, words
    return page


def test_an_unknown_address_is_a_page_that_says_where_to_go(client):
    check_page(client.get("/no/such/page"), 404, "Not found", "the link is old or mistyped",
               "Start again from the home page", 'href="/"')


def test_a_closed_check_in_link_says_to_ask_the_host(client):
    check_page(client.get("/check-in/NOPE"), 404, "Not found",
               "This check-in link has ended or is wrong: ask the host for tonight's QR code.")


def test_a_cancelled_nights_check_in_link_gives_the_reason(app, client, rose):
    login(client, "host", "pw-host")
    assert new_night(client, rose).status_code == 303
    night = the_night()
    assert client.post(f"/host/events/{night.id}/cancel", data={
        "csrf_token": csrf_token(client, "/host/"), "reason": "The pub flooded"}).status_code == 303
    page = check_page(app.test_client().get(f"/check-in/{night.check_in_code}"), 410, "This has closed",
                      "The pub flooded", "Ask the host for tonight's QR code")
    assert "What this link led to has closed" not in page  # the view's own reason, not the stock one


def test_a_hosts_login_on_an_organiser_page_is_told_it_is_not_theirs(client, night):
    login(client, "host", "pw-host")
    page = check_page(client.get("/organiser/"), 403, "Not for this login", "Log in as the person who runs it")
    assert ">Log in</a>" not in page  # already logged in: no login button, the home page


def test_a_wrong_method_says_so_and_keeps_allow(client):
    response = client.get("/logout")
    check_page(response, 405, "Not from here", "use the page's own buttons")
    assert "POST" in response.headers["Allow"]


def test_a_stale_form_is_a_plain_400_page_and_changes_nothing(client, organiser):
    check_page(client.post("/login", data={"username": "organiser", "password": "pw-organiser"}), 400,
               "That didn't make sense", "This page was open too long", "reload the page")
    assert "Log out" not in html(client.get("/"))


def test_too_many_logins_is_a_page_with_the_wait(client, organiser):
    token = csrf_token(client)
    for _ in range(10):
        client.post("/login", data={"username": "organiser", "password": "no", "csrf_token": token})
    check_page(client.post("/login", data={"username": "organiser", "password": "no", "csrf_token": token}),
               429, "Too many tries", "Wait a minute, then try again.")


def test_a_refusal_with_no_words_of_its_own_says_werkzeugs(app, client):
    app.add_url_rule("/teapot", view_func=lambda: abort(418))
    check_page(client.get("/teapot"), 418, "I'm a teapot", "Go back, reload the page")


def test_a_name_in_the_reason_is_text(client):
    page = html(client.get("/leagues/O'Brien <b>"))
    assert "<b>" not in page.split("<main", 1)[1] and "O&#39;Brien &lt;b&gt;" in page


@pytest.fixture
def faulty(db_path):
    """An app whose /boom fails as a bug would, and /busy refuses with 503, as a server does (the
    tests' app lets exceptions through to the test)."""
    app = make_app(db_path, PROPAGATE_EXCEPTIONS=False)

    def boom():
        raise RuntimeError("a bug")
    app.add_url_rule("/boom", view_func=boom)
    app.add_url_rule("/busy", view_func=lambda: abort(503))
    with app.app_context():
        yield app
        db.session.remove()


def test_a_fault_is_a_500_page_that_says_to_reload(faulty):
    client = faulty.test_client()
    check_page(client.get("/boom"), 500, "Something went wrong on our side",
               "may not have been saved", "Reload the page", 'href="/boom">Try again</a>')
    check_page(client.get("/busy"), 503, "Back in a moment", "Try again in a few seconds.")


def test_htmx_gets_the_refusal_alone(client):
    response = client.get("/no/such/page", headers=HX)
    fragment = html(response)
    assert response.status_code == 404 and "HX-Request" in response.headers["Vary"]
    assert response.headers["HX-Reswap"] == "none"  # shown atop the form tapped, in place of nothing
    assert "<html" not in fragment and 'role="alert"' in fragment and "the link is old or mistyped" in fragment


def test_htmx_refusals_of_a_view_keep_their_own_fragment(client, night):
    login(client, "host", "pw-host")
    response = host_op(client, night, "bust:999999")
    assert response.status_code == 422 and 'id="players"' in html(response)  # the roster's own refusal


def test_scripts_get_json(client):
    for response in (client.get("/api/no/such"), client.get("/no/such/page", headers={"Accept": "application/json"}),
                     client.get("/events/999999/screen", headers={"Accept": "application/json"})):
        assert response.status_code == 404 and response.is_json, response.get_data(as_text=True)
        assert response.get_json()["error"]
    assert client.get("/api/events/999999/clock").get_json() == {"error": "There is no night number 999999."}
