"""Static files as phones download them (wiring/precompressed.py): ShuffleUp's own styles and scripts
minified, every compressible file in the best encoding the browser takes at the strongest level,
revalidated by its own ETag (a 304, no body); third-party files byte for byte; the clock page's
first-paint styles, inline and allowed by their hash in the Content-Security-Policy; every static
URL carrying its file's hash, kept a year under it (the worker's precache the same URLs), a stale or
garbled hash still answered; and the headers that say nothing left off (wiring/wire_headers.py)."""
import gzip
import json
import re
import shutil
from pathlib import Path

import brotli
import pytest
from backports import zstd
from flask import request, url_for

from wiring.precompressed import FIRST_PAINT_END, IMMUTABLE, first_paint_css, minify_css, minify_js, static_version

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
DECODE = {"br": brotli.decompress, "zstd": zstd.decompress, "gzip": gzip.decompress}


@pytest.mark.parametrize("accept, encoding", [
    ("gzip, deflate, br, zstd", "br"), ("gzip, deflate, zstd", "zstd"), ("gzip, deflate", "gzip")])
def test_a_static_file_in_the_best_encoding_taken_minified_and_revalidated(client, accept, encoding):
    response = client.get("/static/js/clock.js", headers={"Accept-Encoding": accept})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in response.headers["Vary"]
    body = DECODE[encoding](response.data).decode()
    assert body == minify_js((STATIC / "js" / "clock.js").read_text())
    assert len(response.data) == int(response.headers["Content-Length"]) < len(body) / 2
    again = client.get("/static/js/clock.js", headers={"Accept-Encoding": accept,
                                                        "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert response.headers["ETag"].endswith(f':{encoding}"')


def test_plain_for_a_browser_that_takes_no_encoding_and_vendor_files_as_copied(client):
    plain = client.get("/static/css/app.css", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    assert plain.get_data() == (STATIC / "css" / "app.css").read_bytes()
    htmx = client.get("/static/vendor/htmx-2.0.11.min.js", headers={"Accept-Encoding": "br"})
    assert brotli.decompress(htmx.data) == (STATIC / "vendor" / "htmx-2.0.11.min.js").read_bytes()
    icon = client.get("/static/icons/icon-192.png", headers={"Accept-Encoding": "br"})
    assert "Content-Encoding" not in icon.headers  # a PNG is compressed already


def test_minifying_keeps_strings_and_code():
    css = '/* a */ .a  >  .b ,\n .c { content: "x ,  /* y */ ;" ;  margin : 0  auto ; }\n@media (max-width: 9px) { .d { e: f } }'
    assert minify_css(css) == '.a>.b,.c{content:"x ,  /* y */ ;";margin:0 auto}@media (max-width:9px){.d{e:f}}'
    js = ('// head\nconst a = "// not a comment";  // a comment\n  /* block */ const b = `line 1\n    line 2 ${x}  // no`;\n\n'
          'const c = x => x / 2; const re = /\\//g;\nconst url = "http://example.org";')
    assert minify_js(js) == ('const a="// not a comment";const b=`line 1\n    line 2 ${x}  // no`;'
                             'const c=x=>x/2;const re=/\\//g;const url="http://example.org";')


def test_the_clock_page_inlines_its_first_paint_styles_allowed_by_their_hash(app, client):
    css = first_paint_css(str(STATIC))
    assert FIRST_PAINT_END in (STATIC / "css" / "app.css").read_text()
    assert ".clock-time" in css and ".live-bar" in css and "/*" not in css
    assert ".live.compact" not in css  # the host's page: after the marker
    policy = client.get("/").headers["Content-Security-Policy"]
    assert f"style-src 'self' '{app.extensions['first_paint_css_hash']}'" in policy


HASHED_URL = re.compile(r'(?:src|href)="(/static/[^"?]+\?v=[0-9a-f]{12})"')


def _url(app, filename: str) -> str:
    with app.test_request_context():
        return url_for("static", filename=filename)


@pytest.mark.parametrize("accept", ["br", "identity"])
def test_a_hashed_url_is_kept_a_year_and_never_asked_again(app, client, accept):
    url = _url(app, "js/clock.js")
    assert url == f"/static/js/clock.js?v={static_version(str(STATIC / 'js' / 'clock.js'))}"
    response = client.get(url, headers={"Accept-Encoding": accept})
    assert response.status_code == 200 and response.headers["Cache-Control"] == IMMUTABLE
    assert IMMUTABLE == "public, max-age=31536000, immutable"
    for name in ("Content-Disposition", "Last-Modified", "Accept-Ranges"):
        assert name not in response.headers, name  # the URL pins the content: nothing to say
    # The same whoever asks: no Vary: Cookie (a login between the page and the worker's install
    # would make the browser ask again), Accept-Encoding kept.
    assert response.headers["Vary"] == "Accept-Encoding"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    again = client.get(url, headers={"Accept-Encoding": accept, "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Cache-Control"] == IMMUTABLE


def test_every_static_url_carries_its_hash(app, client, night):
    with app.test_request_context():
        assert url_for("static", filename="icons/icon-192.png").startswith("/static/icons/icon-192.png?v=")
        assert url_for("static", filename="js/app.js", v="given") == "/static/js/app.js?v=given"
        assert url_for("static", filename="") == "/static/"  # a folder (the worker's prefix): no hash
        assert url_for("static", filename="js/gone.js") == "/static/js/gone.js"  # no such file: no hash
    html = client.get(f"/events/{night.id}").get_data(as_text=True)
    assert {url.partition("?")[0] for url in HASHED_URL.findall(html)} >= {
        "/static/css/app.css", "/static/js/app.js", "/static/js/clock.js"}
    assert not re.search(r'(?:src|href)="/static/[^"?]+"', html)  # no unhashed static URL


def test_a_changed_file_changes_its_url(app, tmp_path, monkeypatch):
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    monkeypatch.setattr(app, "static_folder", str(static))
    before = _url(app, "css/app.css")
    assert before == _url(app, "css/app.css")  # the same file, the same URL
    script = _url(app, "js/app.js")
    with open(static / "css" / "app.css", "a") as file:
        file.write("\n.a-deploy { color: red }\n")
    after = _url(app, "css/app.css")
    assert after != before and after.startswith("/static/css/app.css?v=")
    assert _url(app, "js/app.js") == script  # only the changed file's URL moves


def test_the_workers_precache_is_the_pages_urls(app, client, night):
    script = client.get("/sw.js").get_data(as_text=True)
    precache = json.loads(re.search(r"const PRECACHE=(\[.*?\]);", script).group(1))
    clock_page = set(HASHED_URL.findall(client.get(f"/events/{night.id}").get_data(as_text=True)))
    home_page = set(HASHED_URL.findall(client.get("/").get_data(as_text=True)))
    assert set(precache) == {*(url for url in clock_page if "/js/clock.js" in url or "/app." in url), "/offline"}
    assert {url for url in home_page if "/app." in url} <= set(precache)  # htmx is not precached
    # Taken from the HTTP cache at install (the page has just loaded them); the offline page asked again.
    assert 'url===OFFLINE?new Request(url,{cache:"no-cache"}):url' in script


@pytest.mark.parametrize("query", [
    "v=000000000000", "v=", "v=%00", "v=%ff%fe", "v=<script>", "v=" + "a" * 5000, "v=a&v=b", "v[]=1", "w=1"])
def test_a_stale_or_garbled_hash_still_gets_the_file_revalidated(app, client, query):
    response = client.get(f"/static/js/app.js?{query}", headers={"Accept-Encoding": "br"})
    assert response.status_code == 200, query
    assert response.headers["Cache-Control"] == "no-cache", query  # never kept a year under a wrong hash
    assert brotli.decompress(response.data).decode() == minify_js((STATIC / "js" / "app.js").read_text())


@pytest.mark.parametrize("path", [
    "/static/js/gone.js?v=000000000000", "/static/../app.py?v=1", "/static/%2e%2e/app.py?v=1",
    "/static/js/?v=1", "/static/js%00.js?v=1"])
def test_a_hash_on_no_such_file_is_a_404(client, path):
    assert client.get(path).status_code == 404, path


def test_no_second_date_and_no_vary_on_what_is_never_stored(client):
    # The server writes the Date itself (the test client writes none): the app adds no second one.
    page = client.get("/", headers={"Accept-Encoding": "zstd"})
    assert page.headers["Content-Encoding"] == "zstd" and "Date" not in page.headers
    assert page.headers["Vary"] == "Accept-Encoding, Cookie"  # a page may show who is logged in
    static = client.get("/static/js/app.js", headers={"Accept-Encoding": "br"})
    assert "Date" not in static.headers
    time = client.get("/api/time")
    assert time.headers["Cache-Control"] == "no-store" and "Vary" not in time.headers


def test_a_static_file_that_sets_a_cookie_is_never_kept_by_a_shared_cache(app, client):
    """A login's remember-me cookie can ride on whatever response follows (Flask-Login sets it in an
    after-request hook): on a static file kept a year by anyone, a proxy would hand it to the next
    phone. Such a response is private and asked again; the same file without a cookie is not."""
    url = _url(app, "js/clock.js")

    @app.after_request
    def remember(response):
        if response.status_code == 200 and request.args.get("login"):
            response.set_cookie("remember_token", "a player's login")
        return response

    with_cookie = client.get(url + "&login=1")
    assert "remember_token" in with_cookie.headers["Set-Cookie"]
    assert with_cookie.headers["Cache-Control"] == "private, no-cache"
    assert client.get(url).headers["Cache-Control"] == IMMUTABLE
