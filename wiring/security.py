"""The security headers: on every document (page, SVG) a Content-Security-Policy, frame-ancestors
and Referrer-Policy, on the service worker the part of that policy a worker obeys; on every
response nosniff and, over HTTPS, HSTS; Secure cookies over HTTPS, and ProxyFix behind a proxy.

Written here rather than with Flask-Talisman (1.1.0, August 2023): Talisman overwrites every
response's Referrer-Policy (the play pages' stricter `no-referrer` would be lost), trusts a client's
own X-Forwarded-Proto without a proxy in front, and marks only the session cookie Secure (not
Flask-Login's remember-me cookie). The few headers below need nothing it offers.
"""
import base64
import hashlib

from flask import Flask, Response, current_app, has_request_context, request
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix

# base.html's one inline script: the saved theme before the first paint (so a light-theme phone
# never flashes dark; app.js does the rest). The policy allows exactly this text by its hash.
THEME_SCRIPT = ('try{var t=localStorage.getItem("shuffleup-theme");if(t==="light"){document.documentElement.dataset'
                '.theme=t;document.querySelector(\'meta[name="theme-color"]\').content="#fbfbf8"}}catch(e){}')
THEME_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(THEME_SCRIPT.encode()).digest()).decode()

# No other inline script or style (no on…= or hx-on attributes: app.js listens instead; htmx's
# indicator styles are off in base.html's htmx-config meta and live in app.css) but the clock page's
# first-paint styles, allowed by their hash (wiring/precompressed.py); the favicon is a data: URL.
STYLE_SRC = "style-src 'self'"
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    f"script-src 'self' '{THEME_SCRIPT_HASH}'",
    STYLE_SRC,
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
# The service worker's own policy: a worker runs no inline script or style, shows no picture, is
# never framed and posts no form, so of the page's policy only what governs its fetches and scripts
# applies, and `default-src 'self'` is exactly that (connect-src and script-src fall back to it).
WORKER_POLICY = "default-src 'self'"
HSTS = "max-age=31536000"


def _secure() -> bool:
    """Served over HTTPS: the HTTPS setting says so, or this request came in by it (behind a proxy,
    ProxyFix makes request.is_secure follow its X-Forwarded-Proto)."""
    return bool(current_app.config.get("HTTPS")) or request.is_secure


class SecureCookieResponse(Response):
    """Every cookie (the session, the remember-me cookie, the member's phone cookie) is Secure when
    the page is served over HTTPS, and only then: a plain-HTTP test or LAN server still logs in."""

    def set_cookie(self, key, *args, **kwargs):
        if has_request_context() and _secure():
            kwargs["secure"] = True
        super().set_cookie(key, *args, **kwargs)


# What a browser can open as a document (a page, an SVG picture or QR code opened alone) or run as
# a worker (the service worker: its own policy governs its fetches). A style sheet, a script the
# page loads, an icon, JSON or the clock's stream is governed by the page's policy, not its own: on
# a phone with one bar of signal the ~400 bytes it would carry on each are worth saving.
DOCUMENT_TYPES = {"text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml"}
WORKER_ENDPOINTS = {"play.service_worker"}


def _headers(response: Response) -> Response:
    headers = response.headers
    if request.endpoint in WORKER_ENDPOINTS:
        headers.setdefault("Content-Security-Policy", WORKER_POLICY)
        headers.setdefault("Referrer-Policy", "same-origin")  # the referrer of the worker's fetches
    elif response.mimetype in DOCUMENT_TYPES:
        headers.setdefault("Content-Security-Policy", current_app.extensions["shuffleup_csp"])
        headers.setdefault("X-Frame-Options", "DENY")  # frame-ancestors for browsers that predate it
        headers.setdefault("Referrer-Policy", "same-origin")  # a page's stricter no-referrer stays
    headers.setdefault("X-Content-Type-Options", "nosniff")
    if _secure():
        headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def init_app(app: Flask) -> None:
    """Attach the headers (after wiring.extensions: the policy allows the first-paint styles by their
    hash) and the cookie rule; behind `PROXY_HOPS` proxies (SHUFFLEUP_PROXY_HOPS=1
    behind nginx) trust that many X-Forwarded-For/-Proto/-Host/-Port/-Prefix values."""
    app.response_class = SecureCookieResponse
    style = app.extensions.get("first_paint_css_hash")
    app.extensions["shuffleup_csp"] = CONTENT_SECURITY_POLICY.replace(
        STYLE_SRC, f"{STYLE_SRC} '{style}'") if style else CONTENT_SECURITY_POLICY
    app.jinja_env.globals["theme_script"] = Markup(THEME_SCRIPT)
    if app.config.get("HTTPS"):
        app.config["SESSION_COOKIE_SECURE"] = True
        app.config["REMEMBER_COOKIE_SECURE"] = True
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops, x_prefix=hops)
    app.after_request(_headers)
