"""Static files made small once and kept in memory: ShuffleUp's own style sheets and scripts without
their comments and indentation, then every compressible file at the strongest level of the best
encoding the browser takes (brotli, else zstd, else gzip). No request spends CPU compressing a file
again; Flask-Compress goes on compressing the pages and fragments at its fast levels.

Each static file's URL carries a hash of its bytes (`?v=…`, added by every url_for('static', …)):
under that URL the file never changes, so a browser keeps it a year without asking again (no 304s,
neither for the page nor for the service worker's precache), and a deploy that changes a file
changes its URL. A URL without the hash, or with another one (a page from before a deploy), still
gets the file as it is now, revalidated on each use as before.

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
from stat import S_ISREG

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
VERSION_ARG = "v"
# The content can never change under a hashed URL: no revalidation, not even on reload.
IMMUTABLE = "public, max-age=31536000, immutable"
# What a file under its hashed URL says to no one: ETag is validator enough, the name is in the URL,
# and no page asks for a script or style sheet in parts (a compressed body is sent whole anyway).
NOT_FOR_PINNED = ("Content-Disposition", "Last-Modified", "Accept-Ranges")
_cache: dict[tuple, bytes] = {}
_versions: dict[tuple, str] = {}


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


def static_version(path: str | None) -> str | None:
    """The hash that goes in the URL of the static file at `path` (None if there is no such file):
    the first 12 hex digits of the SHA-256 of its bytes, made once for each version of the file (its
    mtime and size), so an edited file gets a new URL without a restart."""
    try:
        stat = os.stat(path) if path else None
    except OSError:
        return None
    if stat is None or not S_ISREG(stat.st_mode):
        return None
    key = (path, stat.st_mtime_ns, stat.st_size)
    version = _versions.get(key)
    if version is None:
        with open(path, "rb") as file:
            version = _versions[key] = hashlib.sha256(file.read()).hexdigest()[:12]
    return version


def _static_path(filename: str | None) -> str | None:
    return safe_join(current_app.static_folder, filename) if filename else None


def _versioned_url(endpoint: str, values: dict) -> None:
    """url_for('static', filename=…) adds the file's hash, unless the caller gave one."""
    if endpoint == "static" and VERSION_ARG not in values:
        version = static_version(_static_path(values.get("filename")))
        if version:
            values[VERSION_ARG] = version


def _static_cached(response: Response) -> Response:
    """A static file asked for by its current hash is kept a year; by no hash or another, as before."""
    if request.endpoint != "static" or response.status_code not in (200, 304):
        return response
    given = request.args.get(VERSION_ARG)
    if given and given == static_version(_static_path(request.view_args.get("filename"))):
        response.headers["Cache-Control"] = IMMUTABLE
        for name in NOT_FOR_PINNED:
            response.headers.pop(name, None)
    return response


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
    first-paint styles go to the templates, their hash to the Content-Security-Policy (security.py).
    The hashed URLs' caching is registered before, so it runs after the compression (which turns a
    match of the ETag into a 304, its Cache-Control kept)."""
    app.url_defaults(_versioned_url)
    app.after_request(_static_cached)
    app.after_request(_static_compressed)
    css = first_paint_css(app.static_folder)
    app.jinja_env.globals["first_paint_css"] = Markup(css)
    digest = hashlib.sha256(css.encode()).digest()
    app.extensions["first_paint_css_hash"] = "sha256-" + base64.b64encode(digest).decode()
