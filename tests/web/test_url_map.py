"""The URL map is part of the contract (bookmarks, QR codes on printed cards, scripts): it changes
only on purpose. A change shows here as a diff against tests/fixtures/url_map.txt."""
from pathlib import Path

URL_MAP = Path(__file__).resolve().parent.parent / "fixtures" / "url_map.txt"


def url_map_lines(app) -> list[str]:
    """One line per route: endpoint, methods (HEAD and OPTIONS left out), rule; sorted."""
    lines = []
    for rule in app.url_map.iter_rules():
        methods = ",".join(sorted(set(rule.methods or ()) - {"HEAD", "OPTIONS"}))
        lines.append(f"{rule.endpoint} {methods} {rule.rule}")
    return sorted(lines)


def test_url_map_is_the_committed_one(app):
    assert url_map_lines(app) == URL_MAP.read_text().splitlines()
