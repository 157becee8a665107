"""Static files as phones download them (wiring/precompressed.py): ShuffleUp's own styles and scripts
minified, every compressible file in the best encoding the browser takes at the strongest level,
revalidated by its own ETag (a 304, no body); third-party files byte for byte; and the clock page's
first-paint styles, inline and allowed by their hash in the Content-Security-Policy."""
import gzip
from pathlib import Path

import brotli
import pytest
from backports import zstd

from wiring.precompressed import FIRST_PAINT_END, first_paint_css, minify_css, minify_js

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
