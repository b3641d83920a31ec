"""Models for provenance (filled by its issue)."""
