"""Template tags for papers."""
