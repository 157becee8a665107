"""Static files made small once and kept in memory: ShuffleUp's own style sheets and scripts without
their comments and indentation, then every compressible file at the strongest level of the best
encoding the browser takes (brotli, else zstd, else gzip). No request spends CPU compressing a file
again; Flask-Compress goes on compressing the pages and fragments at its fast levels.

Also the first-paint styles: app.css down to its FIRST_PAINT_END marker (the shell and the player's
clock), which the player's clock page inlines so its first paint needs no other download.

Measured on the player's clock page (tests/e2e/test_pwa.py): app.css 7,302 B as Flask-Compress's
zstd sends it, 4,314 B here; clock.js 7,407 → ~5,100 B.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import os

import brotli
import rcssmin
import rjsmin
from backports import zstd
from flask import Flask, Response, current_app, request
from markupsafe import Markup
from werkzeug.security import safe_join

# All three are decoded natively by every browser that sends them: the smallest first.
ENCODINGS = ("br", "zstd", "gzip")
_COMPRESS = {
    "br": lambda data: brotli.compress(data, quality=11),
    "zstd": lambda data: zstd.compress(data, level=19),
    "gzip": lambda data: gzip.compress(data, 9, mtime=0),
}
# Third-party files are served exactly as they were copied (static/vendor/README.md).
NOT_MINIFIED = ("vendor/",)
FIRST_PAINT_END = "/* ==== end of the first paint"
_cache: dict[tuple, bytes] = {}


def minify_css(text: str) -> str:
    """A style sheet without comments and runs of white space (rcssmin: strings untouched)."""
    return rcssmin.cssmin(text)


def minify_js(text: str) -> str:
    """A script without comments and white space it does not need (rjsmin: strings, template
    literals and regular expressions untouched)."""
    return rjsmin.jsmin(text)


def served(path: str, relative: str) -> bytes:
    """The file's bytes as served: minified if it is one of ShuffleUp's own style sheets or scripts."""
    with open(path, "rb") as file:
        data = file.read()
    if relative.startswith(NOT_MINIFIED):
        return data
    if relative.endswith(".css"):
        return minify_css(data.decode()).encode()
    if relative.endswith(".js"):
        return minify_js(data.decode()).encode()
    return data


def compressed(path: str, relative: str, encoding: str) -> bytes:
    """The file at `path` as served, in `encoding`: made once for each version of the file (its mtime and size)."""
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size, encoding)
    body = _cache.get(key)
    if body is None:
        body = _cache[key] = _COMPRESS[encoding](served(path, relative))
    return body


def first_paint_css(static_folder: str) -> str:
    """app.css down to its FIRST_PAINT_END marker, minified: what the clock page inlines."""
    with open(os.path.join(static_folder, "css", "app.css"), encoding="utf-8") as file:
        text = file.read()
    if FIRST_PAINT_END not in text:
        raise RuntimeError(f"static/css/app.css has lost its {FIRST_PAINT_END!r} marker")
    return minify_css(text.split(FIRST_PAINT_END, 1)[0])


def _static_compressed(response: Response) -> Response:
    if (request.endpoint != "static" or response.status_code != 200 or "Content-Encoding" in response.headers
            or response.mimetype not in current_app.config["COMPRESS_MIMETYPES"]):
        return response
    encoding = next((name for name in ENCODINGS if request.accept_encodings[name]), None)
    relative = request.view_args["filename"]
    path = safe_join(current_app.static_folder, relative)
    if encoding is None or path is None or not os.path.isfile(path):
        return response
    body = compressed(path, relative, encoding)
    response.vary.add("Accept-Encoding")
    etag, weak = response.get_etag()
    old, response.direct_passthrough = response.response, False
    response.set_data(body)
    getattr(old, "close", lambda: None)()
    response.headers["Content-Encoding"] = encoding
    if etag:
        response.set_etag(f"{etag}:{encoding}", weak=weak)
    return response.make_conditional(request)


def init_app(app: Flask) -> None:
    """Register after Flask-Compress, so this runs first (after_request runs in reverse) and it then
    leaves a static file as it is (it never compresses what says its Content-Encoding). The
    first-paint styles go to the templates, their hash to the Content-Security-Policy (security.py)."""
    app.after_request(_static_compressed)
    css = first_paint_css(app.static_folder)
    app.jinja_env.globals["first_paint_css"] = Markup(css)
    digest = hashlib.sha256(css.encode()).digest()
    app.extensions["first_paint_css_hash"] = "sha256-" + base64.b64encode(digest).decode()
