"""Papers harvested from arXiv: categories, papers, versions, author slots, harvest runs, fetches."""

from __future__ import annotations

from datetime import datetime, timedelta

import pgtrigger
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from wove.statistics import GIN_PENDING_LIST_KB

from .identifiers import doi_url
from .querysets import PaperManager


class Category(models.Model):
    """An arXiv category (``cs.DC``, ``hep-th``) or a retired archive mapped to one.

    Loaded from arXiv's taxonomy tables by a data migration. ``canonical`` points an alias
    (``cs.NA`` to ``math.NA``) or a retired archive (``alg-geom`` to ``math.AG``) at the code
    papers are filed under; canonical categories point at themselves (``None``).
    """

    code = models.CharField(primary_key=True, max_length=32)
    name = models.CharField(max_length=200)
    group = models.CharField(max_length=32, blank=True, help_text="Group code, e.g. physics")
    group_name = models.CharField(max_length=100, blank=True)
    archive = models.CharField(max_length=32, blank=True)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    canonical = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="aliases"
    )

    class Meta:
        ordering = ["code"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"


class MetadataSource(models.TextChoices):
    """Where a paper's fields came from (OAI-PMH metadataPrefix, or the Kaggle dump)."""

    ARXIV = "arXiv", "OAI-PMH arXiv"
    ARXIV_RAW = "arXivRaw", "OAI-PMH arXivRaw"
    KAGGLE = "kaggle", "Kaggle arXiv dataset"
    API = "api", "arXiv API (Atom)"


def _search_folded(field: str) -> Func:
    """``wove_search_fold(field)``: the IMMUTABLE SQL function of papers migration 0015
    (:mod:`papers.search_fold`), folding accented Latin letters to ASCII."""
    return Func(F(field), function="wove_search_fold", output_field=models.TextField())


class Paper(models.Model):
    """One arXiv paper (all versions), keyed by its normalised arXiv identifier.

    Source fields come from arXiv and are read-only in the admin. When a paper arrives in
    both OAI formats, arXivRaw wins for versions, dates and licence, arXiv for authors and
    affiliations: ``versions_source`` and ``authors_source`` record which format supplied
    them (see :mod:`papers.upsert`). ``deleted`` papers (an OAI header with
    ``status="deleted"``) stay as rows and answer 410; ``withdrawn`` ones stay visible.

    A later but older message never makes a paper worse (issue 18): ``content_asof`` and
    ``authors_asof`` hold the as-of day (OAI datestamp, else the day the source last updated
    the record) of the message that last set the content and the authors, and only a
    message at least as new replaces them; versions are only ever added, so
    ``latest_version`` never goes down (the rules: :mod:`papers.upsert`).
    """

    arxiv_id = models.CharField(max_length=64, unique=True)
    slug = models.SlugField(max_length=80)
    title = models.TextField()
    abstract = models.TextField(blank=True)
    authors_text = models.TextField(blank=True, help_text="The author list as one display string")
    primary_category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.PROTECT, related_name="primary_papers"
    )
    categories = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    license = models.CharField(max_length=200, blank=True)
    dois = ArrayField(
        models.CharField(max_length=200),
        default=list,
        blank=True,
        help_text="The journal DOIs arXiv lists for the paper (an article and its errata), in its order",
    )
    journal_ref = models.TextField(blank=True)
    report_no = models.TextField(blank=True)
    comments = models.TextField(blank=True)
    msc_class = models.CharField(max_length=200, blank=True)
    acm_class = models.CharField(max_length=200, blank=True)
    submitter = models.CharField(max_length=200, blank=True)
    proxy = models.CharField(max_length=200, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True, help_text="v1 timestamp (UTC)")
    submitted_day_precision = models.BooleanField(
        default=False, help_text="Only the day of submission is known (time is 00:00 UTC)"
    )
    updated_date = models.DateField(null=True, blank=True)
    latest_version = models.PositiveSmallIntegerField(default=1)
    oai_datestamp = models.DateField(null=True, blank=True)
    set_specs = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    withdrawn = models.BooleanField(default=False)
    deleted = models.BooleanField(default=False)
    versions_source = models.CharField(max_length=16, choices=MetadataSource.choices, blank=True)
    authors_source = models.CharField(max_length=16, choices=MetadataSource.choices, blank=True)
    content_asof = models.DateField(
        null=True, blank=True, help_text="As-of day of the message that last set the content (issue 18)"
    )
    authors_asof = models.DateField(
        null=True, blank=True, help_text="As-of day of the message that last set the authors (issue 18)"
    )
    content_hash = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of the merged source fields; skips no-op writes"
    )
    # Editorial and derived fields (editable, filled by later stages).
    cited_by_count = models.PositiveIntegerField(null=True, blank=True)
    editor_note = models.TextField(blank=True)
    hidden = models.BooleanField(default=False, help_text="Hide from listings (editorial)")
    created_at = models.DateTimeField(auto_now_add=True)
    modified_at = models.DateTimeField(auto_now=True)
    # Full-text index (issue 7): a STORED generated column, so PostgreSQL keeps it current
    # on every insert and update (bulk upserts included) and nothing is rebuilt by hand.
    # Weights: title A, author names B, abstract C; English stemming throughout so the one
    # query (websearch_to_tsquery('english', ...)) matches every part. Accents folded first
    # (papers.search_fold: "Grunberg" finds "Grünberg"); query text is folded alike.
    search_vector = models.GeneratedField(
        expression=SearchVector(_search_folded("title"), weight="A", config="english")
        + SearchVector(_search_folded("authors_text"), weight="B", config="english")
        + SearchVector(_search_folded("abstract"), weight="C", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    objects = PaperManager()

    class Meta:
        ordering = ["-submitted_at", "-arxiv_id"]
        indexes = [
            models.Index(fields=["-submitted_at", "-arxiv_id"], name="paper_newest_idx"),
            # Pending lists kept short (wove.statistics): every search reads the whole list.
            GinIndex(
                fields=["categories"], name="paper_categories_gin", gin_pending_list_limit=GIN_PENDING_LIST_KB
            ),
            models.Index(fields=["primary_category", "-submitted_at"], name="paper_primary_idx"),
            GinIndex(
                fields=["search_vector"], name="paper_search_gin", gin_pending_list_limit=GIN_PENDING_LIST_KB
            ),
            # COUNT(*) of public papers (home, lists, API pages) as an index-only scan: the
            # table itself is wide (abstracts, search vectors); 0.5 s -> tens of ms at 1M.
            models.Index(fields=["id"], condition=Q(deleted=False, hidden=False), name="paper_public_idx"),
            # "Most cited" sorts (site: nulls last; API: NULL as -1), newest first among ties.
            models.Index(
                F("cited_by_count").desc(nulls_last=True),
                F("submitted_at").desc(),
                F("arxiv_id").desc(),
                name="paper_cited_idx",
            ),
            models.Index(
                Coalesce("cited_by_count", Value(-1), output_field=models.BigIntegerField()).desc(),
                F("submitted_at").desc(),
                F("arxiv_id").desc(),
                name="paper_cited_api_idx",
            ),
        ]
        # The search index (papers.search_index) follows the papers through this log: every
        # insert, delete and change of a field it holds adds the paper's id to
        # papers_searchchange, in the same transaction, bulk upserts included.
        triggers = [
            # Statement-level with transition tables: one INSERT ... SELECT per statement, so
            # a bulk upsert of 10,000 papers logs them in one pass, not 10,000 trigger calls.
            pgtrigger.Trigger(
                name="paper_search_insert",
                when=pgtrigger.After,
                operation=pgtrigger.Insert,
                level=pgtrigger.Statement,
                referencing=pgtrigger.Referencing(new="new_rows"),
                func="INSERT INTO papers_searchchange (paper_id, changed_at)"
                " SELECT id, now() FROM new_rows; RETURN NULL;",
            ),
            pgtrigger.Trigger(
                name="paper_search_update",
                when=pgtrigger.After,
                operation=pgtrigger.Update,
                level=pgtrigger.Statement,
                referencing=pgtrigger.Referencing(old="old_rows", new="new_rows"),
                func="""
                INSERT INTO papers_searchchange (paper_id, changed_at)
                SELECT n.id, now() FROM new_rows n JOIN old_rows o ON o.id = n.id
                 WHERE (o.title, o.abstract, o.authors_text, o.categories, o.submitted_at,
                        o.deleted, o.hidden, o.cited_by_count, o.arxiv_id)
                       IS DISTINCT FROM
                       (n.title, n.abstract, n.authors_text, n.categories, n.submitted_at,
                        n.deleted, n.hidden, n.cited_by_count, n.arxiv_id);
                RETURN NULL;
                """,
            ),
            pgtrigger.Trigger(
                name="paper_search_delete",
                when=pgtrigger.After,
                operation=pgtrigger.Delete,
                level=pgtrigger.Statement,
                referencing=pgtrigger.Referencing(old="old_rows"),
                func="INSERT INTO papers_searchchange (paper_id, changed_at)"
                " SELECT id, now() FROM old_rows; RETURN NULL;",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.arxiv_id}: {self.title[:80]}"

    def get_absolute_url(self) -> str:
        """Canonical page URL, ``/papers/<arxiv-id>-<slug>`` (old-style ids keep their slash)."""
        return f"/papers/{self.arxiv_id}-{self.slug}"

    def lacks_version(self, version: int | None, *, versions_known: bool | None = None) -> bool:
        """True when ``version`` is one this paper is known not to have: above
        ``latest_version`` while its versions are known (it has :class:`PaperVersion` rows;
        arXiv numbers versions 1, 2, ... without gaps). The OAI ``arXiv`` format lists no
        versions, so a paper known only from it may have a v2 no message told us of: never
        lacking. ``None`` (no version asked) is never lacking.

        ``versions_known`` is that fact when the caller has it (an annotation); otherwise one
        query, only for a version above ``latest_version`` (none when the versions are
        prefetched)."""
        if version is None or version <= self.latest_version:
            return False
        if versions_known is None:
            versions_known = self.versions.exists()
        return versions_known

    @property
    def version_range(self) -> str:
        """The versions held, as a reader says them: ``"v1 only"`` or ``"v1 to v2"``."""
        return "v1 only" if self.latest_version <= 1 else f"v1 to v{self.latest_version}"

    @property
    def abs_url(self) -> str:
        """arXiv's abstract page."""
        return f"https://arxiv.org/abs/{self.arxiv_id}"

    @property
    def pdf_url(self) -> str:
        """arXiv's PDF (never re-hosted here)."""
        return f"https://arxiv.org/pdf/{self.arxiv_id}"

    @property
    def arxiv_doi(self) -> str:
        """The DOI arXiv registers for every paper: ``10.48550/arXiv.<id>``."""
        return f"10.48550/arXiv.{self.arxiv_id}"

    @property
    def doi(self) -> str:
        """The first of ``dois`` (the journal article; later ones are usually errata), or
        ``""``: what takes one DOI (BibTeX, the API's ``doi``)."""
        return self.dois[0] if self.dois else ""

    @property
    def doi_links(self) -> list[tuple[str, str]]:
        """``(doi, url)`` for each of ``dois``, the URL ``https://doi.org/`` + the DOI made
        path-safe (:func:`papers.identifiers.doi_url`)."""
        return [(doi, doi_url(doi)) for doi in self.dois]

    @property
    def submitted_year(self) -> int | None:
        return self.submitted_at.year if self.submitted_at else None


class PaperVersion(models.Model):
    """One arXiv version of a paper: number, timestamp (UTC) and size as arXiv reports it."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveSmallIntegerField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    size_kb = models.PositiveIntegerField(null=True, blank=True)
    source_type = models.CharField(max_length=8, blank=True)

    class Meta:
        ordering = ["paper", "version"]
        constraints = [models.UniqueConstraint(fields=["paper", "version"], name="paperversion_unique")]

    def __str__(self) -> str:
        return f"{self.paper.arxiv_id}v{self.version}"


class PaperAuthor(models.Model):
    """An author slot of a paper: its position (1-based) and the name exactly as written.

    ``keyname``/``forenames``/``suffix`` follow the OAI arXiv format; ``affiliations`` holds
    the raw affiliation strings. A collaboration ("ATLAS Collaboration") stays a
    collaboration (``is_collaboration``), never a person.
    """

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="authors")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=500)
    keyname = models.CharField(max_length=300, blank=True)
    forenames = models.CharField(max_length=300, blank=True)
    suffix = models.CharField(max_length=50, blank=True)
    affiliations = ArrayField(models.TextField(), default=list, blank=True)
    is_collaboration = models.BooleanField(default=False)

    class Meta:
        ordering = ["paper", "position"]
        constraints = [models.UniqueConstraint(fields=["paper", "position"], name="paperauthor_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def author_position(self) -> str:
        """``first``, ``middle`` or ``last`` (a sole author counts as first)."""
        count = getattr(self, "_author_count", None)
        if self.position == 1:
            return "first"
        if count is not None and self.position == count:
            return "last"
        return "middle"


class HarvestRun(models.Model):
    """One harvest: the OAI-PMH request it makes and the cursor to resume it.

    The ``resumption_token`` is saved after each page so that a killed run resumes from the
    token. A bulk load (``harvest_files(bulk=True)``) saves the definitions of the indexes
    it drops in ``deferred_indexes`` before dropping them, so that if it is killed the next
    harvest rebuilds them (``papers.bulk.paper_indexes_restore``).
    ``response_date`` of the first page of a complete run is where the next incremental
    run starts. ``last_complete_datestamp`` is the checkpoint beside the token: the latest
    day whose records in the window have all been written, kept while the list's pages come
    in datestamp order (``datestamps_in_order``); an expired token restarts the list from
    that day (see :func:`papers.harvest.harvest_oai`).
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        COMPLETE = "complete"
        FAILED = "failed"

    class Kind(models.TextChoices):
        OAI = "oai", "OAI-PMH endpoint"
        FILE = "file", "Recorded OAI-PMH responses"
        KAGGLE = "kaggle", "Kaggle JSON Lines"

    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.OAI)
    endpoint = models.CharField(max_length=500, blank=True)
    metadata_prefix = models.CharField(max_length=32)
    set_spec = models.CharField(max_length=64, blank=True)
    from_date = models.DateField(null=True, blank=True)
    until_date = models.DateField(null=True, blank=True)
    resumption_token = models.CharField(max_length=500, blank=True)
    complete_list_size = models.PositiveIntegerField(null=True, blank=True)
    response_date = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    pages = models.PositiveIntegerField(default=0)
    records_seen = models.PositiveIntegerField(default=0)
    records_written = models.PositiveIntegerField(default=0)
    records_deleted = models.PositiveIntegerField(default=0)
    records_skipped = models.PositiveIntegerField(default=0)
    restarts = models.PositiveSmallIntegerField(default=0)
    last_complete_datestamp = models.DateField(
        null=True,
        blank=True,
        help_text="Every record of the window stamped on or before this day is written (OAI-PMH day)",
    )
    datestamps_in_order = models.BooleanField(
        default=True, help_text="The pages so far came in datestamp order (no page went back a day)"
    )
    error = models.TextField(blank=True)
    source_files = ArrayField(models.TextField(), default=list, blank=True)
    deferred_indexes = ArrayField(
        models.TextField(),
        default=list,
        blank=True,
        help_text="CREATE INDEX statements of indexes a bulk load dropped and has not rebuilt yet",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["status", "metadata_prefix", "set_spec"])]

    def __str__(self) -> str:
        window = f"{self.from_date or '…'}..{self.until_date or '…'}"
        return f"{self.kind}:{self.metadata_prefix} {self.set_spec or '*'} {window} ({self.status})"


class ArxivFetch(models.Model):
    """One request to fetch a paper from the arXiv API, keyed by its normalised identifier.

    ``arxiv_id`` is unique, so asking twice (two visitors, a double click) shares one row
    and one task. ``status`` moves queued → running → done | missing | incomplete | failed;
    ``missing`` means arXiv answered with entries and none was the paper; ``incomplete`` that
    its answers stayed empty through every retry (BUGS.md API-01): arXiv answers an empty
    list both for an identifier it has no paper for and, in bursts, for papers it has, so
    an empty answer never says "no such paper". ``failed`` means arXiv refused the request
    or could not be reached. ``attempts`` counts task runs, ``message`` is what the progress
    page shows. (An on-demand fetch lists one identifier, so an incomplete one has no offset
    to resume from: it starts again at 0.)

    A finished fetch is never final: a visitor's request queues it again once
    :attr:`asks_again_at` has passed. ``missing`` waits :attr:`RECHECK_MISSING_AFTER` (an
    hour): an identifier is assigned at submission but listed only from its announcement,
    and an hour keeps one identifier to at most four API calls an hour (every call also
    waits for the one shared 3 s slot). ``incomplete`` waits
    :attr:`RECHECK_INCOMPLETE_AFTER` (ten minutes: arXiv's empty bursts pass, and the reader
    may be waiting for a paper that exists). ``failed`` waits :attr:`RETRY_FAILED_AFTER` (a
    day), or nothing when the task never reached the queue (no ``finished_at``).
    """

    RECHECK_MISSING_AFTER = timedelta(hours=1)
    RECHECK_INCOMPLETE_AFTER = timedelta(minutes=10)
    RETRY_FAILED_AFTER = timedelta(days=1)

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        MISSING = "missing"
        INCOMPLETE = "incomplete"
        FAILED = "failed"

    arxiv_id = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"{self.arxiv_id} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}

    @property
    def asks_again_at(self) -> datetime | None:
        """When a visitor's request may queue this fetch again (aware UTC datetime); ``None``
        while it is pending (the stale check is the service's: ``papers.fetch``)."""
        if self.is_pending:
            return None
        if self.status == self.Status.DONE or self.finished_at is None:
            return self.updated_at
        waits = {
            self.Status.MISSING: self.RECHECK_MISSING_AFTER,
            self.Status.INCOMPLETE: self.RECHECK_INCOMPLETE_AFTER,
        }
        return self.finished_at + waits.get(self.status, self.RETRY_FAILED_AFTER)

    def may_ask_again(self, now: datetime | None = None) -> bool:
        """True when a visitor's request should queue this finished fetch again."""
        at = self.asks_again_at
        return at is not None and (now or timezone.now()) >= at


class Collaboration(models.Model):
    """A collaboration named in author lists ("ATLAS Collaboration", "CDF", "Keck Array"):
    a group of people, never a person, so never a researcher (issue 19).

    ``key`` (:func:`papers.authors.collaboration_key`) makes one row of its spellings across
    papers (``"The BABAR Collaboration"`` and ``"BaBar collaboration"`` are ``babar``);
    ``name`` is the first spelling seen. Its page is ``/collaborations/<id>-<slug>``.
    """

    name = models.CharField(max_length=300)
    key = models.CharField(max_length=300, unique=True)
    slug = models.SlugField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        """Canonical page, ``/collaborations/<id>-<slug>``."""
        return f"/collaborations/{self.pk}-{self.slug}"


class PaperCollaboration(models.Model):
    """One collaboration of one paper, in author order.

    ``position`` is the position of the first slot that names the collaboration or writes
    "for" it (so a paper's collaborations sort among its author slots); ``members`` are the
    paper's person slots written "for" it ("T. Onogi for the JLQCD Collaboration"): their
    membership on this paper. Rewritten with the paper's slots (:mod:`papers.collaborations`).
    """

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="collaborations")
    collaboration = models.ForeignKey(Collaboration, on_delete=models.CASCADE, related_name="paper_entries")
    position = models.PositiveIntegerField()
    members = models.ManyToManyField(PaperAuthor, blank=True, related_name="collaborations")

    class Meta:
        ordering = ["paper", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "collaboration"], name="papercollaboration_unique")
        ]

    def __str__(self) -> str:
        return f"{self.collaboration} on {self.paper_id}"


class SearchChange(models.Model):
    """One change the search index has to follow (:mod:`papers.search_index`): the paper
    ``paper_id`` (no foreign key: deleted rows are logged too) was inserted, deleted or had a
    field the index holds changed, at ``changed_at``. Written only by the ``paper_search_change``
    trigger; ``id`` orders the log, and each copy of the index keeps the last id it applied.
    Rows every copy has applied are pruned (:func:`papers.search_index_sync.prune_changes`)."""

    id = models.BigAutoField(primary_key=True)
    paper_id = models.BigIntegerField()
    changed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"change {self.id}: paper {self.paper_id}"


class SearchIndexState(models.Model):
    """The search log's one bookkeeping row (``key="log"``): ``pruned_through``, the highest
    :class:`SearchChange` id pruned. A copy of the index whose last applied id is below it
    missed changes and is rebuilt whole."""

    key = models.CharField(max_length=16, primary_key=True)
    pruned_through = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.key}: pruned through {self.pruned_through}"
