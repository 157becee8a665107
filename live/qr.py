"""QR codes as SVG (the qrcode package), cached: the same link always gives the same picture."""
from functools import lru_cache

import qrcode
from qrcode.image.svg import SvgPathImage


@lru_cache(maxsize=256)
def svg(data: str) -> str:
    """An SVG QR code for `data` (a check-in link or a member card), ~10 KB, drawn once per link."""
    image = qrcode.make(data, image_factory=SvgPathImage, box_size=10, border=2)
    return image.to_string(encoding="unicode")
