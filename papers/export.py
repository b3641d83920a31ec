"""Citation exports: BibTeX (biblatex/BibTeX ``@misc`` with arXiv eprint fields, as arXiv's
own "Export BibTeX citation" writes them) and RIS (the RIS tagged format as read by Zotero,
EndNote and Mendeley), for one paper or a list."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .latex import compilable_tex
from .models import Paper, PaperAuthor
from .templatetags.wove import readable_text
from .text import ascii_fold, clean_text, collapse_whitespace, strip_control, tex_to_unicode

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_STOP = {"a", "an", "the", "on", "of", "in", "for", "and", "to", "at", "from", "with", "by"}


def _unmatched_braces(text: str) -> set[int]:
    """Positions of the braces in ``text`` that have no partner. BibTeX's scanner counts
    every brace in a field value, a backslash-escaped one too, so escapes are not skipped."""
    opened: list[int] = []
    unmatched: set[int] = set()
    for index, char in enumerate(text):
        if char == "{":
            opened.append(index)
        elif char == "}":
            if opened:
                opened.pop()
            else:
                unmatched.add(index)
    unmatched.update(opened)
    return unmatched


def bibtex_value(text: str) -> str:
    """A field value for ``{...}``: TeX kept (BibTeX readers are TeX), control characters
    removed, whitespace collapsed, unescaped ``%``, ``&`` and ``#`` escaped. A brace without
    a partner is dropped (with the backslash escaping it), and so is a trailing lone
    backslash: either would end the entry early or swallow the closing brace, letting the
    rest of the text be read as further fields."""
    value = collapse_whitespace(strip_control(text or ""))
    value = re.sub(r"(?<!\\)([%&#])", r"\\\1", value)
    unmatched = _unmatched_braces(value)
    if unmatched:
        kept: list[str] = []
        for index, char in enumerate(value):
            if index in unmatched:
                if kept and kept[-1] == "\\":
                    kept.pop()
                continue
            kept.append(char)
        value = "".join(kept)
    while re.search(r"(?<!\\)(?:\\\\)*\\$", value):
        value = value[:-1].rstrip()
    return value


def _bib_author(slot: PaperAuthor) -> str:
    if slot.is_collaboration:
        return "{" + bibtex_value(slot.name) + "}"
    if slot.keyname:
        name = slot.keyname
        if slot.suffix:
            name += ", " + slot.suffix
        if slot.forenames:
            name += ", " + slot.forenames
        return bibtex_value(name)
    return bibtex_value(slot.name)


def citation_key(paper: Paper, authors: Sequence[PaperAuthor]) -> str:
    """``<first author's surname><year><first title word>`` in lower-case ASCII, as arXiv and
    Google Scholar form keys (``li2008chiral``); ``arxiv<id>`` when nothing is usable."""
    first = authors[0] if authors else None
    surname = (first.keyname or first.name.split()[-1]) if first else ""
    surname = re.sub(r"[^a-z]", "", ascii_fold(tex_to_unicode(surname)).lower())
    words = re.findall(r"[a-z]+", ascii_fold(tex_to_unicode(paper.title)).lower())
    word = next((w for w in words if w not in _STOP and len(w) > 2), "")
    year = str(paper.submitted_at.year) if paper.submitted_at else ""
    key = f"{surname}{year}{word}"
    return key if surname else "arxiv" + re.sub(r"[^0-9a-z]", "", paper.arxiv_id.lower())


def bibtex_entry(paper: Paper, authors: Sequence[PaperAuthor], *, key: str | None = None) -> str:
    """One ``@misc`` entry (BibTeX) for ``paper`` with its ordered author slots; ``doi``
    holds one DOI, the paper's first (arXiv's when it has none). Title and note are TeX that
    pdflatex sets in a document loading amsmath and amssymb (:func:`papers.latex.compilable_tex`:
    arXiv's math outside ``$...$`` wrapped in it)."""
    fields: list[tuple[str, str]] = [
        ("title", "{" + compilable_tex(bibtex_value(paper.title)) + "}"),
        ("author", " and ".join(_bib_author(a) for a in authors) or bibtex_value(paper.authors_text)),
    ]
    if paper.submitted_at:
        fields.append(("year", str(paper.submitted_at.year)))
    fields += [
        ("eprint", paper.arxiv_id),
        ("archivePrefix", "arXiv"),
    ]
    if paper.primary_category_id:
        fields.append(("primaryClass", paper.primary_category_id))
    fields.append(("doi", paper.doi or paper.arxiv_doi))
    fields.append(("url", paper.abs_url))
    if paper.journal_ref:
        fields.append(("note", compilable_tex(bibtex_value(paper.journal_ref))))
    lines = [f"@misc{{{key or citation_key(paper, authors)},"]
    for name, value in fields:
        lines.append(f"  {name} = {{{value}}},")
    if paper.submitted_at:
        lines.append(f"  month = {_MONTHS[paper.submitted_at.month - 1]},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _ris_line(tag: str, value: str) -> str:
    return f"{tag}  - {collapse_whitespace(strip_control(value))}"


def ris_entry(paper: Paper, authors: Sequence[PaperAuthor]) -> str:
    """One RIS record (``TY`` … ``ER``): ``JOUR`` when arXiv gives a journal reference, else
    ``UNPB``. Text is Unicode read as the pages read it (:func:`readable_text`: TeX accents
    decoded, the space after math and macros kept, an author's macro shown), one line per
    value: a ``DO`` line for
    each of the paper's DOIs (arXiv's DOI when it has none)."""
    lines = [_ris_line("TY", "JOUR" if paper.journal_ref else "UNPB")]
    lines.append(_ris_line("TI", readable_text(paper.title)))
    for slot in authors:
        if slot.keyname and not slot.is_collaboration:
            name = slot.keyname + (", " + slot.forenames if slot.forenames else "")
            name += ", " + slot.suffix if slot.suffix else ""
        else:
            name = slot.name
        lines.append(_ris_line("AU", tex_to_unicode(name)))
    if paper.submitted_at:
        lines.append(_ris_line("PY", str(paper.submitted_at.year)))
        lines.append(_ris_line("DA", paper.submitted_at.strftime("%Y/%m/%d")))
    if paper.abstract:
        lines.append(_ris_line("AB", readable_text(paper.abstract)))
    for code in paper.categories:
        lines.append(_ris_line("KW", code))
    if paper.journal_ref:
        lines.append(_ris_line("JO", clean_text(paper.journal_ref)))
    for doi in paper.dois or [paper.arxiv_doi]:  # RIS repeats a tag for each value
        lines.append(_ris_line("DO", doi))
    lines.append(_ris_line("UR", paper.abs_url))
    lines.append(_ris_line("L1", paper.pdf_url))
    lines.append(_ris_line("N1", f"arXiv:{paper.arxiv_id}"))
    lines.append(_ris_line("DB", "arXiv"))
    lines.append("ER  - ")
    return "\r\n".join(lines) + "\r\n"


def _with_authors(papers: Iterable[Paper]) -> list[tuple[Paper, list[PaperAuthor]]]:
    papers = list(papers)
    slots: dict[int, list[PaperAuthor]] = {p.pk: [] for p in papers}
    for slot in PaperAuthor.objects.filter(paper_id__in=slots).order_by("paper_id", "position"):
        slots[slot.paper_id].append(slot)
    return [(p, slots[p.pk]) for p in papers]


def bibtex_for(papers: Iterable[Paper]) -> str:
    """BibTeX for many papers (two queries), keys made unique with ``a``, ``b``… suffixes."""
    seen: dict[str, int] = {}
    out = []
    for paper, authors in _with_authors(papers):
        key = citation_key(paper, authors)
        count = seen.get(key, 0)
        seen[key] = count + 1
        if count:
            key += chr(ord("a") + count - 1) if count <= 26 else str(count)
        out.append(bibtex_entry(paper, authors, key=key))
    return "\n".join(out)


def ris_for(papers: Iterable[Paper]) -> str:
    """RIS records for many papers (two queries), separated by blank lines."""
    return "\r\n".join(ris_entry(paper, authors) for paper, authors in _with_authors(papers))
