"""Load arXiv's category taxonomy from the data shipped in ``data/arxiv/taxonomy/``.

Sources (see ``data/arxiv/SOURCES.md``): arXiv's own ``arXiv_categories``,
``arXiv_archives`` and ``arXiv_groups`` tables (CSV dumps), the retired-archive map of the
Kaggle dataset's authors, and the descriptions of arXiv's taxonomy page.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

TAXONOMY_DIR = Path(__file__).resolve().parent.parent / "data" / "arxiv" / "taxonomy"
# arXiv's aliases: the first code is filed under the second (arXiv taxonomy page).
_ALIAS = re.compile(r"^([a-zA-Z-]+\.[A-Za-z]+) is an alias for ([a-zA-Z-]+(?:\.[A-Za-z]+)?)\.")


def taxonomy_rows(directory: Path = TAXONOMY_DIR) -> list[dict]:
    """Category rows as dicts with ``code, name, group, group_name, archive, description,
    active, canonical`` (``canonical`` is ``None`` for a canonical code)."""
    groups = {}
    with open(directory / "arxiv-oaipmh_browse_arXiv_groups.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            groups[row["group_id"]] = row["group_name"]
    archive_group = {}
    with open(directory / "arxiv-oaipmh_browse_arXiv_archives.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            archive_group[row["archive_id"]] = row["in_group"]
    with open(directory / "morri_arxiv_taxonomy.json") as handle:
        described = json.load(handle)
    with open(directory / "bierbaum_category-primary-map.json") as handle:
        retired = {k: v for k, v in json.load(handle).items() if k != v}

    rows: dict[str, dict] = {}
    with open(directory / "arxiv-oaipmh_browse_arXiv_categories.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            archive = row["archive"]
            code = f"{archive}.{row['subject_class']}" if row["subject_class"] else archive
            group = archive_group.get(archive, archive)
            if group == "test":
                continue
            rows[code] = {
                "code": code,
                "name": row["category_name"],
                "group": group,
                "group_name": groups.get(group, ""),
                "archive": archive,
                "description": "",
                "active": row["active"] == "1",
                "canonical": None,
            }
    for code, info in described.items():
        entry = rows.setdefault(
            code,
            {
                "code": code,
                "name": info.get("category_name", code),
                "group": code.split(".")[0],
                "group_name": info.get("group_name", ""),
                "archive": code.split(".")[0],
                "description": "",
                "active": True,
                "canonical": None,
            },
        )
        description = info.get("description", "") or ""
        entry["description"] = description
        match = _ALIAS.match(description)
        if match and match.group(1) == code:
            entry["canonical"] = match.group(2)
    for code, target in retired.items():
        if code in rows:
            rows[code]["canonical"] = target
            rows[code]["active"] = False
    return sorted(rows.values(), key=lambda r: r["code"])


def load_taxonomy(category_model) -> int:
    """Create or update every category (idempotent); returns how many rows were written.

    ``category_model`` is the Category model class (the historical one in a migration).
    """
    rows = taxonomy_rows()
    codes = {r["code"] for r in rows}
    for row in rows:
        defaults = {k: v for k, v in row.items() if k not in ("code", "canonical")}
        category_model.objects.update_or_create(code=row["code"], defaults=defaults)
    for row in rows:
        canonical = row["canonical"] if row["canonical"] in codes else None
        category_model.objects.filter(code=row["code"]).update(canonical_id=canonical)
    return len(rows)
