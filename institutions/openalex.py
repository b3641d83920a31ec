"""Institution facts in OpenAlex work authorships: ROR IDs and raw affiliation strings."""

from __future__ import annotations

import logging
from typing import Any

from .ror import InvalidRorId, normalize_ror_id

logger = logging.getLogger(__name__)


def authorship_ror_ids(authorship: dict[str, Any]) -> list[str]:
    """ROR IDs (bare, checked) of an OpenAlex authorship's ``institutions[].ror``, in order,
    without duplicates. An institution without a ROR ID (or with an invalid one) is skipped.

    Follows the OpenAlex Work object (https://docs.openalex.org/api-entities/works/work-object/authorship-object).
    """
    out: list[str] = []
    for institution in authorship.get("institutions") or []:
        raw = (institution or {}).get("ror")
        if not raw:
            continue
        try:
            ror_id = normalize_ror_id(raw)
        except InvalidRorId:
            logger.warning("OpenAlex institution %s: invalid ROR ID %r", institution.get("id"), raw)
            continue
        if ror_id not in out:
            out.append(ror_id)
    return out


def authorship_raw_affiliations(authorship: dict[str, Any]) -> list[str]:
    """The authorship's ``raw_affiliation_strings`` (non-empty, stripped, in order)."""
    return [s.strip() for s in authorship.get("raw_affiliation_strings") or [] if s and s.strip()]
