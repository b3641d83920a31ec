"""Institutions from the ROR registry, their names and relationships, and author-slot affiliations."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.text import slugify

from papers.search_log import search_log_triggers

from .querysets import InstitutionQuerySet
from .ror import ROR_URL_PREFIX, InvalidRorId, normalize_ror_id


def validate_ror_id(value: str) -> None:
    """Model validator: the stored form (bare 9 characters) with matching check digits."""
    try:
        if normalize_ror_id(value) != value:
            raise ValidationError(f"store the bare ROR ID ({normalize_ror_id(value)}), not {value!r}")
    except InvalidRorId as exc:
        raise ValidationError(str(exc)) from exc


class Institution(models.Model):
    """One ROR record (schema v2; v1 records are read into the same shape), keyed by ROR ID.

    ``ror_id`` is stored bare and lower case (``03yrm5c26``); :attr:`ror_url` gives the
    canonical ``https://ror.org/…`` form. ``country_code``/``country_name``/``city`` come
    from the first location; all locations stay in ``locations``. ``external_ids`` maps
    ``grid``/``isni``/``wikidata``/``fundref`` to ``{"preferred", "all"}``. An inactive or
    withdrawn record keeps its page; :meth:`successors` points to what replaced it, and
    ``superseded_by`` to the one active record its successor relationships lead to, followed
    to the end of a chain (kept by :func:`institutions.services.institutions_successors_refresh`
    after every load; ``None`` for active records and for those with no single active
    successor). Matching and the ROR-ID and name URLs go to ``superseded_by`` instead.
    ``content_hash`` is the SHA-256 of the parsed record, so reloading an unchanged dump
    writes nothing.
    """

    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"
        WITHDRAWN = "withdrawn"

    ror_id = models.CharField(max_length=9, unique=True, validators=[validate_ror_id])
    name = models.CharField(max_length=500, help_text="ROR display name (ror_display)")
    slug = models.SlugField(max_length=80)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="supersedes",
        help_text="The active institution this inactive or withdrawn record's ROR successors lead to",
    )
    types = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    established = models.PositiveSmallIntegerField(null=True, blank=True)
    country_code = models.CharField(max_length=2, blank=True, db_index=True)
    country_name = models.CharField(max_length=100, blank=True)
    city = models.CharField(max_length=200, blank=True)
    locations = models.JSONField(default=list, blank=True)
    website = models.URLField(max_length=500, blank=True)
    wikipedia_url = models.URLField(max_length=500, blank=True)
    links = ArrayField(models.TextField(), default=list, blank=True)
    domains = ArrayField(models.CharField(max_length=253), default=list, blank=True)
    external_ids = models.JSONField(default=dict, blank=True)
    record_modified = models.DateField(
        null=True, blank=True, help_text="admin.last_modified.date of the loaded record (v2 only)"
    )
    schema_version = models.CharField(max_length=8, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    objects = InstitutionQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        indexes = [
            models.Index(fields=["status", "country_code"], name="institution_status_country"),
            models.Index(fields=["name", "id"], name="institution_name_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ror_id})"

    def save(self, *args, **kwargs) -> None:
        self.slug = institution_slug(self.name)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        """Canonical page URL, ``/institutions/<id>-<slug>``."""
        return reverse("institutions:detail", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def ror_url(self) -> str:
        """The ROR ID in its canonical URL form, ``https://ror.org/03yrm5c26``."""
        return ROR_URL_PREFIX + self.ror_id

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    def external_id(self, kind: str) -> str:
        """The preferred (else first) external id of ``kind`` (``grid``, ``isni``, ``wikidata``,
        ``fundref``), or ``""``."""
        item = (self.external_ids or {}).get(kind) or {}
        return item.get("preferred") or next(iter(item.get("all") or []), "")

    def external_links(self) -> list[tuple[str, str, str]]:
        """``(label, id, url)`` for the preferred GRID, ISNI, Wikidata and FundRef ids; ``url``
        is ``""`` where the id has no resolver (GRID retired in 2021)."""
        out = []
        for kind, label in (
            ("wikidata", "Wikidata"),
            ("isni", "ISNI"),
            ("fundref", "Crossref Funder ID"),
            ("grid", "GRID"),
        ):
            value = self.external_id(kind)
            if not value:
                continue
            if kind == "wikidata":
                url = f"https://www.wikidata.org/wiki/{value}"
            elif kind == "isni":
                url = "https://isni.org/isni/" + value.replace(" ", "")
            elif kind == "fundref":
                url = f"https://doi.org/10.13039/{value}"
            else:
                url = ""
            out.append((label, value, url))
        return out

    def related_ror_ids(self, rel_type: str) -> list[str]:
        """ROR IDs this record names with a relationship of ``rel_type``."""
        return [r.ror_id for r in self.relationships.all() if r.type == rel_type]

    def successors(self) -> models.QuerySet[Institution]:
        """Loaded institutions this record names as its successor(s)."""
        return Institution.objects.filter(
            ror_id__in=self.relationships.filter(type=InstitutionRelationship.Type.SUCCESSOR).values("ror_id")
        )


def institution_slug(name: str) -> str:
    """URL slug of a display name (accents folded to ASCII; ``institution`` when nothing is left)."""
    return slugify(name)[:80].strip("-") or "institution"


class InstitutionName(models.Model):
    """One name of an institution by ROR type: display, label (with language), alias, acronym.

    A name ROR gives two types (``label`` and ``ror_display``) is one row per type.
    ``normalized`` is :func:`papers.affiliations.normalize` of ``value``: what affiliation
    matching and name resolution compare.
    """

    class Kind(models.TextChoices):
        DISPLAY = "ror_display", "display name"
        LABEL = "label"
        ALIAS = "alias"
        ACRONYM = "acronym"

    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="names")
    value = models.CharField(max_length=500)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    lang = models.CharField(max_length=16, blank=True)
    normalized = models.CharField(max_length=500, db_index=True)

    class Meta:
        ordering = ["institution", "kind", "value"]
        constraints = [
            models.UniqueConstraint(fields=["institution", "kind", "value"], name="institutionname_unique")
        ]

    def __str__(self) -> str:
        return f"{self.value} ({self.kind}{', ' + self.lang if self.lang else ''})"


class InstitutionRelationship(models.Model):
    """A relationship a ROR record states (ROR relationships are not always symmetric).

    The target is kept as a ROR ID because it may not be loaded here; pages join it to
    :class:`Institution` by ``ror_id`` and show the label ROR gave otherwise.
    """

    class Type(models.TextChoices):
        PARENT = "parent"
        CHILD = "child"
        RELATED = "related"
        SUCCESSOR = "successor"
        PREDECESSOR = "predecessor"

    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="relationships")
    type = models.CharField(max_length=16, choices=Type.choices)
    ror_id = models.CharField(max_length=9, validators=[validate_ror_id], db_index=True)
    label = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["institution", "type", "label"]
        constraints = [
            models.UniqueConstraint(fields=["institution", "type", "ror_id"], name="institutionrel_unique")
        ]

    def __str__(self) -> str:
        return f"{self.institution.ror_id} {self.type} {self.ror_id}"


class AuthorAffiliation(models.Model):
    """An author slot (``papers.PaperAuthor``) linked to an institution, and how we know.

    ``source``: ``openalex`` (an OpenAlex institution carrying this ROR ID), ``ror-id`` (a
    ROR ID given directly) or ``string-match`` (the affiliation string ``matched_string``
    matched one of the institution's names; ``string_origin`` says whether the string is the
    slot's arXiv affiliation or an OpenAlex raw affiliation string). ``confidence`` is in [0, 1]: 1.0 for ids,
    lower for name matches (see :mod:`papers.affiliations`). One row per (slot,
    institution); an id-based link replaces a string match, never the reverse.

    ``matched_institution`` is the ROR record the string or id named, and ``resolution`` how
    it led to ``institution`` (allenai/S2AFF#35): ``direct`` (the same record) or ``via
    successor`` (an inactive or withdrawn record, followed to the active one it names as
    successor, ``Institution.superseded_by``). Links made before they were kept have
    neither (``resolution`` blank); the database holds the three cases apart.
    """

    class Resolution(models.TextChoices):
        DIRECT = "direct", "direct"
        VIA_SUCCESSOR = "via-successor", "via successor"

    class Source(models.TextChoices):
        OPENALEX = "openalex", "OpenAlex institution"
        ROR_ID = "ror-id", "ROR ID"
        STRING_MATCH = "string-match", "affiliation string"

    slot = models.ForeignKey("papers.PaperAuthor", on_delete=models.CASCADE, related_name="institution_links")
    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="author_links")

    class StringOrigin(models.TextChoices):
        ARXIV = "arxiv", "arXiv affiliation"
        OPENALEX = "openalex", "OpenAlex raw affiliation string"

    source = models.CharField(max_length=16, choices=Source.choices)
    string_origin = models.CharField(
        max_length=16, choices=StringOrigin.choices, blank=True, help_text="Where a matched string came from"
    )
    matched_string = models.TextField(blank=True)
    matched_institution = models.ForeignKey(
        Institution,
        null=True,
        blank=True,
        # A retired record that links were resolved through stays while they name it.
        on_delete=models.RESTRICT,
        related_name="matched_links",
        help_text="The ROR record the string or id named (a retired one when resolved via successor)",
    )
    resolution = models.CharField(
        max_length=16,
        choices=Resolution.choices,
        blank=True,
        help_text="How the matched record led to the institution; blank on links made before it was kept",
    )
    confidence = models.FloatField(default=1.0)
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slot", "institution"]
        constraints = [
            models.UniqueConstraint(fields=["slot", "institution"], name="authoraffiliation_unique"),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="authoraffiliation_confidence_range",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(resolution="", matched_institution__isnull=True)
                    | models.Q(resolution="direct", matched_institution=models.F("institution"))
                    | (
                        models.Q(resolution="via-successor", matched_institution__isnull=False)
                        & ~models.Q(matched_institution=models.F("institution"))
                    )
                ),
                name="authoraffiliation_resolution_matches",
            ),
        ]
        indexes = [models.Index(fields=["institution", "slot"], name="authoraff_institution_slot")]
        # The search index holds each paper's institutions (its facets): a paper whose slots
        # gain, change or lose an institution link is logged for it.
        triggers = search_log_triggers(
            "affiliation_search",
            paper_ids="SELECT s.paper_id FROM {rows} r JOIN papers_paperauthor s ON s.id = r.slot_id",
            watched=("institution_id", "slot_id"),
        )

    def __str__(self) -> str:
        return f"slot {self.slot_id} → {self.institution_id} ({self.source})"


class InstitutionSummary(models.Model):
    """The aggregates of an institution's page, computed by the pipeline and kept (issues #11, 28).

    An institution with tens of thousands of linked author slots spent seconds of every
    view counting its papers, fields and researchers at a million papers. ``data`` holds
    them as JSON (shape: :func:`institutions.summaries.summary_compute`); ``link_count`` is
    the number of author links when it was computed, so a page whose institution gained or
    lost links recomputes. Refreshed after affiliation matching and by the
    ``institutions.refresh_summaries`` task (also when a linked paper changed since
    ``log_through``); a cache in the database (deleting rows is safe).
    """

    institution = models.OneToOneField(
        Institution, on_delete=models.CASCADE, primary_key=True, related_name="summary"
    )
    link_count = models.PositiveIntegerField()
    computed_at = models.DateTimeField()
    data = models.JSONField()
    # The paper search log's last id when computed (papers.selectors.search_log_last_id): a
    # later entry for a linked paper (its authors matched, a paper hidden) makes the row
    # stale. Null: computed before rows recorded it, stale.
    log_through = models.BigIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["log_through"], name="institution_summary_log_idx")]

    def __str__(self) -> str:
        return f"summary of institution {self.institution_id} ({self.link_count} links)"


class AffiliationMatchMark(models.Model):
    """What affiliation matching has done: the slot's arXiv affiliation strings as they read
    when they were last matched.

    The pipeline's affiliations stage is "every slot whose strings differ from its mark"
    (:func:`institutions.selectors.affiliations_pending`): a new slot, a new version with
    other strings, or every slot once a registry load changed institutions (it deletes the
    marks). Slots without strings and without a mark need nothing.
    """

    slot = models.OneToOneField(
        "papers.PaperAuthor", on_delete=models.CASCADE, primary_key=True, related_name="affiliation_mark"
    )
    affiliations = ArrayField(models.TextField(), default=list, blank=True)
    matched_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"slot {self.slot_id} matched {self.matched_at:%Y-%m-%d %H:%M}"
