"""The big screen on a pub's TV (R-CLOCK-1..3, R-MEM-1): the check-in QR never covers the clock's
tiles, its digits, blinds or next level, at 1920×1080 and 1280×720."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import seed_tonight

CLOCK_PARTS = ".clock-facts > div, .clock-time, .clock-blinds, .clock-next, .clock-head, .live-bar"


@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_the_check_in_qr_never_covers_the_clock(live_server, phone, screenshot, width, height):
    _, event_id, code = seed_tonight(live_server.app)
    tv = phone(viewport={"width": width, "height": height}, device_scale_factor=1, is_mobile=False,
               has_touch=False)
    tv.goto(f"{live_server.url}/events/{event_id}/screen?code={code}")
    qr = tv.locator(".screen-qr")
    expect(qr).to_be_visible()
    expect(tv.locator(".clock-facts")).to_contain_text("Next break")
    screenshot(tv, f"big-screen-{width}x{height}")
    overlaps = tv.evaluate("""([qrSel, parts]) => {
        const q = document.querySelector(qrSel).getBoundingClientRect();
        return [...document.querySelectorAll(parts)].filter(el => el.offsetParent).filter(el => {
          const r = el.getBoundingClientRect();
          return r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom;
        }).map(el => el.className || el.textContent.trim().slice(0, 20));
    }""", [".screen-qr", CLOCK_PARTS])
    assert overlaps == []
    qr_box = qr.bounding_box()
    assert qr_box["width"] >= 150  # still big enough to scan from across the bar
    # no scrolling on a TV
    assert tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [
        width, height]
