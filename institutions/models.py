"""Models for institutions (filled by its issue)."""
