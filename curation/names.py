"""What the researcher who claimed a record does with its names (issue 31): add a name, choose the one shown.

A name the owner adds is kept in ``Researcher.declared_names``, which
:func:`researchers.matching_common.researchers_refresh` unions into ``name_variants`` on
every re-run (so name search finds it) and a merge gives the survivor. The display name is
chosen among the record's names or typed (a typed one is declared too); matching never sets
the display name of an existing record. Each action is a :class:`~curation.models.CurationRecord`
(``name_variant``, ``display_name``) with the researcher states before and after, which an
editor can undo (:func:`curation.undo.curation_undo`), and an ``author_attestation`` signed
into each of the record's papers (:func:`curation.claims.claim_attest`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from papers.text import make_slug
from researchers.matching_common import researchers_refresh
from researchers.models import Researcher

from .claims import claim_attest, claim_of_owner
from .errors import CurationConflict, CurationError
from .models import CurationRecord, ResearcherClaim
from .records import lock_researchers, next_record_id, researcher_states, write_record

NAME_REASON = "Name added by the researcher"
DISPLAY_NAME_REASON = "Display name chosen by the researcher"
# The longest name taken (the display name's column); a record declares at most this many
# names, far more than any person writes theirs.
NAME_MAX_LENGTH = 300
DECLARED_NAMES_MAX = 50
# Unicode categories refused in a name: control characters, surrogates, private use,
# unassigned code points, line and paragraph separators. Format characters (Cf) stay: the
# zero-width non-joiner is part of Persian names.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
# Of the format characters, the bidirectional embeddings, overrides and isolates (UAX #9
# explicit formatting) are refused: an unclosed U+202E reverses the rest of the line the
# name is shown in, and "\u202enilekciA ewU" reads "Uwe Aickelin". The marks (U+200E,
# U+200F, U+061C) stay: right-to-left names use them.
REFUSED_CHARACTERS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NAME_KINDS = (CurationRecord.Kind.NAME_VARIANT, CurationRecord.Kind.DISPLAY_NAME)
# The researcher columns an undo writes back only where the undone record changed them
# (:func:`name_fields_kept`).
NAME_FIELDS = ("display_name", "slug", "declared_names")


def name_clean(raw: str) -> str:
    """A name as typed, made storable: Unicode NFC, runs of whitespace (tabs and line breaks
    included) one space, stripped.

    Accents, other scripts, punctuation and TeX (``M{\\"u}ller``) are kept as written (pages
    escape them). Raises :class:`CurationError` for an empty name, one longer than
    :data:`NAME_MAX_LENGTH` characters, one holding a character of
    :data:`REFUSED_CATEGORIES` or :data:`REFUSED_CHARACTERS` (named by its code point) or
    one without a letter.
    """
    name = unicodedata.normalize("NFC", raw or "")
    for char in name:
        refused = unicodedata.category(char) in REFUSED_CATEGORIES or char in REFUSED_CHARACTERS
        if refused and char not in "\t\n\r":
            raise CurationError(f"a name cannot hold the character U+{ord(char):04X}")
    name = " ".join(name.split())
    if not name:
        raise CurationError("type a name")
    if len(name) > NAME_MAX_LENGTH:
        raise CurationError(f"a name has at most {NAME_MAX_LENGTH} characters (this one has {len(name)})")
    if not any(unicodedata.category(char).startswith("L") for char in name):
        raise CurationError("a name needs at least one letter")
    return name


def researcher_names(researcher: Researcher) -> list[str]:
    """The record's names, each once: the display name first, then its variants and
    declared names, sorted case-insensitively."""
    others = {*researcher.name_variants, *researcher.declared_names} - {researcher.display_name}
    return [researcher.display_name, *sorted(others, key=lambda n: (n.casefold(), n))]


@dataclass
class NamesPlan:
    """An owner's name action :func:`names_check` accepted: the user's approved ``claim`` and
    the locked ``researcher`` it acts on (the claimed record, or the survivor it was merged into)."""

    claim: ResearcherClaim
    researcher: Researcher


def names_check(*, user, researcher_id: int) -> NamesPlan:
    """Check that ``user`` owns researcher ``researcher_id`` (an approved claim on it or on a
    record merged into it: :func:`curation.claims.claim_owner`) and lock it. Must run inside
    a transaction; writes nothing. Raises :class:`CurationError` when the record does not
    exist or the user has not claimed it, :class:`CurationConflict` when it was merged away."""
    rid = int(researcher_id)
    researcher = lock_researchers([rid]).get(rid)
    # A missing record has no owner: refused as anyone's.
    claim = claim_of_owner(user, rid, may="change its names")
    if researcher.merged_into_id:
        raise CurationConflict(f"researcher {rid} was merged away")
    return NamesPlan(claim, researcher)


def _declared_with(researcher: Researcher, name: str) -> list[str]:
    """The record's declared names with ``name``; raises :class:`CurationError` past
    :data:`DECLARED_NAMES_MAX`."""
    if len(researcher.declared_names) >= DECLARED_NAMES_MAX:
        raise CurationError(f"a profile holds at most {DECLARED_NAMES_MAX} names of your own")
    return sorted({*researcher.declared_names, name})


def _names_write(
    plan: NamesPlan, *, user, kind: str, name: str, declared: list[str], display: bool
) -> CurationRecord:
    """Write the new ``declared`` names (and ``name`` as the display name, with its slug,
    when ``display``), refresh the variants, sign and record it."""
    researcher, claim = plan.researcher, plan.claim
    rid = researcher.pk
    before = researcher_states([rid])
    update: dict = {"declared_names": declared, "modified_at": timezone.now()}
    if display:
        update |= {"display_name": name, "slug": make_slug(name, fallback="researcher")}
    Researcher.objects.filter(pk=rid).update(**update)
    researchers_refresh(researcher_ids=[rid])
    after = researcher_states([rid])
    record_id = next_record_id()
    events = claim_attest(
        record_id=record_id,
        researcher_id=rid,
        strong=claim.strong,
        orcid=claim.orcid,
        attestation=CurationRecord.Kind(kind).value,  # a plain str: the payload is signed JSON
        extra={"name": name},
    )
    return write_record(
        record_id=record_id,
        kind=kind,
        editor=user,
        reason=NAME_REASON if kind == CurationRecord.Kind.NAME_VARIANT else DISPLAY_NAME_REASON,
        researcher_id=rid,
        researcher_ids=[rid],
        changes={
            "researcher": rid,
            "claim": claim.pk,
            "strong": claim.strong,
            "name": name,
            "declared": declared != list(researcher.declared_names),
            **({"display_name": {"from": researcher.display_name, "to": name}} if display else {}),
            "before": before,
            "after": after,
            "authorships": [],
            "identities": [],
            "attestations": len(events),
        },
        event=events[0] if events else "",
    )


def researcher_name_add(*, user, researcher_id: int, name: str) -> CurationRecord:
    """The owner of researcher ``researcher_id`` adds ``name`` (cleaned by
    :func:`name_clean`) to its names: declared, so every matching re-run keeps it among the
    variants and name search finds it. Returns the ``kind=name_variant``
    :class:`CurationRecord` (undoable: the names come back as they were); its signed
    ``author_attestation`` (``"attestation": "name_variant"``, ``"name"``) is on each of the
    record's papers. Raises :class:`CurationError` for a name :func:`name_clean` refuses, one
    the record has already (display name, variant or declared) or one too many
    (:data:`DECLARED_NAMES_MAX`); errors of :func:`names_check`."""
    name = name_clean(name)
    with transaction.atomic():
        plan = names_check(user=user, researcher_id=researcher_id)
        if name in researcher_names(plan.researcher):
            raise CurationError(f"“{name}” is one of this profile's names already")
        declared = _declared_with(plan.researcher, name)
        kind = CurationRecord.Kind.NAME_VARIANT
        return _names_write(plan, user=user, kind=kind, name=name, declared=declared, display=False)


def researcher_display_name_choose(*, user, researcher_id: int, name: str) -> CurationRecord:
    """The owner of researcher ``researcher_id`` makes ``name`` (cleaned by :func:`name_clean`)
    its display name: one of its names, or a new one, which is declared too. The slug
    follows (``/researchers/<id>-<old slug>`` answers 301 to the new page). Returns the
    ``kind=display_name`` :class:`CurationRecord` (undoable: name, slug and names come back),
    signed on each paper as ``"attestation": "display_name"``. Raises
    :class:`CurationError` for a name :func:`name_clean` refuses or the display name already;
    errors of :func:`names_check`."""
    name = name_clean(name)
    with transaction.atomic():
        plan = names_check(user=user, researcher_id=researcher_id)
        researcher = plan.researcher
        if name == researcher.display_name:
            raise CurationError(f"“{name}” is the display name already")
        known = name in {*researcher.name_variants, *researcher.declared_names}
        declared = list(researcher.declared_names) if known else _declared_with(researcher, name)
        kind = CurationRecord.Kind.DISPLAY_NAME
        return _names_write(plan, user=user, kind=kind, name=name, declared=declared, display=True)


def name_fields_kept(before: dict[str, Any], after: dict[str, Any] | None) -> set[str]:
    """The :data:`NAME_FIELDS` of one researcher's snapshots that the record left as they
    were (``before`` equals ``after``): an undo of it leaves them as they are now, so the
    names the owner gave since (or a display name an editor set) stay. ``after`` ``None``
    (the researcher is not in it): none."""
    if after is None:
        return set()
    return {f for f in NAME_FIELDS if f in before and f in after and before[f] == after[f]}


def names_undo_problems(record: CurationRecord, rows: dict[int, Researcher]) -> list[str]:
    """Why undoing ``record`` would throw away names given since (``[]``: none): a researcher
    whose declared names or display name the record changed and which changed again since
    (a later name, choice or merge), or a name the record added that a later choice made the
    display name. ``rows`` are the researchers locked for the undo. Fields the record did not
    change are no problem: the undo leaves them (:func:`name_fields_kept`)."""
    changes = record.changes or {}
    before, after = changes.get("before") or {}, changes.get("after") or {}
    problems = []
    for pk, state in after.items():
        row, old = rows.get(int(pk)), before.get(pk)
        if row is None or old is None:
            continue
        changed = set(NAME_FIELDS) & set(old) & set(state) - name_fields_kept(old, state)
        if "declared_names" in changed and sorted(row.declared_names) != sorted(state["declared_names"]):
            problems.append(f"researcher {pk}'s own names changed since")
        if "display_name" in changed and row.display_name != state["display_name"]:
            problems.append(f"researcher {pk}'s display name changed since")
    row, name = rows.get(record.researcher_id), changes.get("name")
    if (
        record.kind == CurationRecord.Kind.NAME_VARIANT
        and row is not None
        and name == row.display_name
        and name != (after.get(str(row.pk)) or {}).get("display_name")
    ):
        problems.append(f"“{name}” is researcher {row.pk}'s display name since")
    return problems


def display_name_chosen(researcher: Researcher) -> CurationRecord | None:
    """The ``display_name`` record in force that set the researcher's current display name
    (the owner chose it), else ``None`` (an editor or the matcher named it, or the choice was
    undone). One query."""
    record = (
        CurationRecord.objects.filter(kind=CurationRecord.Kind.DISPLAY_NAME, researcher_id=researcher.pk)
        .exclude(undone_by__isnull=False)
        .order_by("-id")
        .first()
    )
    if record is None or (record.changes or {}).get("name") != researcher.display_name:
        return None
    return record
