"""ROR IDs (normalise, checksum) and ROR records (schema v1 and v2) read into one shape."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import IO, Any

logger = logging.getLogger(__name__)

# Crockford base32 without i, l, o, u: the alphabet ROR encodes the 6-character body in.
_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
_ROR_BODY = re.compile(r"^0[0-9a-hjkmnp-tv-z]{6}[0-9]{2}$")
_ROR_PREFIX = re.compile(r"^(?:https?:/+)?(?:www\.)?ror\.org/", re.IGNORECASE)

ROR_URL_PREFIX = "https://ror.org/"


class InvalidRorId(ValueError):
    """A string that is not a well-formed ROR ID or whose check digits do not match."""


def ror_checksum(body: str) -> str:
    """The two check digits of a ROR ID body (the 6 characters after the leading ``0``).

    ROR encodes a number in Crockford base32 and appends ISO 7064 mod 97-10 check digits:
    ``98 - (n * 100 mod 97)``, zero-padded (ror-community/ror-api, ``generate_id``).
    Raises :class:`InvalidRorId` for a character outside the alphabet.
    """
    number = 0
    for char in body.lower():
        index = _CROCKFORD.find(char)
        if index < 0:
            raise InvalidRorId(f"not a Crockford base32 character: {char!r}")
        number = number * 32 + index
    return f"{98 - (number * 100) % 97:02d}"


def normalize_ror_id(value: str) -> str:
    """The stored form of a ROR ID: the bare 9 characters, lower case (``03yrm5c26``).

    Accepts ``https://ror.org/03yrm5c26``, ``http://ror.org/…``, ``ror.org/03yrm5c26`` and
    ``03yrm5c26`` (surrounding whitespace and a trailing slash are ignored). Raises
    :class:`InvalidRorId` when the shape is wrong or the two check digits do not match.
    """
    if not isinstance(value, str):
        raise InvalidRorId(f"not a string: {value!r}")
    text = _ROR_PREFIX.sub("", value.strip()).rstrip("/").lower()
    if not _ROR_BODY.match(text):
        raise InvalidRorId(f"not a ROR ID: {value!r}")
    if ror_checksum(text[1:7]) != text[7:]:
        raise InvalidRorId(f"ROR ID check digits do not match: {value!r}")
    return text


def is_ror_id(value: str) -> bool:
    """True when ``value`` is a valid ROR ID in one of the accepted forms."""
    try:
        normalize_ror_id(value)
    except InvalidRorId:
        return False
    return True


@dataclass
class RorName:
    """One name of an institution: ``kind`` is ``ror_display``, ``label``, ``alias`` or ``acronym``."""

    value: str
    kind: str
    lang: str = ""


@dataclass
class RorRelationship:
    """A relationship to another ROR record (which may not be loaded here)."""

    type: str  # parent, child, related, successor, predecessor
    ror_id: str
    label: str = ""


@dataclass
class RorRecord:
    """One ROR record read into the shape stored here, whatever the schema version.

    ``external_ids`` maps ``grid``/``isni``/``wikidata``/``fundref`` to
    ``{"preferred": str | None, "all": [str, ...]}``. ``locations`` is a list of
    ``{"city", "country_code", "country_name", "geonames_id", "lat", "lng"}``.
    """

    ror_id: str
    name: str
    status: str
    types: list[str] = field(default_factory=list)
    names: list[RorName] = field(default_factory=list)
    established: int | None = None
    locations: list[dict[str, Any]] = field(default_factory=list)
    website: str = ""
    wikipedia_url: str = ""
    links: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    external_ids: dict[str, dict[str, Any]] = field(default_factory=dict)
    relationships: list[RorRelationship] = field(default_factory=list)
    last_modified: date | None = None
    schema_version: str = ""

    @property
    def country_code(self) -> str:
        return self.locations[0]["country_code"] if self.locations else ""

    @property
    def country_name(self) -> str:
        return self.locations[0]["country_name"] if self.locations else ""

    @property
    def city(self) -> str:
        return self.locations[0]["city"] if self.locations else ""

    def content_hash(self) -> str:
        """SHA-256 (hex) of the record's canonical JSON: equal hashes mean nothing changed."""
        data = asdict(self)
        data["last_modified"] = self.last_modified.isoformat() if self.last_modified else None
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class InvalidRecord(ValueError):
    """A ROR record that cannot be read (no valid id, no name)."""


_STATUSES = {"active", "inactive", "withdrawn"}
_REL_TYPES = {"parent", "child", "related", "successor", "predecessor"}


def _day(value: Any) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _http_url(value: Any) -> str:
    """``value`` when it is an http(s) URL, else ``""``: links are rendered as ``href``, so
    a ``javascript:`` or other scheme from a record must never reach a page."""
    text = _text(value)
    return text if re.match(r"^https?://[^\s]+$", text, re.IGNORECASE) else ""


def _relationships(items: Any) -> list[RorRelationship]:
    out: list[RorRelationship] = []
    seen: set[tuple[str, str]] = set()
    for item in items or []:
        rel_type = _text(item.get("type")).lower()
        try:
            target = normalize_ror_id(item.get("id") or "")
        except InvalidRorId:
            logger.warning("ROR relationship with a bad id skipped: %r", item)
            continue
        if rel_type not in _REL_TYPES or (rel_type, target) in seen:
            continue
        seen.add((rel_type, target))
        out.append(RorRelationship(type=rel_type, ror_id=target, label=_text(item.get("label"))))
    return out


def _external_ids_v2(items: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items or []:
        kind = _text(item.get("type")).lower()
        values = item.get("all") or []
        if isinstance(values, str):
            values = [values]
        if kind:
            out[kind] = {"preferred": item.get("preferred") or None, "all": [str(v) for v in values]}
    return out


def _external_ids_v1(items: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for kind, item in (items or {}).items():
        values = item.get("all") or []
        if isinstance(values, str):  # v1 GRID carries a bare string in "all"
            values = [values]
        out[kind.lower()] = {"preferred": item.get("preferred") or None, "all": [str(v) for v in values]}
    return out


def parse_record_v2(data: dict[str, Any]) -> RorRecord:
    """Read a ROR schema v2 record (https://ror.readme.io/docs/data-structure).

    Raises :class:`InvalidRecord` when the id is invalid or there is no display name.
    """
    try:
        ror_id = normalize_ror_id(data.get("id") or "")
    except InvalidRorId as exc:
        raise InvalidRecord(str(exc)) from exc
    names: list[RorName] = []
    display = ""
    for item in data.get("names") or []:
        value = _text(item.get("value"))
        if not value:
            continue
        for kind in item.get("types") or []:
            if kind in ("ror_display", "label", "alias", "acronym"):
                names.append(RorName(value=value, kind=kind, lang=_text(item.get("lang"))))
            if kind == "ror_display":
                display = value
    if not display:
        raise InvalidRecord(f"{ror_id}: no ror_display name")
    locations = []
    for loc in data.get("locations") or []:
        geo = loc.get("geonames_details") or {}
        locations.append(
            {
                "city": _text(geo.get("name")),
                "country_code": _text(geo.get("country_code")).upper(),
                "country_name": _text(geo.get("country_name")),
                "geonames_id": loc.get("geonames_id"),
                "lat": geo.get("lat"),
                "lng": geo.get("lng"),
            }
        )
    website = wikipedia = ""
    links: list[str] = []
    for link in data.get("links") or []:
        value = _http_url(link.get("value"))
        if not value:
            continue
        links.append(value)
        if link.get("type") == "website" and not website:
            website = value
        elif link.get("type") == "wikipedia" and not wikipedia:
            wikipedia = value
    admin = data.get("admin") or {}
    modified = admin.get("last_modified") or {}
    status = _text(data.get("status")).lower()
    return RorRecord(
        ror_id=ror_id,
        name=display,
        status=status if status in _STATUSES else "active",
        types=sorted({_text(t).lower() for t in data.get("types") or [] if _text(t)}),
        names=names,
        established=data.get("established") if isinstance(data.get("established"), int) else None,
        locations=locations,
        website=website,
        wikipedia_url=wikipedia,
        links=links,
        domains=[_text(d) for d in data.get("domains") or [] if _text(d)],
        external_ids=_external_ids_v2(data.get("external_ids")),
        relationships=_relationships(data.get("relationships")),
        last_modified=_day(modified.get("date")),
        schema_version=_text(modified.get("schema_version")) or "2.0",
    )


def parse_record_v1(data: dict[str, Any]) -> RorRecord:
    """Read a ROR schema v1 record (``name``, ``aliases``, ``acronyms``, ``labels``, ``addresses``).

    v1 has no ``ror_display`` type: ``name`` becomes both the display name and a label, as
    ROR's own v1-to-v2 conversion does. Raises :class:`InvalidRecord` like the v2 reader.
    """
    try:
        ror_id = normalize_ror_id(data.get("id") or "")
    except InvalidRorId as exc:
        raise InvalidRecord(str(exc)) from exc
    display = _text(data.get("name"))
    if not display:
        raise InvalidRecord(f"{ror_id}: no name")
    names = [RorName(display, "ror_display"), RorName(display, "label")]
    names += [RorName(_text(a), "alias") for a in data.get("aliases") or [] if _text(a)]
    names += [RorName(_text(a), "acronym") for a in data.get("acronyms") or [] if _text(a)]
    names += [
        RorName(_text(lab.get("label")), "label", _text(lab.get("iso639")))
        for lab in data.get("labels") or []
        if _text(lab.get("label"))
    ]
    country = data.get("country") or {}
    locations = [
        {
            "city": _text(addr.get("city")),
            "country_code": _text(country.get("country_code")).upper(),
            "country_name": _text(country.get("country_name")),
            "geonames_id": (addr.get("geonames_city") or {}).get("id"),
            "lat": addr.get("lat"),
            "lng": addr.get("lng"),
        }
        for addr in data.get("addresses") or []
    ]
    links = [_http_url(link) for link in data.get("links") or [] if _http_url(link)]
    wikipedia = _http_url(data.get("wikipedia_url"))
    status = _text(data.get("status")).lower()
    return RorRecord(
        ror_id=ror_id,
        name=display,
        status=status if status in _STATUSES else "active",
        types=sorted({_text(t).lower() for t in data.get("types") or [] if _text(t)}),
        names=names,
        established=data.get("established") if isinstance(data.get("established"), int) else None,
        locations=locations,
        website=links[0] if links else "",
        wikipedia_url=wikipedia,
        links=links + ([wikipedia] if wikipedia else []),
        domains=[],
        external_ids=_external_ids_v1(data.get("external_ids")),
        relationships=_relationships(data.get("relationships")),
        last_modified=None,
        schema_version="1.0",
    )


def parse_record(data: Any) -> RorRecord:
    """Read one ROR record of either schema (v2 has ``names``; v1 has ``name``).

    Raises :class:`InvalidRecord` for anything that is not a readable record.
    """
    if not isinstance(data, dict):
        raise InvalidRecord(f"not a JSON object: {type(data).__name__}")
    if "names" in data:
        return parse_record_v2(data)
    if "name" in data:
        return parse_record_v1(data)
    raise InvalidRecord(f"neither ROR schema v1 nor v2: {str(data.get('id'))!r}")


_WS = " \t\r\n"


def iter_json_values(stream: IO[str], *, chunk_size: int = 1 << 20) -> Iterator[Any]:
    """Yield the items of a JSON array (or a single top-level JSON value) from a text stream.

    Reads ``chunk_size`` characters at a time and decodes one element at a time, so a
    ROR dump (a single array of ~120,000 records, ~250 MB) never sits in memory whole.
    Raises :class:`json.JSONDecodeError` for malformed JSON.
    """
    decoder = json.JSONDecoder()
    buf = stream.read(chunk_size)
    pos = 0
    eof = False

    def skip(chars: str) -> None:
        nonlocal buf, pos, eof
        while True:
            while pos < len(buf) and buf[pos] in chars:
                pos += 1
            if pos < len(buf) or eof:
                return
            more = stream.read(chunk_size)
            if not more:
                eof = True
                return
            buf, pos = buf[pos:] + more, 0

    skip(_WS)
    if pos >= len(buf):
        return
    if buf[pos] != "[":
        # A single record: read the rest and decode it whole (records are small).
        yield json.loads(buf[pos:] + stream.read())
        return
    pos += 1
    while True:
        skip(_WS + ",")
        if pos >= len(buf):
            raise json.JSONDecodeError("unterminated array", buf, pos)
        if buf[pos] == "]":
            return
        while True:
            try:
                value, end = decoder.raw_decode(buf, pos)
                # A number could be cut at the chunk edge; records are objects, so only
                # accept a value that is followed by more text or by the end of the stream.
                if end < len(buf) or eof:
                    break
            except json.JSONDecodeError:
                if eof:
                    raise
            more = stream.read(chunk_size)
            if not more:
                eof = True
            buf, pos = buf[pos:] + more, 0
        yield value
        pos = end


def _zip_members(archive: zipfile.ZipFile) -> list[str]:
    """The JSON member(s) to load from a ROR dump zip: the schema v2 file when there is one."""
    names = [n for n in archive.namelist() if n.lower().endswith(".json") and not n.startswith("__MACOSX")]
    v2 = [n for n in names if "schema_v2" in n.lower()]
    return v2 or names


def iter_raw_records(path: str | Path) -> Iterator[Any]:
    """Yield raw JSON records from a dump JSON list, a single record JSON, or a dump zip.

    Raises :class:`FileNotFoundError` for a missing file and :class:`json.JSONDecodeError`
    for a file that is not JSON.
    """
    path = Path(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for member in _zip_members(archive):
                with archive.open(member) as raw:
                    yield from iter_json_values(io.TextIOWrapper(raw, encoding="utf-8"))
        return
    with path.open(encoding="utf-8") as stream:
        yield from iter_json_values(stream)


def iter_records(paths: Iterable[str | Path], *, errors: list[str] | None = None) -> Iterator[RorRecord]:
    """Yield parsed records from files; a malformed record is logged, noted in ``errors``, skipped."""
    for path in paths:
        for raw in iter_raw_records(path):
            try:
                yield parse_record(raw)
            except (InvalidRecord, AttributeError, TypeError) as exc:
                logger.warning("ROR record skipped in %s: %s", path, exc)
                if errors is not None:
                    errors.append(str(exc))
