"""Real-browser tests: the fixtures live in tests/conftest.py (one Playwright per session)."""

from tests.conftest import ARTIFACTS, CHROMIUM, screenshot

__all__ = ["ARTIFACTS", "CHROMIUM", "screenshot"]
