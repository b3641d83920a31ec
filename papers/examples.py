"""URL examples naming records this archive holds, for the pages that teach URL forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.cache import cache

from .selectors import EXAMPLES_CACHE_KEY, EXAMPLES_EMPTY_SECONDS, EXAMPLES_SECONDS, example_papers

# Every example page (the 404 page and its Markdown, llms.txt, /developers) names only
# records the archive holds, chosen when the page renders, never a fixed identifier: a
# fixed one was a 404 in the bundled sample (issue 32). An example the archive cannot give
# is left out, and each page shows the URL pattern alone instead.
URL_EXAMPLES_CACHE_KEY = "papers:url-examples"

# ``name -> supplier(examples) -> dict | None``: an app above papers (institutions,
# researchers, provenance) adds the example of what it owns from its ``AppConfig.ready()``.
# A supplier gets the examples gathered so far (papers' own first: ``new``, ``old``), so
# provenance can name the record of the paper shown beside it.
_SUPPLIERS: dict[str, Callable[[dict[str, Any]], dict[str, str] | None]] = {}


def url_example_register(name: str, supplier: Callable[[dict[str, Any]], dict[str, str] | None]) -> None:
    """Supply the example ``name`` (``institution``, ``researcher``, ``pith``): ``supplier``
    takes the examples gathered so far and returns a dict of strings (at least ``url``, a
    path this site answers 200 or a documented redirect for) or ``None`` when the archive
    holds nothing to show. Registering a name again replaces its supplier."""
    _SUPPLIERS[name] = supplier


def url_examples() -> dict[str, dict[str, str]]:
    """The URL examples of every page that shows some, from records held here.

    ``{"new": {"arxiv_id", "url"}, "old": {...}}`` (:func:`papers.selectors.example_papers`)
    plus one key per registered supplier, e.g. ``"institution": {"ror_id", "name", "url"}``,
    ``"researcher": {"id", "name", "query", "url"}``, ``"pith": {"number", "short", "url",
    "year_form"}``. A key is missing when the archive holds no such record. One small query
    per key, cached in Django's cache for :data:`~papers.selectors.EXAMPLES_SECONDS`
    (:data:`~papers.selectors.EXAMPLES_EMPTY_SECONDS` while the archive is empty)."""
    cached = cache.get(URL_EXAMPLES_CACHE_KEY)
    if cached is not None:
        return cached
    examples: dict[str, dict[str, str]] = dict(example_papers())
    for name, supplier in _SUPPLIERS.items():
        found = supplier(examples)
        if found:
            examples[name] = found
    cache.set(URL_EXAMPLES_CACHE_KEY, examples, EXAMPLES_SECONDS if examples else EXAMPLES_EMPTY_SECONDS)
    return examples


def url_examples_forget() -> None:
    """Drop the cached examples (tests, and after loading or wiping an archive)."""
    cache.delete_many([URL_EXAMPLES_CACHE_KEY, EXAMPLES_CACHE_KEY])


# What a code example on /developers may write for a record of this archive, with the text
# shown when the archive holds none (``with_site_url`` fills them in).
CODE_PLACEHOLDERS: dict[str, tuple[Callable[[dict[str, Any]], str | None], str]] = {
    "{paper}": (lambda e: e.get("new", {}).get("arxiv_id"), "<arxiv-id>"),
    # A second paper for the batch example: the old-style one when held, else the oldest.
    "{other_paper}": (
        lambda e: e.get("old", {}).get("arxiv_id") or e.get("first", {}).get("arxiv_id"),
        "<another-arxiv-id>",
    ),
    "{researcher_query}": (lambda e: e.get("researcher", {}).get("query"), "<name>"),
    "{ror_id}": (lambda e: e.get("institution", {}).get("ror_id"), "<ror-id>"),
    "{pith}": (lambda e: e.get("pith", {}).get("number"), "<pith-number>"),
}


def code_examples_fill(text: str) -> str:
    """``text`` with each of :data:`CODE_PLACEHOLDERS` replaced by a record of this archive
    (``{paper}`` -> ``0801.4672``), or by its pattern (``<arxiv-id>``) when none is held."""
    if "{" not in text:
        return text
    examples = url_examples()
    for placeholder, (pick, fallback) in CODE_PLACEHOLDERS.items():
        if placeholder in text:
            text = text.replace(placeholder, pick(examples) or fallback)
    return text


# The example values the API's schemas carry (``Field(examples=...)``), each with the record
# of this archive that replaces it in the OpenAPI document /api/docs reads: "Try it out"
# then sends identifiers the archive holds. Kept when the archive holds no such record.
OPENAPI_EXAMPLE_VALUES: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "2401.10241": CODE_PLACEHOLDERS["{paper}"][0],
    "hep-th/9901001": CODE_PLACEHOLDERS["{other_paper}"][0],
    "03yrm5c26": CODE_PLACEHOLDERS["{ror_id}"][0],
    "pith:2024:L5Y4YBEWBIXPMBCPHRX2LPRGYS": CODE_PLACEHOLDERS["{pith}"][0],
}


def openapi_examples_fill(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (an OpenAPI document, changed in place and returned) with every
    ``examples`` value of :data:`OPENAPI_EXAMPLE_VALUES`, alone or in a list, replaced by a
    record this archive holds (:func:`url_examples`)."""
    examples = url_examples()
    held = {value: pick(examples) for value, pick in OPENAPI_EXAMPLE_VALUES.items()}
    held = {value: record for value, record in held.items() if record}

    def fill(value: Any) -> Any:
        if isinstance(value, list):
            return [fill(item) for item in value]
        return held.get(value, value) if isinstance(value, str) else value

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "examples" and isinstance(value, list):
                    node[key] = fill(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    if held:
        walk(schema)
    return schema


__all__ = [
    "OPENAPI_EXAMPLE_VALUES",
    "CODE_PLACEHOLDERS",
    "URL_EXAMPLES_CACHE_KEY",
    "code_examples_fill",
    "openapi_examples_fill",
    "url_example_register",
    "url_examples",
    "url_examples_forget",
]
