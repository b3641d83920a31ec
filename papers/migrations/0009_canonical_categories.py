"""Stored categories become canonical (BUGS.md CAT-01), as ingest files them.

An alias or retired-archive code (``math.IT``, ``stat.TH``, ``chao-dyn``) becomes the code
arXiv files it under (``cs.IT``, ``math.ST``, ``nlin.CD``), duplicates dropped in first-seen
order, the primary the canonical code of the first. ``content_hash`` is recomputed the way
:mod:`papers.upsert` computes it, so provenance signs the changed record and the next
harvest of the paper finds it unchanged. Papers written by ``papers_upsert`` already carry
canonical codes (its ``CategoryMap``), so on those rows this changes nothing.
"""

from django.db import migrations

from papers.authors import AuthorSlot
from papers.records import VersionInfo
from papers.upsert import _hash_content


class _AsStored:
    """A historical row as ``_hash_content`` reads it. A source field that a later migration
    adds reads as ``None`` here; the next harvest of such a paper then rewrites its hash once."""

    def __init__(self, row) -> None:
        self._row = row

    def __getattr__(self, name: str):
        return getattr(self._row, name, None)


def _canonical_map(category_model) -> dict[str, str]:
    """Every non-canonical code mapped to the end of its chain (cycles stop the walk)."""
    direct = dict(category_model.objects.filter(canonical__isnull=False).values_list("code", "canonical_id"))
    resolved = {}
    for code in direct:
        target, seen = direct[code], {code}
        while target in direct and target not in seen:
            seen.add(target)
            target = direct[target]
        resolved[code] = target
    return resolved


def canonicalise(apps, schema_editor) -> None:
    """Rewrite the categories, primary category and content hash of papers holding a
    non-canonical code."""
    Paper = apps.get_model("papers", "Paper")
    PaperAuthor = apps.get_model("papers", "PaperAuthor")
    PaperVersion = apps.get_model("papers", "PaperVersion")
    mapping = _canonical_map(apps.get_model("papers", "Category"))
    if not mapping:
        return
    aliases = list(mapping)
    stale = Paper.objects.filter(categories__overlap=aliases) | Paper.objects.filter(
        primary_category_id__in=aliases
    )
    for paper in stale.order_by("pk").iterator(chunk_size=500):
        codes: list[str] = []
        for code in paper.categories:
            if mapping.get(code, code) not in codes:
                codes.append(mapping.get(code, code))
        paper.categories = codes
        paper.primary_category_id = codes[0] if codes else mapping.get(paper.primary_category_id)
        authors = [
            AuthorSlot(a.name, a.keyname, a.forenames, a.suffix, list(a.affiliations), a.is_collaboration)
            for a in PaperAuthor.objects.filter(paper_id=paper.pk).order_by("position")
        ]
        versions = [
            VersionInfo(v.version, v.submitted_at, v.size_kb, v.source_type)
            for v in PaperVersion.objects.filter(paper_id=paper.pk).order_by("version")
        ]
        paper.content_hash = _hash_content(_AsStored(paper), authors, versions)
        Paper.objects.filter(pk=paper.pk).update(
            categories=paper.categories,
            primary_category_id=paper.primary_category_id,
            content_hash=paper.content_hash,
        )


class Migration(migrations.Migration):
    dependencies = [("papers", "0008_paper_dois")]

    operations = [migrations.RunPython(canonicalise, migrations.RunPython.noop)]
