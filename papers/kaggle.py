"""The Kaggle "arXiv dataset" (``arxiv-metadata-oai-snapshot.json``): JSON Lines, streamed.

Each line is one paper: id, submitter, authors, title, comments, journal-ref, doi,
report-no, categories, license, abstract, versions [{version, created}], update_date,
authors_parsed [[keyname, forenames, suffix], ...]. See the dataset card on Kaggle.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import IO

from .authors import join_suffixes, parse_author_string, slot_from_parts
from .identifiers import InvalidArxivId, parse_arxiv_id, try_parse_arxiv_id
from .records import (
    ArxivRecord,
    FieldTooLong,
    RecordError,
    VersionInfo,
    clean_abstract,
    doi_field,
    parse_day,
    parse_rfc822,
    parse_version_number,
    split_categories,
    text_field,
)
from .text import clean_text, tex_to_unicode

logger = logging.getLogger(__name__)


def iter_kaggle(stream: IO[bytes] | IO[str]) -> Iterator[ArxivRecord | RecordError]:
    """Yield one :class:`ArxivRecord` per line, or a :class:`RecordError` for a bad line.

    Reads line by line, so memory stays constant whatever the file size (the full dump is
    several GB). Blank lines are ignored. Never raises for one bad line: a line that is not
    UTF-8 or not a JSON object, or a record :func:`parse_kaggle_record` refuses, gives a
    :class:`RecordError` (with the line's arXiv id when one can be read).
    """
    for number, line in enumerate(stream, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                text = line.decode("utf-8", errors="replace")
                logger.warning("skipping Kaggle line %d: not UTF-8 (%s)", number, exc)
                yield RecordError(_line_id(text), f"line {number} is not valid UTF-8: {exc}")
                continue
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise RecordError(None, "line is not a JSON object")
            yield parse_kaggle_record(data)
        except RecordError as exc:
            logger.warning("skipping Kaggle line %d: %s", number, exc)
            yield exc
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            logger.warning("skipping Kaggle line %d: %s", number, exc)
            yield RecordError(_line_id(line), f"line {number}: {exc}")


_LINE_ID = re.compile(r'"id"\s*:\s*"([^"\\]{1,64})"')


def _line_id(line: str) -> str | None:
    """The arXiv id of a line that could not be parsed, when one can be read from its text."""
    found = _LINE_ID.search(line)
    parsed = try_parse_arxiv_id(found.group(1)) if found else None
    return parsed.id if parsed else None


def parse_kaggle_record(data: dict) -> ArxivRecord:
    """Turn one Kaggle JSON object into an :class:`ArxivRecord` (source ``kaggle``).

    Authors come from ``authors_parsed`` (already Unicode), with affiliations taken from the
    raw ``authors`` string when both lists have the same length. Raises
    :class:`RecordError` on a missing or invalid id, title or categories, or a field over its
    length limit.
    """
    raw_id = str(data.get("id") or "")
    try:
        arxiv_id = parse_arxiv_id(raw_id).id
    except InvalidArxivId as exc:
        raise RecordError(raw_id or None, str(exc)) from exc
    try:
        return _parse_fields(data, arxiv_id)
    except FieldTooLong as exc:
        raise RecordError(arxiv_id, str(exc)) from exc


def _parse_fields(data: dict, arxiv_id: str) -> ArxivRecord:
    title = text_field(data.get("title"), 5000, "title")
    if not title:
        raise RecordError(arxiv_id, "record has no title")
    categories = split_categories(data.get("categories"))
    if not categories:
        raise RecordError(arxiv_id, "record has no categories")
    raw_authors = clean_text(data.get("authors") or "")
    from_string = parse_author_string(raw_authors)
    parsed = data.get("authors_parsed") or []
    # The author string keeps hyphenated initials ("C.-P. Yuan") and affiliations that
    # authors_parsed mangles or drops; authors_parsed only wins when the counts disagree
    # (the string then had a shape our parser split differently).
    slots = from_string
    if parsed and len(parsed) != len(from_string):
        slots = []
        for parts in parsed:
            if not isinstance(parts, list) or not parts:
                continue
            keyname, forenames, suffix = (list(map(str, parts)) + ["", "", ""])[:3]
            if keyname.strip() or forenames.strip():
                slots.append(slot_from_parts(keyname, forenames, suffix))
        slots = join_suffixes(slots)  # a ["Jr.", "", ""] triple is the previous person's suffix
    versions = []
    for item in data.get("versions") or []:
        try:
            versions.append(
                VersionInfo(
                    version=parse_version_number(item.get("version")),
                    submitted_at=parse_rfc822(item.get("created")),
                )
            )
        except (ValueError, AttributeError) as exc:
            raise RecordError(arxiv_id, f"bad version entry {item!r}: {exc}") from exc
    versions.sort(key=lambda v: v.version)
    try:
        updated = parse_day(data.get("update_date"))
    except ValueError as exc:
        raise RecordError(arxiv_id, f"bad update_date: {exc}") from exc
    return ArxivRecord(
        arxiv_id=arxiv_id,
        source="kaggle",
        title=title,
        abstract=clean_abstract(data.get("abstract")),
        authors=slots,
        authors_text=tex_to_unicode(raw_authors),
        categories=categories,
        license=text_field(data.get("license"), 200, "license"),
        dois=doi_field(data.get("doi")),
        journal_ref=text_field(data.get("journal-ref"), 2000, "journal-ref"),
        report_no=text_field(data.get("report-no"), 2000, "report-no"),
        comments=text_field(data.get("comments"), 5000, "comments"),
        submitter=text_field(data.get("submitter"), 200, "submitter"),
        versions=versions,
        updated=updated,
    )
