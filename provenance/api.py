"""provenance API (filled in below)."""

from ninja import Router

router = Router(tags=["provenance"])
