"""Researchers: identities, their external ids, and which author slots they hold."""

from __future__ import annotations

import functools

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Upper
from django.urls import reverse

from papers.search_log import search_log_triggers
from papers.text import make_slug
from wove.statistics import GIN_PENDING_LIST_KB

from .name_index import name_index_triggers
from .orcid import InvalidOrcid, normalize_orcid
from .querysets import NamesFolded, ResearcherQuerySet


def validate_orcid(value: str) -> None:
    """Model validator: ``value`` must be a stored-form ORCID iD with a valid check digit."""
    try:
        normalized = normalize_orcid(value)
    except InvalidOrcid as exc:
        raise ValidationError(str(exc)) from exc
    if normalized != value:
        raise ValidationError(f"store the ORCID iD as {normalized}")


@functools.cache
def _researcher_url_prefix() -> str:
    """``/researchers/``: the researcher page's path up to its ``<id>-<slug>``."""
    return reverse("researchers:detail", kwargs={"pk": 1, "slug": "s"}).removesuffix("1-s")


class Researcher(models.Model):
    """One person as this archive knows them; the site's own integer id is the primary key.

    ``orcid`` is unique when set (stored as ``0000-0002-5250-9277``); a researcher never
    holds two ORCID iDs. ``merged_into`` points a record an editor merged away at the
    survivor (its page answers 301 there). ``paper_count`` is the number of distinct papers
    attached through :class:`Authorship`, kept by the matching services.

    ``name_variants`` are the names its author slots are written with, recomputed by
    :func:`researchers.matching_common.researchers_refresh`, plus ``declared_names``: the
    names the researcher who claimed the record gave (issue 31, :mod:`curation.names`),
    kept on every re-run and by a merge (the survivor keeps both records'), at most 300
    characters each.
    """

    display_name = models.CharField(max_length=300)
    slug = models.SlugField(max_length=80)
    name_variants = ArrayField(models.CharField(max_length=500), default=list, blank=True)
    # db_default too: the local matcher writes researchers with COPY, naming its columns.
    declared_names = ArrayField(
        models.CharField(max_length=300),
        default=list,
        db_default=models.Value([], output_field=ArrayField(models.CharField(max_length=300))),
        blank=True,
        help_text="Names the researcher who claimed the record added; unioned into name_variants",
    )
    orcid = models.CharField(max_length=19, null=True, blank=True, unique=True, validators=[validate_orcid])
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_from"
    )
    paper_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)
    # Name search (issue #11): display name and variants folded once per write, not per query;
    # GIN trigram-indexed where pg_trgm is installed (migration 0003).
    names_folded = models.GeneratedField(
        expression=NamesFolded("display_name", "name_variants"),
        output_field=models.TextField(),
        db_persist=True,
    )

    objects = ResearcherQuerySet.as_manager()

    class Meta:
        ordering = ["display_name", "id"]
        indexes = [
            models.Index(fields=["display_name"], name="researcher_name_idx"),
            models.Index(fields=["-paper_count"], name="researcher_papers_idx"),
            # The researcher page's "same name" list: display_name__iexact or a variant (issue #11).
            models.Index(Upper("display_name"), name="researcher_name_upper_idx"),
            # Pending list kept short (wove.statistics): every lookup reads the whole list.
            GinIndex(
                fields=["name_variants"],
                name="researcher_variants_gin",
                gin_pending_list_limit=GIN_PENDING_LIST_KB,
            ),
        ]
        constraints = [
            # The stored shape; the check digit is verified by validate_orcid/normalize_orcid.
            # [0-9], not \d: a regex's \d may take other scripts' digits (issue 32).
            models.CheckConstraint(
                condition=models.Q(orcid__isnull=True)
                | models.Q(orcid__regex=r"^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$"),
                name="researcher_orcid_shape",
            ),
            models.CheckConstraint(
                condition=~models.Q(merged_into=models.F("id")), name="researcher_not_merged_into_self"
            ),
        ]
        # The name-word index (NameWord, NameToken) kept in the writing transaction.
        triggers = name_index_triggers()

    def __str__(self) -> str:
        return f"{self.display_name} ({self.pk})"

    def save(self, *args, **kwargs) -> None:
        if not self.slug:
            self.slug = make_slug(self.display_name, fallback="researcher")
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        """Canonical page, ``/researchers/<id>-<slug>``."""
        return self.url_for(self.pk, self.slug)

    @staticmethod
    def url_for(pk: int, slug: str) -> str:
        """The canonical page path of researcher ``pk`` with ``slug``, without loading it.

        ``reverse`` once for the prefix: it costs tens of microseconds a call, which a
        3,000-author paper's page would pay 3,000 times."""
        return f"{_researcher_url_prefix()}{pk}-{slug}"

    @property
    def orcid_url(self) -> str:
        """``https://orcid.org/<iD>``, or ``""`` without an ORCID iD."""
        return f"https://orcid.org/{self.orcid}" if self.orcid else ""


class IdentitySource(models.TextChoices):
    """Registries whose author ids we keep."""

    SEMANTIC_SCHOLAR = "semantic_scholar", "Semantic Scholar"
    OPENALEX = "openalex", "OpenAlex"
    DBLP = "dblp", "DBLP"
    ORCID = "orcid", "ORCID"


class ExternalIdentity(models.Model):
    """A researcher's id in an external registry; each (source, id) belongs to one researcher."""

    researcher = models.ForeignKey(Researcher, on_delete=models.CASCADE, related_name="identities")
    source = models.CharField(max_length=32, choices=IdentitySource.choices)
    external_id = models.CharField(max_length=200)
    name = models.CharField(max_length=500, blank=True, help_text="Name as the source spells it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["source", "external_id"]
        constraints = [models.UniqueConstraint(fields=["source", "external_id"], name="identity_unique")]
        verbose_name_plural = "external identities"

    def __str__(self) -> str:
        return f"{self.get_source_display()} {self.external_id}"


class MatchMethod(models.TextChoices):
    """How an author slot was attached to its researcher (strongest first)."""

    ORCID = "orcid", "ORCID iD"
    EXTERNAL_ID = "external_id", "External author id"
    LOCAL = "local", "Local match"
    EDITOR = "editor", "Editor"


class Authorship(models.Model):
    """An author slot (:class:`papers.models.PaperAuthor`) attached to a researcher.

    One per slot (``slot`` is unique). ``method`` says how it was matched and ``confidence``
    (0..1) how sure the matcher is; ``source`` names the registry that answered (empty for
    local matches). ``paper`` duplicates ``slot.paper`` so a researcher's papers are one
    indexed join.

    ``evidence`` (issue 20) lists the signals that decided the link, each a dict with a
    ``kind`` (``orcid``, ``external_id``, ``coauthors``, ``affiliation``, ``institution``,
    ``categories``, ``years``, ``name``, ``editor``) and that kind's values (shapes:
    :mod:`researchers.evidence`). ``unconfirmed`` marks a guess: the name was the only
    evidence and the slot's name block holds two or more researchers (the full rule:
    :mod:`researchers.evidence`); the partial index serves the editors' review queue.

    The confidence scale (0..1; constants in :mod:`researchers.services`): **0.98** the
    person's own ORCID iD, as a registry gave it (method ``orcid``); **0.9** a registry's
    author id, its own disambiguation (``external_id``); **0.6** local evidence, the slot
    joined a cluster of other slots of this archive (``local``); **0.5** local, a slot
    alone (a researcher of one paper). An editor's decision (``editor``) is the editors'
    to set, at 1.0 for a confirmed link. The figure ranks how the link was made, not a
    calibrated probability; ``unconfirmed`` is what says a local link rests on the name.
    """

    slot = models.OneToOneField("papers.PaperAuthor", on_delete=models.CASCADE, related_name="authorship")
    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="authorships")
    researcher = models.ForeignKey(Researcher, on_delete=models.CASCADE, related_name="authorships")
    method = models.CharField(max_length=16, choices=MatchMethod.choices)
    source = models.CharField(max_length=32, choices=IdentitySource.choices, blank=True)
    confidence = models.FloatField()
    block = models.CharField(
        max_length=200, db_index=True, help_text="Name block of the slot ('j smith'), for re-runs"
    )
    # db_default too: the local matcher writes authorships with COPY, naming its columns.
    evidence = models.JSONField(
        default=list,
        db_default=models.Value([], output_field=models.JSONField()),
        blank=True,
        help_text="The signals that decided the link, strongest first: a list of {'kind': ..., ...}",
    )
    unconfirmed = models.BooleanField(
        default=False,
        db_default=False,
        help_text="The name alone decided it while its name block holds two or more researchers",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # When the link last changed (researcher, method, confidence, evidence, mark): the paper
    # API's Last-Modified. Not indexed: it is read per paper, through the paper's rows, and
    # an index would cost every matcher write. QuerySet.update, bulk_update and raw SQL skip
    # auto_now: each writer of this table sets it itself.
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["paper", "slot__position"]
        indexes = [
            models.Index(fields=["researcher", "paper"], name="authorship_researcher_idx"),
            models.Index(
                fields=["researcher"], condition=models.Q(unconfirmed=True), name="authorship_unconfirmed_idx"
            ),
            # The evidence backfill's work list (issue 20): empty once the archive is filled.
            models.Index(
                fields=["researcher", "slot"],
                condition=models.Q(evidence=[]),
                name="authorship_no_evidence_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="authorship_confidence_range",
            )
        ]
        # The search index holds each paper's researchers (its facets): a paper whose
        # authorships are added, moved to another researcher or removed is logged for it.
        triggers = search_log_triggers(
            "authorship_search",
            paper_ids="SELECT paper_id FROM {rows}",
            watched=("researcher_id", "paper_id"),
        )

    def __str__(self) -> str:
        return f"{self.slot} -> {self.researcher_id} ({self.method})"


class MatchConstraint(models.Model):
    """An editor's must-link or cannot-link between two author slots.

    The local matcher honours them (:func:`researchers.clustering.cluster_mentions`):
    ``must`` puts the two slots on one researcher, ``cannot`` keeps them apart. The curation
    issue adds the screens; this table is the hook. Stored with ``slot_a_id < slot_b_id``.
    """

    class Kind(models.TextChoices):
        MUST = "must", "Must link"
        CANNOT = "cannot", "Cannot link"

    slot_a = models.ForeignKey("papers.PaperAuthor", on_delete=models.CASCADE, related_name="+")
    slot_b = models.ForeignKey("papers.PaperAuthor", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slot_a", "slot_b"], name="matchconstraint_unique"),
            models.CheckConstraint(
                condition=models.Q(slot_a__lt=models.F("slot_b")), name="matchconstraint_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: {self.slot_a_id} / {self.slot_b_id}"


class ResearcherSummary(models.Model):
    """The aggregates of a researcher's page, computed by the pipeline and kept (issues #11, 28).

    A researcher with thousands of papers spent over a second of every page view on counts
    over all of them (positions, fields, citations, co-authors, years, institutions), and
    one with a few papers six queries.
    ``data`` holds those aggregates as JSON (shape: :func:`researchers.summaries.summary_compute`);
    ``paper_count`` is the researcher's ``paper_count`` when it was computed, so a page whose
    researcher has gained or lost papers recomputes instead of showing old figures.
    Refreshed by the matcher after each run and by the ``researchers.refresh_summaries`` task;
    kept for researchers with :data:`researchers.summaries.SUMMARY_MIN_PAPERS` paper or
    more. A cache in the database, not a source of truth: deleting rows is always safe.
    """

    researcher = models.OneToOneField(
        Researcher, on_delete=models.CASCADE, primary_key=True, related_name="summary"
    )
    paper_count = models.PositiveIntegerField()
    # The paper search log's last id when the row was computed (papers.models.SearchChange):
    # a later entry for one of the researcher's papers makes the row stale. Null: computed
    # before rows recorded it (issue 28), stale.
    log_through = models.BigIntegerField(null=True, blank=True)
    computed_at = models.DateTimeField()
    data = models.JSONField()

    class Meta:
        indexes = [
            models.Index(fields=["computed_at"], name="researcher_summary_age_idx"),
            # The stale check reads the search log from the oldest row's position on.
            models.Index(fields=["log_through"], name="researcher_summary_log_idx"),
        ]

    def __str__(self) -> str:
        return f"summary of {self.researcher_id} ({self.paper_count} papers)"


class SlotReview(models.Model):
    """An author slot the matcher left for an editor: its name fits several researchers and
    nothing in the archive picks one (BUGS.md DIS-03: ``Tomas Pena`` may be ``Tomás Peña``
    folded, or the ``Tomas Pena`` of another institution).

    ``candidates`` holds the researcher ids it could be (sorted). The slot stays without an
    :class:`Authorship` and local matching skips it from then on; an editor attaches it
    (or not) from the admin list. One row per slot; deleted with the slot.
    """

    slot = models.OneToOneField("papers.PaperAuthor", on_delete=models.CASCADE, related_name="review")
    candidates = ArrayField(models.BigIntegerField(), default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "slot_id"]

    def __str__(self) -> str:
        return f"slot {self.slot_id}: one of {self.candidates}"


class RetiredResearcher(models.Model):
    """The tombstone of a researcher removed because its slots were never a person
    (issue 19): a collaboration ("CMS", "Keck Array") or junk (a ``:`` slot).

    ``id`` is the removed researcher's id, so its old URL still answers: 301 to the
    ``collaboration`` page, or 410 Gone when there is none (junk). Written by
    :func:`researchers.retire.collaboration_researchers_retire`, never edited.
    """

    id = models.BigIntegerField(primary_key=True)
    display_name = models.CharField(max_length=300)
    collaboration = models.ForeignKey(
        "papers.Collaboration", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    retired_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.display_name} ({self.pk}, retired)"


class NameWord(models.Model):
    """One word of a listed researcher's folded names, with its paper count
    (:mod:`researchers.name_index`, issue 28): written only by the researchers' table's
    triggers. A name search reads ``(word, paper_count DESC) INCLUDE (researcher)`` alone."""

    pk = models.CompositePrimaryKey("researcher", "word")
    # No foreign-key check: the triggers delete a researcher's words with it, and a first
    # load writes millions of rows.
    researcher = models.ForeignKey(
        Researcher, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    word = models.TextField()
    paper_count = models.PositiveIntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["word", "-paper_count"], include=["researcher"], name="nameword_word_idx")
        ]

    def __str__(self) -> str:
        return f"{self.word} ({self.researcher_id})"


class NameToken(models.Model):
    """A distinct word of :class:`NameWord` (kept when no one holds it any more): the short
    list a name search's substring is looked up in, trigram-indexed where pg_trgm exists
    (migration ``researchers.0018``)."""

    word = models.TextField(primary_key=True)

    def __str__(self) -> str:
        return self.word
