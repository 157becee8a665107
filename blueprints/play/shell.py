"""The app shell that makes the pages an installable app: the web app manifest, the
service worker at the site root, and the offline page it shows for a page it never saved."""
import hashlib
import json
import os

from flask import current_app, make_response, render_template, url_for

from blueprints.play.base import bp
from wiring.precompressed import minify_js

# The dark theme's background: the manifest's colours must match base.html and app.css, or the
# splash screen flashes another colour before the first page paints.
DARK_BG = "#101418"
# What the service worker precaches (cache-first afterwards): what every player's page needs (the
# styles and the shell's script) and the live clock's script, so that a phone's first load costs
# no byte it would not download anyway. Every other static file is cached the first time a page
# asks for it: htmx (16 KB) only on a page that uses it (never the clock's, nor the offline page),
# the icons never on pub wifi, the host's and the organiser's own files never on a player's phone.
PRECACHE = ("css/app.css", "js/app.js", "js/clock.js")
# Templates whose output the worker caches (the offline page): they count in its version too.
SHELL_TEMPLATES = ("base.html", "play/offline.html", "play/sw.js")


def app_shell(app, static_folder: str | None = None) -> dict:
    """The service worker's version and precache list: a hash of every static file and of the
    templates of the offline page, so a deploy that changes any of them gives phones a new worker
    and a fresh cache (no phone keeps yesterday's CSS or script)."""
    static = static_folder or app.static_folder
    digest = hashlib.sha256()
    for folder, _, names in sorted(os.walk(static)):
        for name in sorted(names):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, static).replace(os.sep, "/")
            with open(path, "rb") as file:
                digest.update(relative.encode() + b"\0" + file.read() + b"\0")
    for name in SHELL_TEMPLATES:
        source, _, _ = app.jinja_loader.get_source(app.jinja_env, name)
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    return {"version": digest.hexdigest()[:16], "precache": sorted(PRECACHE)}


def _remember_shell(state):
    """Once, at app start: hashing the files on every request to /sw.js would cost a disk read of each."""
    state.app.extensions["shuffleup_shell"] = app_shell(state.app)


bp.record_once(_remember_shell)


@bp.route("/manifest.webmanifest")
def manifest():
    """PWA: the web app manifest: installable, standalone, opening on the home page."""
    home = url_for("play.home")
    icon = lambda name: url_for("static", filename=f"icons/{name}")  # noqa: E731
    body = {
        "id": home, "name": "ShuffleUp pub poker", "short_name": "ShuffleUp",
        "description": "Your pub poker league: the live clock, standings, finals and nights.",
        "lang": "en", "start_url": home, "scope": home, "display": "standalone",
        "background_color": DARK_BG, "theme_color": DARK_BG, "categories": ["games", "sports"],
        "icons": [
            {"src": icon("icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": icon("icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": icon("icon-maskable-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "maskable"},
            {"src": icon("icon-maskable-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }
    response = current_app.response_class(json.dumps(body, indent=1), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/sw.js")
def service_worker():
    """PWA: the service worker, from the site root so that its scope is every page.

    no-cache: the browser asks again on every check, so a deploy reaches phones on their next visit.
    """
    shell = current_app.extensions["shuffleup_shell"]
    offline = url_for("play.offline")
    body = render_template(
        "play/sw.js", version=shell["version"], offline=offline,
        precache=[url_for("static", filename=name) for name in shell["precache"]] + [offline],
        static_prefix=url_for("static", filename=""), api_prefix=url_for("play.home") + "api/")
    response = make_response(minify_js(body))  # as the static scripts are: comments are for readers, not phones
    response.mimetype = "text/javascript"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/offline")
def offline():
    """PWA: what the service worker shows for a page it cannot fetch and never saved."""
    return render_template("play/offline.html")
