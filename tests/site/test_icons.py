"""``/favicon.ico`` and the apple-touch-icon answer with real images of the site's logo and
every page links them (issue 21: both were 404)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

pytestmark = pytest.mark.django_db

INK = (0x2B, 0x4C, 0x7E)  # the logo's blue (static/img/icon.svg)
PAPER = (0xFB, 0xFA, 0xF7)  # its background


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int]) -> bool:
    """Within 12 of ``colour`` in each channel (the downscaled drawing is antialiased)."""
    return all(abs(a - b) <= 12 for a, b in zip(pixel[:3], colour, strict=True))


def test_favicon_is_an_icon_of_the_logo(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert "max-age=86400" in response["Cache-Control"]
    icon = Image.open(io.BytesIO(response.content))
    assert icon.format == "ICO"
    assert icon.info["sizes"] == {(16, 16), (32, 32), (48, 48)}
    icon.size = (48, 48)
    pixels = icon.convert("RGB")
    assert _near(pixels.getpixel((24, 24)), INK)  # the centre dot
    assert _near(pixels.getpixel((24, 9)), INK)  # the ring: radius 20 of 64, so 15 px of 48 above the centre
    assert _near(pixels.getpixel((24, 3)), PAPER)  # outside the ring


@pytest.mark.parametrize("path", ["/apple-touch-icon.png", "/apple-touch-icon-precomposed.png"])
def test_apple_touch_icon_is_an_opaque_180px_png(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert (image.format, image.size, image.mode) == ("PNG", (180, 180), "RGB")
    assert _near(image.getpixel((90, 90)), INK)
    assert image.getpixel((2, 2)) == PAPER  # opaque corners: iOS rounds them itself


def test_pages_link_the_icons(client):
    html = client.get("/").content.decode()
    assert '<link rel="icon" href="/favicon.ico" sizes="48x48">' in html
    assert '<link rel="apple-touch-icon" href="/apple-touch-icon.png">' in html


def test_other_root_names_are_not_icons(client):
    assert client.get("/apple-touch-icon-120x120.png").status_code == 404
