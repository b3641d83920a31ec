"""Writes for institutions: loading ROR records, and linking author slots to institutions."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.utils import timezone

from papers.affiliations import normalize
from papers.models import PaperAuthor
from researchers.records import SourceAuthor
from wove.bulk import batched

from .matching import AffiliationMatcher, Match
from .models import (
    AffiliationMatchMark,
    AuthorAffiliation,
    Institution,
    InstitutionName,
    InstitutionRelationship,
    institution_slug,
)
from .openalex import authorship_raw_affiliations, authorship_ror_ids
from .ror import InvalidRorId, RorRecord, iter_records, normalize_ror_id
from .selectors import affiliations_pending, arxiv_string_links
from .succession import succession_edges, successor_ends

logger = logging.getLogger(__name__)

Progress = Callable[[int], object]


@dataclass
class LoadResult:
    """Counts of one ``load_ror`` run (records, not rows)."""

    seen: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    stale: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"{self.seen} ROR records seen: {self.created} created, {self.updated} updated, "
            f"{self.unchanged} unchanged, {self.stale} older than stored (kept), {self.skipped} skipped"
        )


def _is_older(incoming: RorRecord, stored_modified) -> bool:
    """A record is stale when the stored one is dated later, or dated while it is not (v1)."""
    if stored_modified is None:
        return False
    return incoming.last_modified is None or incoming.last_modified < stored_modified


def _apply(institution: Institution, record: RorRecord) -> None:
    institution.ror_id = record.ror_id
    institution.name = record.name[:500]
    institution.slug = institution_slug(record.name)
    institution.status = record.status
    institution.types = record.types
    institution.established = record.established
    institution.country_code = record.country_code[:2]
    institution.country_name = record.country_name[:100]
    institution.city = record.city[:200]
    institution.locations = record.locations
    institution.website = record.website[:500]
    institution.wikipedia_url = record.wikipedia_url[:500]
    institution.links = record.links
    institution.domains = record.domains
    institution.external_ids = record.external_ids
    institution.record_modified = record.last_modified
    institution.schema_version = record.schema_version[:8]
    institution.content_hash = record.content_hash()
    institution.modified_at = timezone.now()


_FIELDS = [
    "name", "slug", "status", "types", "established", "country_code", "country_name", "city",
    "locations", "website", "wikipedia_url", "links", "domains", "external_ids",
    "record_modified", "schema_version", "content_hash", "modified_at",
]  # fmt: skip


def _write_batch(records: list[RorRecord], result: LoadResult) -> None:
    """Upsert one batch of records on ROR ID; names and relationships are replaced for the
    records that changed only."""
    latest: dict[str, RorRecord] = {}
    for record in records:
        previous = latest.get(record.ror_id)
        if previous is not None and _is_older(record, previous.last_modified):
            result.stale += 1
            continue
        latest[record.ror_id] = record
    stored = {i.ror_id: i for i in Institution.objects.filter(ror_id__in=list(latest))}
    to_create: list[Institution] = []
    to_update: list[Institution] = []
    changed: dict[str, RorRecord] = {}
    for ror_id, record in latest.items():
        current = stored.get(ror_id)
        if current is None:
            institution = Institution()
            _apply(institution, record)
            to_create.append(institution)
            changed[ror_id] = record
        elif current.content_hash == record.content_hash():
            result.unchanged += 1
        elif _is_older(record, current.record_modified):
            result.stale += 1
        else:
            _apply(current, record)
            to_update.append(current)
            changed[ror_id] = record
    if not changed:
        return
    with transaction.atomic():
        Institution.objects.bulk_create(to_create)
        if to_update:
            Institution.objects.bulk_update(to_update, _FIELDS)
            InstitutionName.objects.filter(institution__in=to_update).delete()
            InstitutionRelationship.objects.filter(institution__in=to_update).delete()
        by_ror = {i.ror_id: i for i in to_create + to_update}
        names: list[InstitutionName] = []
        relationships: list[InstitutionRelationship] = []
        for ror_id, record in changed.items():
            institution = by_ror[ror_id]
            seen: set[tuple[str, str]] = set()
            for name in record.names:
                if (name.kind, name.value) in seen:
                    continue
                seen.add((name.kind, name.value))
                names.append(
                    InstitutionName(
                        institution=institution,
                        value=name.value[:500],
                        kind=name.kind,
                        lang=name.lang[:16],
                        normalized=normalize(name.value)[:500],
                    )
                )
            relationships += [
                InstitutionRelationship(
                    institution=institution, type=r.type, ror_id=r.ror_id, label=r.label[:500]
                )
                for r in record.relationships
            ]
        InstitutionName.objects.bulk_create(names, batch_size=2000)
        InstitutionRelationship.objects.bulk_create(relationships, batch_size=2000)
    result.created += len(to_create)
    result.updated += len(to_update)


def institutions_load(
    *, paths: Iterable[str | Path], batch_size: int = 500, progress: Progress | None = None
) -> LoadResult:
    """Load ROR records (schema v2 or v1) from files into :class:`Institution` rows.

    ``paths``: dump JSON lists, single-record JSON files, or a ROR dump zip (its schema v2
    file is read when present), read as a stream. Upserts on ROR ID in batches of
    ``batch_size``: an unchanged record (same content hash) writes nothing; a changed one is
    updated in place unless the stored record is dated later (``admin.last_modified``), so
    an older dump never overwrites a newer one. A malformed record is logged and skipped.
    Returns a :class:`LoadResult`. Raises :class:`FileNotFoundError` for a missing file.
    """
    result = LoadResult()
    records = iter_records([Path(p) for p in paths], errors=result.errors)
    for batch in batched(records, batch_size):
        result.seen += len(batch)
        _write_batch(batch, result)
        if progress:
            progress(len(batch))
    result.skipped = len(result.errors)
    result.seen += result.skipped
    if result.created or result.updated:
        # A record withdrawn (or its successor loaded) changes where its links belong.
        institutions_successors_refresh()
        affiliation_links_repoint()
        affiliation_marks_clear()  # every string may now match otherwise: all are pending again
    return result


def institutions_successors_refresh() -> int:
    """Set every institution's ``superseded_by`` from the successor and predecessor
    relationships loaded (:func:`institutions.succession.successor_ends`: chains followed to
    the one active record they reach, cycles and splits left alone), and clear it where it
    no longer holds. Run after each load, since a record's successor may arrive in a later
    file. Returns the number of institutions changed. Three reads, one write per change.
    """
    rows = InstitutionRelationship.objects.filter(
        type__in=[InstitutionRelationship.Type.SUCCESSOR, InstitutionRelationship.Type.PREDECESSOR]
    ).values_list("institution__ror_id", "type", "ror_id")
    edges = succession_edges(rows)
    named = Institution.objects.filter(ror_id__in={r for e in edges for r in e})
    loaded = {ror_id: (pk, status) for ror_id, pk, status in named.values_list("ror_id", "pk", "status")}
    ends = successor_ends({r: status for r, (_pk, status) in loaded.items()}, edges)
    wanted = {loaded[old][0]: loaded[new][0] for old, new in ends.items()}
    superseded = Institution.objects.filter(superseded_by__isnull=False)
    current = dict(superseded.values_list("pk", "superseded_by_id"))
    changed = {pk for pk in wanted.keys() | current.keys() if wanted.get(pk) != current.get(pk)}
    now = timezone.now()
    with transaction.atomic():
        for pk in changed:  # few: only records whose succession changed since the last load
            Institution.objects.filter(pk=pk).update(superseded_by_id=wanted.get(pk), modified_at=now)
    return len(changed)


def affiliation_links_repoint() -> int:
    """Move every author link to an institution with a ``superseded_by`` to that successor
    (whatever its source: an id given by OpenAlex names the same withdrawn record). A slot
    already linked to the successor keeps that link, and the old one is dropped. Returns
    the number of links moved or dropped. A moved link keeps the record it matched
    (``matched_institution``, the retired one) and says ``via successor``
    (allenai/S2AFF#35); one made before that was kept stays unrecorded."""
    moved = 0
    links = AuthorAffiliation.objects.filter(institution__superseded_by__isnull=False)
    with transaction.atomic():
        for link in links.select_related("institution").select_for_update(of=("self",)):
            successor_id = link.institution.superseded_by_id
            if AuthorAffiliation.objects.filter(slot_id=link.slot_id, institution_id=successor_id).exists():
                link.delete()
            else:
                link.institution_id = successor_id
                if link.matched_institution_id is not None:
                    link.resolution = _resolution(link.matched_institution_id, successor_id)
                link.modified_at = timezone.now()
                link.save(update_fields=["institution", "resolution", "modified_at"])
            moved += 1
    return moved


def _resolution(matched_id: int, institution_id: int) -> str:
    """:class:`AuthorAffiliation.Resolution` of a link to ``institution_id`` whose string or
    id named the record ``matched_id``."""
    if matched_id == institution_id:
        return AuthorAffiliation.Resolution.DIRECT
    return AuthorAffiliation.Resolution.VIA_SUCCESSOR


def affiliation_marks_clear() -> None:
    """Forget what affiliation matching has done, so the next affiliations stage re-matches
    every slot with strings (after a registry load changed institutions). One DELETE (not
    TRUNCATE, which PostgreSQL refuses inside a transaction with pending foreign-key checks)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {AffiliationMatchMark._meta.db_table}")  # noqa: S608 - our table name


# -- Affiliations -----------------------------------------------------------------------


def matcher_build() -> AffiliationMatcher:
    """An :class:`AffiliationMatcher` over every loaded institution name (a query each for
    names, successors, retired records and countries). The names of an inactive or
    withdrawn record with a ``superseded_by`` match that successor; other inactive or
    withdrawn records yield to an active namesake. Build it once per run: it holds the
    whole registry's names."""
    rows = InstitutionName.objects.values_list("institution_id", "value", "kind", "institution__country_code")
    superseded = {
        pk: (successor_id, country)
        for pk, successor_id, country in Institution.objects.filter(superseded_by__isnull=False).values_list(
            "pk", "superseded_by_id", "superseded_by__country_code"
        )
    }
    retired = set(
        Institution.objects.exclude(status=Institution.Status.ACTIVE)
        .filter(superseded_by__isnull=True)
        .values_list("pk", flat=True)
    )
    matcher = AffiliationMatcher(rows.iterator(chunk_size=5000), superseded=superseded, retired=retired)
    matcher.add_country_names(
        Institution.objects.exclude(country_name="").values_list("country_name", "country_code").distinct()
    )
    return matcher


@dataclass
class MatchResult:
    """Counts of one affiliation-matching run."""

    slots: int = 0
    strings: int = 0
    strings_matched: int = 0
    created: int = 0
    updated: int = 0
    removed: int = 0

    def __str__(self) -> str:
        return (
            f"{self.slots} author slots, {self.strings} affiliation strings "
            f"({self.strings_matched} matched): "
            f"{self.created} links created, {self.updated} updated, {self.removed} removed"
        )


def _sync_string_links(
    desired: dict[tuple[int, int], tuple[Match, str]],
    strings_by_slot: dict[int, set[str]],
    result: MatchResult,
    origin: str,
) -> None:
    """Make the ``string-match`` links of ``origin`` of these slots equal ``desired``:
    create missing ones, update changed ones (string, confidence, the record matched and how
    it was resolved), remove ones their strings no longer support. Links from ids (OpenAlex,
    ROR) and from strings of another origin are left alone."""
    existing = {
        (a.slot_id, a.institution_id): a
        for a in AuthorAffiliation.objects.filter(slot_id__in=list(strings_by_slot))
    }
    to_create: list[AuthorAffiliation] = []
    to_update: list[AuthorAffiliation] = []
    for (slot_id, institution_id), (match, text) in desired.items():
        link = existing.get((slot_id, institution_id))
        resolution = _resolution(match.record_id, institution_id)
        if link is None:
            to_create.append(
                AuthorAffiliation(
                    slot_id=slot_id,
                    institution_id=institution_id,
                    source=AuthorAffiliation.Source.STRING_MATCH,
                    string_origin=origin,
                    matched_string=text,
                    matched_institution_id=match.record_id,
                    resolution=resolution,
                    confidence=match.confidence,
                )
            )
        elif (
            link.source == AuthorAffiliation.Source.STRING_MATCH
            and link.string_origin == origin
            and (link.matched_string, link.confidence, link.matched_institution_id, link.resolution)
            != (text, match.confidence, match.record_id, resolution)
        ):
            link.matched_string, link.confidence = text, match.confidence
            link.matched_institution_id, link.resolution = match.record_id, resolution
            link.modified_at = timezone.now()
            to_update.append(link)
    stale = [
        a.pk
        for key, a in existing.items()
        if a.source == AuthorAffiliation.Source.STRING_MATCH
        and a.string_origin == origin
        and key not in desired
    ]
    with transaction.atomic():
        AuthorAffiliation.objects.bulk_create(to_create, ignore_conflicts=True)
        if to_update:
            AuthorAffiliation.objects.bulk_update(
                to_update,
                ["matched_string", "confidence", "matched_institution", "resolution", "modified_at"],
            )
        if stale:
            AuthorAffiliation.objects.filter(pk__in=stale).delete()
    result.created += len(to_create)
    result.updated += len(to_update)
    result.removed += len(stale)


def _match_pairs(
    pairs: Iterable[tuple[int, str]], matcher: AffiliationMatcher, cache: dict[str, list[Match]], result
) -> tuple[dict[tuple[int, int], tuple[Match, str]], dict[int, set[str]]]:
    desired: dict[tuple[int, int], tuple[Match, str]] = {}
    strings_by_slot: dict[int, set[str]] = {}
    for slot_id, text in pairs:
        text = (text or "").strip()
        strings_by_slot.setdefault(slot_id, set())
        if not text:
            continue
        strings_by_slot[slot_id].add(text)
        result.strings += 1
        matches = cache.get(text)
        if matches is None:
            matches = cache[text] = matcher.match(text)
        if matches:
            result.strings_matched += 1
        for match in matches:
            key = (slot_id, match.institution_id)
            if key not in desired or match.outranks(desired[key][0]):
                desired[key] = (match, text)
    return desired, strings_by_slot


def _mark_matched(rows: list[tuple[int, list[str]]]) -> None:
    """Record that these ``(slot id, strings)`` were matched as they read (one upsert)."""
    if not rows:
        return
    now = timezone.now()
    AffiliationMatchMark.objects.bulk_create(
        [
            AffiliationMatchMark(slot_id=slot_id, affiliations=list(strings), matched_at=now)
            for slot_id, strings in rows
        ],
        update_conflicts=True,
        unique_fields=["slot"],
        update_fields=["affiliations", "matched_at"],
    )


def affiliations_match(
    *,
    slot_ids: Iterable[int] | None = None,
    pending_only: bool = False,
    batch_size: int = 2000,
    matcher: AffiliationMatcher | None = None,
    progress: Progress | None = None,
) -> MatchResult:
    """Match the arXiv affiliation strings of author slots (``PaperAuthor.affiliations``)
    to institutions and store them as ``string-match`` :class:`AuthorAffiliation` links.

    ``slot_ids``: only these slots; ``pending_only``: only the slots the affiliations stage
    waits for (:func:`institutions.selectors.affiliations_pending`: new strings, changed
    strings, or all after a registry change); default: every slot with an affiliation.
    Works in batches of ``batch_size`` slots ordered by id, a few queries per batch;
    identical strings are matched once per run. Each matched slot's strings are kept in its
    :class:`AffiliationMatchMark`, so the stage's next run skips it. Idempotent: a second
    run changes nothing; after a registry change, links the strings no longer support are
    removed. Links from ids are never replaced by string matches. Returns a
    :class:`MatchResult`.
    """
    result = MatchResult()
    if pending_only:
        queryset = affiliations_pending().order_by("id")
    else:
        queryset = PaperAuthor.objects.filter(
            ~Q(affiliations=[]) | Exists(arxiv_string_links(OuterRef("pk")))
        ).order_by("id")
    if slot_ids is not None:
        queryset = queryset.filter(id__in=list(slot_ids))
    cache: dict[str, list[Match]] = {}
    last_id = 0
    while True:
        rows = list(queryset.filter(id__gt=last_id).values_list("id", "affiliations")[:batch_size])
        if not rows:
            break
        matcher = matcher or matcher_build()  # built only when there is work
        last_id = rows[-1][0]
        result.slots += len(rows)
        pairs = [(slot_id, text) for slot_id, strings in rows for text in strings]
        desired, strings_by_slot = _match_pairs(pairs, matcher, cache, result)
        for slot_id, _strings in rows:  # a slot whose strings are gone keeps no string link
            strings_by_slot.setdefault(slot_id, set())
        with transaction.atomic():
            _sync_string_links(desired, strings_by_slot, result, AuthorAffiliation.StringOrigin.ARXIV)
            _mark_matched(rows)
        if progress:
            progress(len(rows))
    return result


def affiliations_match_strings(
    *,
    pairs: Iterable[tuple[int, str]],
    origin: str = AuthorAffiliation.StringOrigin.OPENALEX,
    matcher: AffiliationMatcher | None = None,
) -> MatchResult:
    """Match affiliation strings from another source (OpenAlex ``raw_affiliation_strings``)
    for author slots: ``pairs`` of ``(PaperAuthor id, string)``, giving ALL of that
    source's strings for each slot named (its earlier links of ``origin`` that the strings
    no longer support are removed). Same rules and idempotence as :func:`affiliations_match`;
    links of the arXiv strings are left alone.
    """
    matcher = matcher or matcher_build()
    result = MatchResult()
    pairs = list(pairs)
    result.slots = len({slot_id for slot_id, _ in pairs})
    desired, strings_by_slot = _match_pairs(pairs, matcher, {}, result)
    _sync_string_links(desired, strings_by_slot, result, origin)
    return result


@dataclass
class LinkResult:
    """Counts of :func:`affiliations_link_ror_ids`."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    unknown_ror_ids: set[str] = field(default_factory=set)
    invalid: int = 0


def affiliations_link_ror_ids(
    *, pairs: Iterable[tuple[int, str]], source: str = AuthorAffiliation.Source.OPENALEX
) -> LinkResult:
    """Link author slots to institutions by ROR ID: ``pairs`` of ``(PaperAuthor id, ROR ID)``
    in any accepted form (``https://ror.org/…``, ``ror.org/…``, bare).

    For the researchers matcher (OpenAlex authorships carry ``institutions[].ror``).
    ``source`` is ``openalex`` or ``ror-id``. An id link replaces a string match for the
    same (slot, institution) with confidence 1.0. The ROR ID of a withdrawn or inactive
    record with an active successor links that successor (``superseded_by``), as string
    matching does, keeping the record named (``matched_institution``, ``resolution`` "via
    successor"); an existing link whose record or resolution differs is updated. ROR IDs not
    loaded here are returned in
    ``unknown_ror_ids`` (load the dump to link them); invalid ones are counted and skipped.
    Idempotent; two queries plus one write per call.
    """
    wanted: dict[tuple[int, str], None] = {}
    result = LinkResult()
    for slot_id, raw in pairs:
        try:
            wanted[(int(slot_id), normalize_ror_id(raw))] = None
        except (InvalidRorId, TypeError, ValueError):
            logger.warning("invalid ROR ID for slot %s skipped: %r", slot_id, raw)
            result.invalid += 1
    # A withdrawn or inactive record with an active successor is linked as its successor,
    # keeping the record the id named (allenai/S2AFF#35).
    named = Institution.objects.filter(ror_id__in={r for _, r in wanted})
    rows = named.values_list("ror_id", "id", "superseded_by_id")
    ids = {ror_id: (successor_id or pk, pk) for ror_id, pk, successor_id in rows}
    result.unknown_ror_ids = {r for _, r in wanted if r not in ids}
    keys: dict[tuple[int, int], int] = {}  # (slot, institution) -> the record named
    for slot_id, ror_id in wanted:
        if ror_id in ids:
            institution_id, record_id = ids[ror_id]
            # Two ids of one slot leading to one institution: the institution's own id wins.
            if keys.get((slot_id, institution_id)) != institution_id:
                keys[(slot_id, institution_id)] = record_id
    existing = {
        (a.slot_id, a.institution_id): a
        for a in AuthorAffiliation.objects.filter(
            slot_id__in={s for s, _ in keys}, institution_id__in={i for _, i in keys}
        )
    }
    to_create, to_update = [], []
    for (slot_id, institution_id), record_id in keys.items():
        link = existing.get((slot_id, institution_id))
        resolution = _resolution(record_id, institution_id)
        if link is None:
            to_create.append(
                AuthorAffiliation(
                    slot_id=slot_id,
                    institution_id=institution_id,
                    source=source,
                    confidence=1.0,
                    matched_institution_id=record_id,
                    resolution=resolution,
                )
            )
        elif link.source == AuthorAffiliation.Source.STRING_MATCH or (
            link.matched_institution_id,
            link.resolution,
        ) != (record_id, resolution):
            if link.source == AuthorAffiliation.Source.STRING_MATCH:
                link.source, link.confidence, link.string_origin = source, 1.0, ""
            link.matched_institution_id, link.resolution = record_id, resolution
            link.modified_at = timezone.now()
            to_update.append(link)
        else:
            result.unchanged += 1
    with transaction.atomic():
        AuthorAffiliation.objects.bulk_create(to_create, ignore_conflicts=True)
        if to_update:
            fields = ["source", "confidence", "string_origin", "matched_institution", "resolution"]
            AuthorAffiliation.objects.bulk_update(to_update, [*fields, "modified_at"])
    result.created, result.updated = len(to_create), len(to_update)
    return result


@dataclass
class OpenAlexResult:
    """Counts of :func:`affiliations_from_openalex`."""

    ids: LinkResult
    strings: MatchResult


def affiliations_from_openalex(*, authorships: Iterable[tuple[int, dict]]) -> OpenAlexResult:
    """Link author slots to institutions from OpenAlex work authorships, for the researchers
    matcher: ``authorships`` are ``(PaperAuthor id, OpenAlex authorship object)`` pairs.

    Source ids first: every ``institutions[].ror`` becomes an ``openalex`` link (confidence
    1.0); then the ``raw_affiliation_strings`` are matched as strings (origin ``openalex``)
    for what the ids did not cover. Idempotent. Returns both counts.
    """
    authorships = list(authorships)
    id_pairs = [(slot_id, ror_id) for slot_id, a in authorships for ror_id in authorship_ror_ids(a)]
    string_pairs = [(slot_id, text) for slot_id, a in authorships for text in authorship_raw_affiliations(a)]
    return _link_openalex(id_pairs, string_pairs)


def _link_openalex(id_pairs: list[tuple[int, str]], string_pairs: list[tuple[int, str]]) -> OpenAlexResult:
    """OpenAlex's ROR IDs as ``openalex`` links, then its raw strings matched (origin
    ``openalex``): the two steps of both OpenAlex entry points."""
    ids = affiliations_link_ror_ids(pairs=id_pairs, source=AuthorAffiliation.Source.OPENALEX)
    strings = affiliations_match_strings(
        pairs=string_pairs, origin=AuthorAffiliation.StringOrigin.OPENALEX, matcher=matcher_current()
    )
    return OpenAlexResult(ids=ids, strings=strings)


def affiliations_from_source_authors(
    *, source: str, slots: Iterable[tuple[int, SourceAuthor]]
) -> OpenAlexResult | None:
    """Link author slots to institutions from what a registry said of their authors, as the
    researchers matcher aligned them: ``slots`` are ``(PaperAuthor id, SourceAuthor)`` pairs.

    OpenAlex only (its authorships carry ROR IDs and raw strings; Semantic Scholar gives
    neither reliably): ROR IDs become ``openalex`` links, then the raw strings are matched
    (origin ``openalex``), as :func:`affiliations_from_openalex`. Returns ``None`` for other
    sources. Idempotent.
    """
    if source != AuthorAffiliation.Source.OPENALEX:
        return None
    slots = list(slots)
    id_pairs = [(slot_id, ror_id) for slot_id, author in slots for ror_id in author.ror_ids]
    string_pairs = [
        (slot_id, text) for slot_id, author in slots for text in author.affiliations if text.strip()
    ]
    if not id_pairs and not string_pairs:
        return None
    return _link_openalex(id_pairs, string_pairs)


_matcher_cache: dict[tuple, AffiliationMatcher] = {}


def matcher_current() -> AffiliationMatcher:
    """:func:`matcher_build`, reused while the registry is unchanged (same count and latest
    change of institutions and names): matching one registry record at a time must not
    rebuild the whole registry's matcher for each paper."""
    key = tuple(Institution.objects.aggregate(n=Count("pk"), m=Max("modified_at")).values()) + (
        InstitutionName.objects.count(),
    )
    matcher = _matcher_cache.get(key)
    if matcher is None:
        _matcher_cache.clear()
        matcher = _matcher_cache[key] = matcher_build()
    return matcher
