"""SigningTemplates (signing's fast path) gives the bytes of the dict builders for any paper."""

from __future__ import annotations

from datetime import UTC, datetime

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from provenance import builders, fast_builders
from provenance.canonical import canonical_json_trusted
from provenance.keys import Signer, fingerprint_hex, public_raw

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
SIGNER = Signer(KEY, public_raw(KEY), fingerprint_hex(public_raw(KEY)), "wove-v1-2026-11")
NOW = datetime(2026, 11, 30, 9, 15, 42, 123456, tzinfo=UTC)

# Any text but lone surrogates (which UTF-8 cannot carry: both paths raise on them).
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=700)
names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
category = st.sampled_from(["hep-th", "gr-qc", "astro-ph.CO", "math.AG", "", "q-bio.GN"])


def _both(paper: dict, version: int, moment: datetime, supersedes: list[str], prev: str | None):
    """(template output, dict-builder output) for one version: record, receipt, two events."""
    templates = fast_builders.SigningTemplates(SIGNER, signer_id="wovepaper", now=NOW)
    parts = templates.paper_parts(**paper)
    submitted = builders.iso_seconds(moment)
    record = templates.record(parts, version=version, submitted_at=submitted)
    receipt, created = templates.record_created(parts, record, version=version, supersedes=supersedes)
    snapshot = templates.graph_snapshot(
        parts,
        pith_number=record.pith_number,
        version=version,
        submitted_at=submitted,
        prev_event=prev,
        supersedes=[prev] if prev else [],
    )
    new = (
        record.canonical,
        record.sha256,
        record.pith_number,
        receipt,
        created.content,
        created.content_sha256,
        created.signature,
        snapshot.content,
        snapshot.signature,
    )

    canon = builders.canonical_record_build(
        arxiv_id=paper["arxiv_id"],
        version=version,
        license=paper["license"],
        primary_cat=paper["primary_cat"],
        submitted_at=moment,
        categories=paper["categories"],
        title=paper["title"],
        abstract=paper["abstract"],
    )
    old_receipt = builders.receipt_build(SIGNER, canon.sha256, NOW)

    def event(event_type, payload, **kwargs):
        return builders.event_build(
            SIGNER,
            signer_id="wovepaper",
            event_type=event_type,
            subject_pith_number=canon.pith_number,
            target=builders.EVENT_TARGETS[event_type],
            payload=payload,
            created_at=NOW,
            signed_at=NOW,
            **kwargs,
        )

    old_created = event(
        "record_created", builders.record_created_payload(canon, old_receipt), supersedes=supersedes
    )
    old_snapshot = event(
        "graph_snapshot",
        builders.graph_snapshot_payload(
            source=canon.record["source"],
            title=paper["title"],
            license=paper["license"],
            primary_cat=paper["primary_cat"],
            categories=paper["categories"],
            authors_text=paper["authors_text"],
            authors=paper["authors"],
            submitted_at=canon.record["metadata"]["submitted_at"],
            abstract=paper["abstract"],
        ),
        prev_event=prev,
        supersedes=[prev] if prev else [],
    )
    old = (
        canon.canonical.decode(),
        canon.sha256,
        canon.pith_number,
        canonical_json_trusted(old_receipt).decode(),
        old_created.canonical.decode(),
        old_created.content_sha256,
        canonical_json_trusted(old_created.signature).decode(),
        old_snapshot.canonical.decode(),
        canonical_json_trusted(old_snapshot.signature).decode(),
    )
    return new, old


@settings(max_examples=150, deadline=None)
@given(
    title=text,
    abstract=text,
    authors_text=text,
    license=st.one_of(st.just(""), text),
    primary=category,
    categories=st.lists(category, max_size=5),
    authors=st.lists(names, max_size=8),
    version=st.integers(1, 40),
    moment=st.datetimes(datetime(1991, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC)),
    supersedes=st.lists(st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True), max_size=2),
    prev=st.one_of(st.none(), st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True)),
)
def test_templates_equal_the_dict_builders(
    title, abstract, authors_text, license, primary, categories, authors, version, moment, supersedes, prev
):
    paper = {
        "arxiv_id": "2401.10241",
        "license": license,
        "primary_cat": primary,
        "categories": [primary, *categories],
        "title": title,
        "abstract": abstract,
        "authors_text": authors_text,
        "authors": list(enumerate(authors, start=1)),
    }
    new, old = _both(paper, version, moment, supersedes, prev)
    assert new == old


def test_templates_keep_json_specials_braces_and_non_ascii():
    paper = {
        "arxiv_id": "0801.3673",
        "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        "primary_cat": "hep-th",
        "categories": ["hep-th", "gr-qc", "gr-qc", ""],
        "title": 'The {D3/D7} "brane" \\model\\ at {0} %s\n\t Müller Ж 😀 \u2028',
        "abstract": "x" * 599 + "é{}" + "\x00\x1f",
        "authors_text": "A. {Bal\\'azs}, B. Müller",
        "authors": [(1, "A. Balázs"), (2, '{"name"}')],
    }
    new, old = _both(paper, 3, datetime(2008, 2, 4, 15, 5, 55, tzinfo=UTC), ["sha256:" + "a" * 64], None)
    assert new == old


# Evidence as the matcher stores it (researchers.evidence): signals with any keys, scores as
# floats (written as text in signed content), nested lists.
evidence_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53) + 1, 2**53 - 1), names, st.floats(0, 1)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(names, inner, max_size=3)),
    max_leaves=8,
)


def _authorship_both(payload: dict, pith: str, target: str, prev: str | None, supersedes: list[str]):
    """(template output, event_build output) of one ``authorship_matched`` event: content,
    digest, signature document."""
    templates = fast_builders.SigningTemplates(SIGNER, signer_id="wovepaper", now=NOW)
    built = templates.authorship_matched(
        payload, pith_number=pith, target=target, prev_event=prev, supersedes=supersedes
    )
    old = builders.event_build(
        SIGNER,
        signer_id="wovepaper",
        event_type="authorship_matched",
        subject_pith_number=pith,
        target=target,
        payload=payload,
        created_at=NOW,
        signed_at=NOW,
        supersedes=supersedes,
        prev_event=prev,
    )
    new = (built.content, built.content_sha256, built.signature)
    return new, (old.canonical.decode(), old.content_sha256, canonical_json_trusted(old.signature).decode())


@settings(max_examples=150, deadline=None)
@given(
    position=st.integers(1, 3000),
    name=names,
    method=st.sampled_from(["orcid", "s2", "openalex", "name_cluster", "editor"]),
    confidence=st.floats(0, 1),
    evidence=st.lists(st.dictionaries(names, evidence_value, max_size=4), max_size=4),
    unconfirmed=st.booleans(),
    prev=st.one_of(st.none(), st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True)),
    supersedes=st.lists(st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True), max_size=1),
)
def test_authorship_template_equals_event_build(
    position, name, method, confidence, evidence, unconfirmed, prev, supersedes
):
    payload = builders.authorship_matched_payload(
        position=position,
        name=name,
        researcher_id=12345,
        method=method,
        source="local",
        confidence=confidence,
        evidence=evidence,
        unconfirmed=unconfirmed,
    )
    new, old = _authorship_both(
        payload, "pith:2008:abcdefghijklmnop", f"authorship:{position}", prev, supersedes
    )
    assert new == old


def test_authorship_template_on_real_evidence_and_astral_keys():
    """Evidence of the kinds researchers.evidence stores (its docstring's examples, with an
    editor's float score) and keys whose UTF-16 order differs from Python's (RFC 8785's
    path): the bytes of event_build either way."""
    evidence = [
        {"kind": "orcid", "orcid": "0000-0002-5250-9277", "source": "openalex"},
        {"kind": "coauthors", "count": 2, "values": ["D. Bekaert", "Ž. Ivezić"]},
        {"kind": "institution", "count": 1, "values": ["Texas A&M University"], "ror_ids": ["01f5ytq51"]},
        {"kind": "editor", "score": 0.98},
        {"\U0001f600 key": 1, "\ufb01 key": 2},
    ]
    payload = builders.authorship_matched_payload(
        position=7,
        name="Fal'ko, Vladimir I.",
        researcher_id=4,
        method="orcid",
        source="s2",
        confidence=0.6,
        evidence=evidence,
        unconfirmed=False,
    )
    assert payload["confidence"] == "0.60"
    new, old = _authorship_both(payload, "pith:2008:abcdefghijklmnop", "authorship:7", None, [])
    assert new == old
    assert '"score":"0.98"' in new[0]
    assert new[0].index("\U0001f600") < new[0].index("\ufb01")  # UTF-16 order: D83D before FB01
