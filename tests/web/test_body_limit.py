"""The request-body limit (wiring/body_limit.py): a small body everywhere, refused from its
Content-Length before anything reads it (the CSRF check included) and while a chunked body streams;
larger only on an organiser's file routes, and only once logged in. A refusal is the app's 413 page
(JSON under /api/) and writes nothing."""
import io

import pytest

from tests.conftest import csrf_token, login
from tests.fixtures.pages import html
from tests.fixtures.rows import every_row

MB = 1024 * 1024
DATA = "/organiser/harbour-league/data"


class Body(io.RawIOBase):
    """A request body that counts what is read of it: `endless`, a chunked body that never ends;
    otherwise one that must not be read at all (the test fails at the first byte read)."""

    def __init__(self, endless: bool = False):
        self.endless = endless
        self.read_bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        if not self.endless:
            raise AssertionError("the body was read")
        if self.read_bytes > 300 * MB:  # the limit did not hold: stop the test rather than the machine
            return 0
        buffer[:] = b"a" * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


def huge_post(client, path, body=None, **headers):
    """An anonymous 250 MB POST: the length says so; the body is never there to be read."""
    body = body or Body()
    response = client.post(path, content_type="application/x-www-form-urlencoded", headers=headers,
                           environ_overrides={"wsgi.input": body, "CONTENT_LENGTH": str(250 * MB)})
    return response, body


def test_an_anonymous_250_mb_post_to_login_is_refused_without_reading_it(client, organiser):
    before = every_row()
    response, body = huge_post(client, "/login")
    assert response.status_code == 413 and body.read_bytes == 0
    assert "larger than this page takes" in html(response) and response.headers["Cache-Control"] == "no-store"
    assert every_row() == before


@pytest.mark.parametrize("path", ["/me/claim", "/me/push", "/check-in/any-code", "/events/1/deal",
                                  "/organiser/harbour-league/import",
                                  "/organiser/harbour-league/results/preview"])
def test_every_route_refuses_a_huge_body_before_the_csrf_check_reads_it(client, organiser, path):
    """The file routes too, for anyone not logged in: their larger limit is an organiser's."""
    response, body = huge_post(client, path)
    assert response.status_code == 413 and body.read_bytes == 0


def test_the_api_refuses_a_huge_body_as_json(client):
    response, body = huge_post(client, "/api/time")
    assert response.status_code == 413 and body.read_bytes == 0
    assert response.is_json and "larger" in response.get_json()["error"]


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(app, client, organiser):
    """No Content-Length: Werkzeug stops reading at the limit and the answer is the same 413."""
    before = every_row()
    body = Body(endless=True)
    response = client.post("/login", content_type="application/x-www-form-urlencoded",
                           headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input": body, "wsgi.input_terminated": True})
    assert response.status_code == 413
    assert body.read_bytes <= app.config["REQUEST_BODY_MAX"] + 64 * 1024  # the limit and one read's buffer
    assert every_row() == before


def test_a_body_at_the_limit_is_read_and_one_byte_over_is_not(app, client, organiser):
    token = csrf_token(client)
    form = f"csrf_token={token}&username=organiser&password=pw-organiser&pad="
    limit = app.config["REQUEST_BODY_MAX"]
    at_limit = form + "x" * (limit - len(form))
    assert client.post("/login", data=at_limit, content_type="application/x-www-form-urlencoded").status_code == 302
    over = client.post("/login", data=at_limit + "x", content_type="application/x-www-form-urlencoded")
    assert over.status_code == 413


def test_the_largest_structure_the_editor_holds_is_saved_under_the_limit(app, client, night):
    """The blind structure editor at its 100 items (league/structures.MAX_ITEMS), every break's label
    and colour-up note at full length in a script the browser sends as 9 bytes a character: the
    largest form the app draws (61 KB), saved."""
    from league import structures
    login(client, "host", "pw-host")
    page = f"/host/events/{night.id}/structure"
    version = night.clock_version
    fields = [("csrf_token", csrf_token(client, page)), ("version", str(version)), ("op", "save")]
    for n in range(structures.MAX_ITEMS):
        if n % 2 == 0 and n:  # levels first and last, a break between each two
            fields += [("kind", "break"), ("label", "漢" * structures.MAX_LABEL_LENGTH), ("minutes", "180"),
                       ("colour_up", "漢" * structures.MAX_COLOUR_UP_LENGTH), ("small_blind", ""),
                       ("big_blind", ""), ("ante", "")]
        else:
            fields += [("kind", "level"), ("minutes", "180"), ("small_blind", str(500_000 + n)),
                       ("big_blind", str(1_000_000 + n)), ("ante", str(1_000_000 + n)), ("label", ""),
                       ("colour_up", "")]
    from urllib.parse import urlencode
    body = urlencode(fields)
    assert 60_000 < len(body) < app.config["REQUEST_BODY_MAX"] / 2  # with room to spare
    response = client.post(page, data=body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200 and "Saved." in html(response)


def test_an_organiser_uploads_a_file_larger_than_a_form_and_an_anonymous_post_may_not(app, client, organiser):
    """The results CSV route takes 4 MB from an organiser; the same body from nobody is refused."""
    csv = "date,start_time,venue,event_type,position,player,status\n" + "#" * (200 * 1024)
    anonymous = app.test_client()
    refused = anonymous.post("/organiser/harbour-league/results/preview", content_type="multipart/form-data",
                             data={"csrf_token": csrf_token(anonymous), "file": (io.BytesIO(csv.encode()), "r.csv")})
    assert refused.status_code == 413
    login(client, "organiser", "pw-organiser")
    taken = client.post("/organiser/harbour-league/results/preview", content_type="multipart/form-data",
                        data={"csrf_token": csrf_token(client, DATA), "file": (io.BytesIO(csv.encode()), "r.csv")})
    assert taken.status_code == 422 and "line" in html(taken)  # read and checked: not a results file


def test_the_file_routes_own_limit_holds_for_an_organiser(app, client, organiser):
    login(client, "organiser", "pw-organiser")
    before = every_row()
    response, body = huge_post(client, "/organiser/harbour-league/import")
    assert response.status_code == 413 and body.read_bytes == 0  # 250 MB is over the league file's 64 MB
    assert every_row() == before
