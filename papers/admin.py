"""Admin for papers."""
