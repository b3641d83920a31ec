"""ORCID iD parsing and validation (ISO 7064 MOD 11-2 check digit)."""

from __future__ import annotations

import re

# ASCII digits only, spelled [0-9]: Python's \d (and str.isdigit) also take other scripts'
# digits (Arabic-Indic ٠١٢…), which int() reads, so "٠٠٠٠-٠٠٠٢-١٦٩٤-٢٣٣X" passed the check
# digit and was stored as written (issue 32). An iD is 16 ASCII characters: 0-9, then 0-9 or X.
_ORCID = re.compile(r"^([0-9]{4})-?([0-9]{4})-?([0-9]{4})-?([0-9]{3}[0-9X])$")
# The URI forms in the wild: https:// or http:// or no scheme, with or without "www." (real
# records hold http://www.orcid.org/<iD>). Matched case-insensitively, ASCII only.
_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?orcid\.org/", re.IGNORECASE | re.ASCII)
# The same shapes as one JSON Schema pattern (ECMA 262), for the API's OpenAPI document: a
# prefix above (lower case), then the iD with optional hyphens; the check digit is not a pattern.
ORCID_PARAMETER_PATTERN = r"^((https?://)?(www\.)?orcid\.org/)?[0-9]{4}-?[0-9]{4}-?[0-9]{4}-?[0-9]{3}[0-9Xx]$"


class InvalidOrcid(ValueError):
    """Raised for a string that is not an ORCID iD or whose check digit is wrong."""


def orcid_check_digit(base_digits: str) -> str:
    """The ISO 7064 MOD 11-2 check character for the first 15 digits of an ORCID iD.

    ``base_digits`` is 15 decimal digits without hyphens; returns ``"0"``..``"9"`` or ``"X"``
    (see https://support.orcid.org/hc/en-us/articles/360006897674).
    """
    total = 0
    for char in base_digits:
        total = (total + int(char)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def normalize_orcid(value: str) -> str:
    """Return the ORCID iD in its stored form ``0000-0002-5250-9277``.

    Accepts the bare iD (with or without hyphens, lower-case ``x``) or a URI form:
    ``https://orcid.org/0000-0002-5250-9277``, ``http://`` or no scheme, with or without
    ``www.`` (``http://www.orcid.org/0000-0002-1825-0097``). Only ASCII digits 0-9 and a
    final X make an iD (ORCID's structure, https://support.orcid.org/hc/en-us/articles/360006897674).
    Raises :class:`InvalidOrcid` when the shape or the check digit is wrong.
    """
    text = _PREFIX.sub("", (value or "").strip(), count=1)
    text = text.strip().strip("/").upper()
    match = _ORCID.match(text)
    if not match:
        raise InvalidOrcid(f"not an ORCID iD: {value!r}")
    digits = "".join(match.groups())
    if orcid_check_digit(digits[:15]) != digits[15]:
        raise InvalidOrcid(f"ORCID iD check digit mismatch: {value!r}")
    return "-".join(match.groups())


def orcid_or_none(value: str | None) -> str | None:
    """:func:`normalize_orcid`, or ``None`` for an empty or invalid value (logged by callers)."""
    if not value:
        return None
    try:
        return normalize_orcid(value)
    except InvalidOrcid:
        return None


def orcid_is_placeholder(orcid: str) -> bool:
    """True for a valid-looking ORCID iD that identifies no one: its 15 digits before the
    check digit are all one digit (``8888-8888-8888-8880``, the iD of ORCID's own sample
    records, or ``0000-0000-0000-0001``).

    Such an iD may pass :func:`normalize_orcid` (its check digit is right) and is kept where
    it was written, but it is never identity evidence: registries copy it onto unrelated
    authors. ORC-01's ``0000-0002-1825-0097`` and the tests' ``0000-0000-`` iDs are not
    placeholders. ``orcid`` is in any form :func:`normalize_orcid` reads; anything else is
    not a placeholder (it is invalid instead).
    """
    value = orcid_or_none(orcid)
    return value is not None and len(set(value.replace("-", "")[:15])) == 1
