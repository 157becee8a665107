"""One blueprint per user (host, play, organiser) plus live (SSE and JSON) and auth."""
from flask import make_response, render_template, request


def page_or_fragment(page: str, fragment: str, status: int = 200, **context):
    """Render the fragment alone for an htmx request, else the full page that includes it.

    The same URL answers both, so the response says it varies on HX-Request (no cache may serve
    a fragment as a page, or the reverse). A history restore asks for the full page.
    """
    wants_fragment = request.headers.get("HX-Request") == "true" and not request.headers.get(
        "HX-History-Restore-Request")
    response = make_response(render_template(fragment if wants_fragment else page, **context), status)
    response.vary.add("HX-Request")
    return response


def neighbours(periods: list[str], period: str) -> dict[str, str | None]:
    """The pager's `newer` and `older` periods (months or years) around `period` among `periods`
    (newest first), counting `period` even when it has no results of its own."""
    periods = periods if period in periods else sorted({*periods, period}, reverse=True)
    at = periods.index(period)
    return {"newer": periods[at - 1] if at > 0 else None,
            "older": periods[at + 1] if at + 1 < len(periods) else None}
