"""Models for researchers (filled by its issue)."""
