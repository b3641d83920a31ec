"""Synthetic arXiv-shaped corpora for scale work, drawn from the shape of the bundled sample.

Everything random follows the bundled real sample (``data/arxiv``, what ``make demo`` loads)
and the bundled ROR records (``data/ror``): family names and forenames (TeX accents decoded,
particles such as ``van der`` kept) are drawn with their sample frequencies, persons per
paper and collaboration slots from the sample's author lists, categories (with their set
specs) as whole lists of a sample paper, version counts from the arXivRaw page, title and
abstract words from the sample's word frequencies. Dates spread from February 2008 to
December 2025 in proportion to arXiv's yearly submissions, so identifiers are new-style
``YYMM.NNNN``/``YYMM.NNNNN`` and never collide with the sample (``0704``, ``0705``,
``0801``).

Researchers are generated directly, not by the matcher: each author slot either starts a
new researcher (probability :data:`NEW_RESEARCHER`), reuses one in proportion to the papers
they already have (preferential attachment, which gives the Zipf-like tail of real
authorship), or, for co-authors, a researcher created next to the paper's first author (a
team: the same people write together again). A researcher's name and institution are a
pure function of the seed and their number. Authorships are written as local matches
(confidence 0.6), affiliations as string matches of the institution's ROR display name.
No provenance records are signed (pages work without them).
"""

from __future__ import annotations

import hashlib
import random
import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from itertools import accumulate
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from institutions.models import AuthorAffiliation, Institution
from institutions.services import institutions_load
from papers.kaggle import iter_kaggle
from papers.models import Paper, PaperAuthor, PaperVersion
from papers.oai import parse_oai_response
from papers.records import ArxivRecord
from papers.text import make_slug
from papers.upsert import SLOT_FIELDS, SOURCE_FIELDS, CategoryMap
from researchers.matching_common import CONFIDENCE_LOCAL_LINKED, slot_block
from researchers.models import Authorship, MatchMethod, Researcher
from wove.bulk import copy_upsert, secondary_indexes_create, secondary_indexes_drop
from wove.statistics import tables_refresh

SAMPLE_DIR = Path(settings.BASE_DIR) / "data"
SAMPLE_OAI = ("arxiv/oai/arxivsync_436115-5001.xml", "arxiv/oai/arxivsync_47001.xml")
SAMPLE_KAGGLE = "arxiv/kaggle/weaviate_metadata_1000.lines0001-0800.json"
ROR_FILE = "ror/ror_records_v2.json"

# Approximate arXiv new submissions per year (arXiv's submission statistics, rounded to
# thousands); only the proportions matter. 2008 starts in February (see module docstring).
YEARLY_SUBMISSIONS = {
    2008: 59,
    2009: 64,
    2010: 70,
    2011: 77,
    2012: 85,
    2013: 93,
    2014: 98,
    2015: 105,
    2016: 113,
    2017: 124,
    2018: 140,
    2019: 155,
    2020: 178,
    2021: 181,
    2022: 186,
    2023: 208,
    2024: 240,
    2025: 280,
}
NEW_RESEARCHER = 0.3  # share of person slots that start a new researcher
TEAM_COAUTHOR = 0.5  # share of co-author slots taken from the first author's team
TEAM_SPAN = 12  # a team: researchers numbered within this distance of the first author
INITIALS_FORM = 0.25  # share of slots that write the forenames as initials ("J. P. Smith")
BATCH_SIZE = 2000
_MASK = (1 << 64) - 1
# A drawn word: a run of non-space characters in which a math island ($…$ or $$…$$, spaces and
# all) counts as one character, so "$M_{\rm BH} \sim 10^6$" is drawn whole. Drawn one by one
# from split(), half islands met other halves at random and left a $ open to the abstract's end.
_WORD = re.compile(r"(?:\$\$[^$]*\$\$|\$[^$]*\$|\\\$|[^\s$])+|\S+")


class CorpusExists(Exception):
    """The database already holds this corpus's first paper (generate into an empty archive)."""


@dataclass(frozen=True)
class SampleShape:
    """Distributions read from the bundled sample; lists repeat values by their frequency."""

    forenames: tuple[str, ...]
    keynames: tuple[str, ...]
    persons_per_paper: tuple[int, ...]
    collaborations: tuple[str, ...]
    collaboration_rate: float
    category_sets: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (categories, set specs)
    version_counts: tuple[int, ...]
    licenses: tuple[str, ...]
    title_words: tuple[str, ...]
    abstract_words: tuple[str, ...]
    title_lengths: tuple[int, ...]
    abstract_lengths: tuple[int, ...]
    affiliated_rate: float  # share of person slots with an affiliation (OAI arXiv page)


@cache
def sample_shape(data_dir: Path = SAMPLE_DIR) -> SampleShape:
    """Read the bundled sample (three files, about 2,800 papers; a few seconds, then cached
    per process) into a :class:`SampleShape`. Raises ``FileNotFoundError`` when ``data_dir``
    lacks the sample."""
    records: list[ArxivRecord] = []
    for name in SAMPLE_OAI:
        records.extend(parse_oai_response(str(data_dir / name)).records)
    with open(data_dir / SAMPLE_KAGGLE, "rb") as stream:
        records.extend(r for r in iter_kaggle(stream) if isinstance(r, ArxivRecord))
    categories = CategoryMap()
    forenames, keynames, persons, collabs = [], [], [], []
    category_sets, versions, licenses = [], [], []
    title_words, abstract_words, title_lengths, abstract_lengths = [], [], [], []
    with_collab = affiliated = person_slots_arxiv = 0
    for record in records:
        if record.deleted or not record.title:
            continue
        if record.authors:
            people = [a for a in record.authors if not a.is_collaboration]
            persons.append(max(1, len(people)))
            groups = [a.name for a in record.authors if a.is_collaboration]
            collabs.extend(groups)
            with_collab += bool(groups)
            for slot in people:
                if slot.keyname and slot.forenames:
                    keynames.append(slot.keyname)
                    forenames.append(slot.forenames)
                if record.source == "arXiv":
                    person_slots_arxiv += 1
                    affiliated += bool(slot.affiliations)
        codes = tuple(categories.canonical(record.categories))
        if codes and record.set_specs:
            category_sets.append((codes, tuple(record.set_specs)))
        if record.source == "arXivRaw" and record.versions:
            versions.append(len(record.versions))
            licenses.append(record.license)
        title = _words(record.title)
        abstract = _words(record.abstract)
        title_words.extend(title)
        abstract_words.extend(abstract)
        title_lengths.append(len(title))
        abstract_lengths.append(len(abstract))
    return SampleShape(
        forenames=tuple(forenames),
        keynames=tuple(keynames),
        persons_per_paper=tuple(persons),
        collaborations=tuple(collabs) or ("The Synthetic Collaboration",),
        collaboration_rate=with_collab / max(1, len(persons)),
        category_sets=tuple(category_sets),
        version_counts=tuple(versions) or (1,),
        licenses=tuple(licenses) or ("",),
        title_words=tuple(title_words),
        abstract_words=tuple(abstract_words),
        title_lengths=tuple(title_lengths),
        abstract_lengths=tuple(abstract_lengths),
        affiliated_rate=affiliated / max(1, person_slots_arxiv),
    )


def _words(text: str) -> list[str]:
    """``text``'s words for drawing (see :data:`_WORD`), leaving out any word with an unpaired
    ``$`` (an island split by a line break, or text that never closed it): drawn into another
    abstract it would open math there to the end."""
    words = _WORD.findall(text)
    return [w for w in words if w.replace("\\$", "").count("$") % 2 == 0]


@dataclass(slots=True)
class SyntheticAuthor:
    """One author slot: ``researcher`` is the researcher's number (``-1`` for a collaboration),
    ``institution`` an index into the institution list (``-1``: no affiliation)."""

    name: str
    keyname: str
    forenames: str
    researcher: int
    institution: int = -1


@dataclass(slots=True)
class SyntheticPaper:
    """One generated paper; ``versions`` are the UTC timestamps of v1..vN."""

    arxiv_id: str
    title: str
    abstract: str
    categories: tuple[str, ...]
    set_specs: tuple[str, ...]
    versions: list[datetime]
    license: str
    cited_by_count: int
    authors: list[SyntheticAuthor]


def _mix(value: int) -> int:
    """SplitMix64 finaliser: a fast, well-spread 64-bit hash of an integer."""
    value = (value + 0x9E3779B97F4A7C15) & _MASK
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK
    return value ^ (value >> 31)


def _initials(forenames: str) -> str:
    parts = forenames.replace("-", " - ").split()
    out = " ".join(p if p == "-" else p[0] + "." for p in parts if p)
    return out.replace(" - ", "-")


def _months(papers: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Months (year, month) and the cumulative paper count at the end of each."""
    weights = []
    months = []
    for year, count in YEARLY_SUBMISSIONS.items():
        for month in range(2 if year == 2008 else 1, 13):
            months.append((year, month))
            weights.append(count)
    total = sum(weights)
    cumulative = [round(papers * c / total) for c in accumulate(weights)]
    cumulative[-1] = papers
    for (year, _month), start, end in zip(months, [0, *cumulative[:-1]], cumulative, strict=True):
        if end - start > (9999 if year < 2015 else 99999):
            raise ValueError(f"{papers} papers overflow arXiv's monthly identifier space")
    return months, cumulative


class CorpusGenerator:
    """Deterministic stream of :class:`SyntheticPaper` for ``papers`` papers and ``seed``.

    Iterating twice with the same arguments yields the same papers, researchers and names.
    Memory grows by about 16 bytes per author slot (the preferential-attachment urn), not
    with the text generated. ``institutions`` is the number of institutions to draw from.
    """

    def __init__(self, *, shape: SampleShape, papers: int, seed: int, institutions: int) -> None:
        self.shape = shape
        self.papers = papers
        self.seed = seed
        self.institutions = institutions
        self.researchers = 0  # researchers created so far; numbered 0..researchers-1
        self._salt = int.from_bytes(hashlib.sha256(f"wove-synthetic-{seed}".encode()).digest()[:8], "big")
        self._months, self._cumulative = _months(papers)
        # Institutions weighted 1/(rank+1): a few large ones, a long tail (as affiliations are).
        inst_weights = list(accumulate(1 / (r + 1) for r in range(institutions)))
        self._inst_cdf = [w / inst_weights[-1] for w in inst_weights] if institutions else []

    # -- researchers: pure functions of (seed, number)

    def researcher_name(self, number: int) -> tuple[str, str]:
        """``(forenames, keyname)`` of researcher ``number``."""
        h = _mix(self._salt ^ number)
        shape = self.shape
        return shape.forenames[h % len(shape.forenames)], shape.keynames[(h >> 24) % len(shape.keynames)]

    def researcher_institution(self, number: int) -> int:
        """Index of researcher ``number``'s institution, or ``-1`` when they give none."""
        if not self._inst_cdf:
            return -1
        h = _mix(self._salt ^ (number << 1) ^ 0x5BD1E995)
        if (h & 0xFFFF) / 0x10000 >= self.shape.affiliated_rate:
            return -1
        return bisect_right(self._inst_cdf, ((h >> 16) & 0xFFFFF) / 0x100000)

    def __iter__(self) -> Iterator[SyntheticPaper]:
        rng = random.Random(self.seed)
        shape = self.shape
        urn = array("q")  # one entry per person slot written: preferential attachment
        self.researchers = 0
        month_index = 0
        for index in range(self.papers):
            while index >= self._cumulative[month_index]:
                month_index += 1
            year, month = self._months[month_index]
            month_start = self._cumulative[month_index - 1] if month_index else 0
            seq = index - month_start  # 0-based within the month; days follow the numbers
            arxiv_id = f"{year % 100:02d}{month:02d}.{seq + 1:0{4 if year < 2015 else 5}d}"
            day = 1 + seq * 28 // (self._cumulative[month_index] - month_start)
            at = rng.randrange(86400)
            submitted = datetime(year, month, day, at // 3600, at // 60 % 60, at % 60, tzinfo=UTC)
            versions = [submitted]
            for _ in range(rng.choice(shape.version_counts) - 1):
                versions.append(
                    versions[-1] + timedelta(days=rng.randrange(1, 240), seconds=rng.randrange(86400))
                )

            chosen: list[int] = []
            for position in range(rng.choice(shape.persons_per_paper)):
                for _attempt in range(4):
                    if not urn or rng.random() < NEW_RESEARCHER:
                        number = self.researchers
                        self.researchers += 1
                    elif position and rng.random() < TEAM_COAUTHOR:
                        lead = chosen[0]
                        number = min(self.researchers - 1, max(0, lead + rng.randint(-TEAM_SPAN, TEAM_SPAN)))
                    else:
                        number = urn[int(rng.random() * len(urn))]
                    if number not in chosen:
                        break
                else:
                    number = self.researchers
                    self.researchers += 1
                chosen.append(number)
            authors = []
            for number in chosen:
                urn.append(number)
                forenames, keyname = self.researcher_name(number)
                if rng.random() < INITIALS_FORM:
                    forenames = _initials(forenames)
                authors.append(
                    SyntheticAuthor(
                        name=f"{forenames} {keyname}",
                        keyname=keyname,
                        forenames=forenames,
                        researcher=number,
                        institution=self.researcher_institution(number),
                    )
                )
            if rng.random() < shape.collaboration_rate:
                group = rng.choice(shape.collaborations)
                authors.append(SyntheticAuthor(name=group, keyname="", forenames="", researcher=-1))

            title = " ".join(rng.choices(shape.title_words, k=max(3, rng.choice(shape.title_lengths))))
            abstract = " ".join(
                rng.choices(shape.abstract_words, k=max(20, rng.choice(shape.abstract_lengths)))
            )
            categories, set_specs = rng.choice(shape.category_sets)
            yield SyntheticPaper(
                arxiv_id=arxiv_id,
                title=title.rstrip(".") or "Untitled",
                abstract=abstract,
                categories=categories,
                set_specs=set_specs,
                versions=versions,
                license=rng.choice(shape.licenses),
                cited_by_count=int(rng.paretovariate(1.2)) - 1,
                authors=authors,
            )


@dataclass
class CorpusSummary:
    """Counts written by :func:`corpus_generate`, and the seconds it took."""

    papers: int = 0
    versions: int = 0
    slots: int = 0
    authorships: int = 0
    researchers: int = 0
    affiliations: int = 0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def line(self) -> str:
        return (
            f"generated {self.papers} papers, {self.versions} versions, {self.slots} author slots, "
            f"{self.researchers} researchers, {self.authorships} authorships, "
            f"{self.affiliations} affiliation links in {self.seconds:.1f} s"
        )


# The harvester's source fields (papers.upsert.SOURCE_FIELDS) plus what a synthetic paper
# also sets directly.
_PAPER_FIELDS = [
    "arxiv_id",
    *SOURCE_FIELDS,
    "cited_by_count",
    "editor_note",
    "hidden",
    "created_at",
    "modified_at",
]


def _institutions() -> list[tuple[int, str]]:
    """``(id, display name)`` of every institution, loading the bundled ROR records first
    when the archive has none."""
    if not Institution.objects.exists():
        institutions_load(paths=[SAMPLE_DIR / ROR_FILE])
    return list(Institution.objects.order_by("ror_id").values_list("id", "name"))


def corpus_generate(
    *,
    papers: int,
    seed: int = 1,
    batch_size: int = BATCH_SIZE,
    shape: SampleShape | None = None,
    progress: Callable[[int], None] | None = None,
) -> CorpusSummary:
    """Write a synthetic corpus of ``papers`` papers into the archive, ``batch_size`` per
    transaction, through COPY (:func:`wove.bulk.copy_upsert`): papers, versions, author
    slots, researchers, authorships and affiliation links, then ``paper_count`` and ANALYZE.

    Meant for an archive without this corpus: raises :class:`CorpusExists` when the first
    paper of the corpus is already stored. Deterministic in ``(papers, seed)`` apart from
    database ids and timestamps. ``progress(n)`` is called with the papers of each batch.
    Returns a :class:`CorpusSummary`.
    """
    started = timezone.now()
    shape = shape or sample_shape()
    institutions = _institutions()
    generator = CorpusGenerator(shape=shape, papers=papers, seed=seed, institutions=len(institutions))
    first = next(iter(generator), None)
    if first is None:
        return CorpusSummary()
    if Paper.objects.filter(arxiv_id=first.arxiv_id).exists():
        raise CorpusExists(f"paper {first.arxiv_id} exists: generate into an empty archive")
    CategoryMap().ensure(code for codes, _sets in shape.category_sets for code in codes)

    writer = _CorpusWriter(generator=generator, institutions=institutions, progress=progress)
    deferred: list[str] = []
    if not Paper.objects.exists():
        # A first load builds each secondary index once at its end, as the bulk harvest does
        # (papers.bulk): kept through every batch, they made the 2.5 M corpus's rate fall from
        # 49,000 papers a minute to under 20,000 as they grew (BENCHMARKS.md, issue 28).
        with transaction.atomic(), connection.cursor() as cursor:
            deferred = secondary_indexes_drop(cursor, CORPUS_TABLES)
    try:
        batch: list[SyntheticPaper] = []
        for paper in generator:
            batch.append(paper)
            if len(batch) >= batch_size:
                writer.flush(batch)
        if batch:
            writer.flush(batch)
        writer.paper_counts_set()
    finally:
        if deferred:
            with transaction.atomic(), connection.cursor() as cursor:
                secondary_indexes_create(cursor, deferred)
    summary = writer.finish()
    summary.seconds = (timezone.now() - started).total_seconds()
    return summary


def _paper_row(p: SyntheticPaper, now: datetime) -> tuple:
    """The :data:`_PAPER_FIELDS` values of one synthetic paper."""
    return (
        p.arxiv_id,
        make_slug(p.title, fallback=make_slug(p.arxiv_id)),
        p.title,
        p.abstract,
        ", ".join(a.name for a in p.authors),
        p.categories[0],
        list(p.categories),
        p.license,
        [],  # dois
        "",
        "",
        "",
        "",
        "",
        p.authors[0].name if p.authors else "",
        "",
        p.versions[0],
        False,
        p.versions[-1].date(),
        len(p.versions),
        p.versions[-1].date(),
        list(p.set_specs),
        False,
        False,
        "arXivRaw",
        "arXiv",
        "",
        p.cited_by_count,
        "",
        False,
        now,
        now,
    )


# The tables a corpus writes rows into (its first load defers their secondary indexes).
CORPUS_TABLES = (
    "papers_paper",
    "papers_paperauthor",
    "papers_paperversion",
    "researchers_researcher",
    "researchers_authorship",
    "institutions_authoraffiliation",
    # Written by the researchers' triggers when paper_count is set (researchers.name_index).
    "researchers_nameword",
    "researchers_nametoken",
)


class _CorpusWriter:
    """Writes the batches of one :func:`corpus_generate` run, one transaction each, and
    keeps what spans batches: researcher number → database id, the lowest new researcher
    id, the counts written."""

    def __init__(
        self,
        *,
        generator: CorpusGenerator,
        institutions: list[tuple[int, str]],
        progress: Callable[[int], None] | None,
    ) -> None:
        self.generator = generator
        self.institutions = institutions
        self.progress = progress
        self.summary = CorpusSummary()
        self.researcher_ids = array("q")  # researcher number -> database id
        self.low_id: int | None = None

    def flush(self, batch: list[SyntheticPaper]) -> None:
        """Write ``batch`` (and the researchers the generator created for it) in one
        transaction, count it, report progress and empty the list."""
        now = timezone.now()
        with transaction.atomic(), connection.cursor() as cursor:
            self._write_researchers(cursor, now)
            paper_ids = self._write_papers(batch, now)
            slot_ids, slots = self._write_slots(batch, paper_ids)
            authorships, links = self._write_links(batch, paper_ids, slot_ids, now)
        summary = self.summary
        summary.papers += len(batch)
        summary.versions += sum(len(p.versions) for p in batch)
        summary.slots += slots
        summary.authorships += authorships
        summary.affiliations += links
        if self.progress:
            self.progress(len(batch))
        batch.clear()

    def _write_researchers(self, cursor, now: datetime) -> None:
        """Reserve ids for the researchers created since the last batch and write them."""
        new = self.generator.researchers - len(self.researcher_ids)
        if not new:
            return
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('researchers_researcher', 'id')) "
            "FROM generate_series(1, %s)",
            [new],
        )
        ids = [row[0] for row in cursor.fetchall()]
        self.low_id = ids[0] if self.low_id is None else self.low_id
        rows = []
        for number, rid in enumerate(ids, start=len(self.researcher_ids)):
            forenames, keyname = self.generator.researcher_name(number)
            display = f"{forenames} {keyname}"
            variants = sorted({display, f"{_initials(forenames)} {keyname}"})
            rows.append((rid, display, make_slug(display, fallback="researcher"), variants, 0, now, now))
            self.researcher_ids.append(rid)
        copy_upsert(
            model=Researcher,
            fields=[
                "id",
                "display_name",
                "slug",
                "name_variants",
                "paper_count",
                "created_at",
                "modified_at",
            ],
            rows=rows,
            conflict_fields=["id"],
            update_fields=[],
        )

    def _write_papers(self, batch: list[SyntheticPaper], now: datetime) -> dict[str, int]:
        """Write the papers and their versions; returns arXiv id → paper id."""
        paper_ids = dict(
            (arxiv_id, pk)
            for pk, arxiv_id in copy_upsert(
                model=Paper,
                fields=_PAPER_FIELDS,
                rows=[_paper_row(p, now) for p in batch],
                conflict_fields=["arxiv_id"],
                update_fields=[],
                returning=["id", "arxiv_id"],
            )
        )
        copy_upsert(
            model=PaperVersion,
            fields=["paper", "version", "submitted_at", "size_kb", "source_type"],
            rows=(
                (paper_ids[p.arxiv_id], number, at, 10 + (number * 37 + len(p.title)) % 900, "D")
                for p in batch
                for number, at in enumerate(p.versions, start=1)
            ),
            conflict_fields=["paper", "version"],
            update_fields=[],
        )
        return paper_ids

    def _write_slots(
        self, batch: list[SyntheticPaper], paper_ids: dict[str, int]
    ) -> tuple[dict[tuple, int], int]:
        """Write the author slots (affiliation strings included); returns
        ``({(paper id, position): slot id}, slots written)``."""
        slot_rows = []
        for p in batch:
            for position, a in enumerate(p.authors, start=1):
                affiliation = [self.institutions[a.institution][1]] if a.institution >= 0 else []
                slot_rows.append(
                    (
                        paper_ids[p.arxiv_id],
                        position,
                        a.name,
                        a.keyname,
                        a.forenames,
                        "",
                        affiliation,
                        a.researcher < 0,
                    )
                )
        slot_ids = {
            (paper, position): pk
            for pk, paper, position in copy_upsert(
                model=PaperAuthor,
                fields=SLOT_FIELDS,
                rows=slot_rows,
                conflict_fields=["paper", "position"],
                update_fields=[],
                returning=["id", "paper", "position"],
            )
        }
        return slot_ids, len(slot_rows)

    def _write_links(
        self,
        batch: list[SyntheticPaper],
        paper_ids: dict[str, int],
        slot_ids: dict[tuple, int],
        now: datetime,
    ) -> tuple[int, int]:
        """Write the authorships (local matches) and affiliation links (string matches) of
        the person slots; returns how many of each."""
        authorships, links = [], []
        for p in batch:
            pid = paper_ids[p.arxiv_id]
            for position, a in enumerate(p.authors, start=1):
                if a.researcher < 0:
                    continue
                slot = slot_ids[(pid, position)]
                authorships.append(
                    (
                        slot,
                        pid,
                        self.researcher_ids[a.researcher],
                        MatchMethod.LOCAL.value,
                        "",
                        CONFIDENCE_LOCAL_LINKED,
                        slot_block(a.name, a.keyname, a.forenames),
                        now,
                        now,
                    )
                )
                if a.institution >= 0:
                    iid, name = self.institutions[a.institution]
                    links.append((slot, iid, "string-match", "arxiv", name, iid, "direct", 0.95, now, now))
        copy_upsert(
            model=Authorship,
            fields=[
                "slot",
                "paper",
                "researcher",
                "method",
                "source",
                "confidence",
                "block",
                "created_at",
                "modified_at",
            ],
            rows=authorships,
            conflict_fields=["slot"],
            update_fields=[],
        )
        copy_upsert(
            model=AuthorAffiliation,
            fields=[
                "slot",
                "institution",
                "source",
                "string_origin",
                "matched_string",
                "matched_institution",
                "resolution",
                "confidence",
                "created_at",
                "modified_at",
            ],
            rows=links,
            conflict_fields=["slot", "institution"],
            update_fields=[],
        )
        return len(authorships), len(links)

    def paper_counts_set(self) -> None:
        """After the last batch: set ``paper_count`` of the new researchers (before a first
        load's indexes are built: 2.4 million rows updated through every index of the
        researchers' table took over ten minutes at 2.5 M papers)."""
        with connection.cursor() as cursor:
            # One researcher holds at most one slot per paper, so rows counted are papers.
            cursor.execute(
                "UPDATE researchers_researcher r SET paper_count = c.n "
                "FROM (SELECT researcher_id, count(*) AS n FROM researchers_authorship "
                "WHERE researcher_id >= %s GROUP BY researcher_id) c WHERE r.id = c.researcher_id",
                [self.low_id or 0],
            )

    def finish(self) -> CorpusSummary:
        """VACUUM and ANALYZE the tables written, return the counts (``seconds`` left to the
        caller)."""
        self.summary.researchers = len(self.researcher_ids)
        # VACUUM too: a corpus is measured as an archive whose autovacuum has caught up (GIN
        # pending lists merged, the visibility map set for index-only scans).
        tables_refresh(CORPUS_TABLES, vacuum=True)
        return self.summary
