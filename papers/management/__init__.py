"""Management commands for papers."""
