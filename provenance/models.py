"""Provenance: published signing keys, signed canonical records and their append-only event log."""

from __future__ import annotations

import base64

import pgtrigger
from django.db import models

from .querysets import EventQuerySet, RecordQuerySet


class PublicKey(models.Model):
    """An ed25519 public key that signs (or once signed) records, events and bundles.

    Rows are never deleted and their key material never changes (database triggers), so a
    key stays published after rotation and old signatures stay verifiable. ``key_id`` names
    the key (``wove-v1-2026-11``); ``fingerprint`` is the first 16 bytes of SHA-256 of the
    raw key in hex (PROVENANCE.md).
    """

    key_id = models.CharField(max_length=64, unique=True)
    algorithm = models.CharField(max_length=16, default="ed25519")
    public_key_hex = models.CharField(max_length=64, unique=True, help_text="Raw 32-byte key, hex")
    fingerprint = models.CharField(max_length=32, unique=True)
    fingerprint_b32 = models.CharField(max_length=26)
    created_at = models.DateTimeField(auto_now_add=True)
    rotates_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "key_id"]
        triggers = [
            pgtrigger.Protect(name="publickey_no_delete", operation=pgtrigger.Delete),
            pgtrigger.ReadOnly(
                name="publickey_read_only",
                fields=["key_id", "algorithm", "public_key_hex", "fingerprint", "fingerprint_b32"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key_id} ({self.fingerprint})"

    @property
    def public_raw(self) -> bytes:
        return bytes.fromhex(self.public_key_hex)

    @property
    def public_key_b64(self) -> str:
        return base64.b64encode(self.public_raw).decode("ascii")


class Record(models.Model):
    """The signed canonical record of one arXiv version of a paper, keyed by its SHA-256.

    ``canonical_record`` is ``{schema_version, source: {kind, id, version}, metadata:
    {license, primary_cat, submitted_at, cross_cats_sorted, title_canon_sha256,
    abstract_canon_sha256}}``; ``canonical_sha256`` its RFC 8785 digest; ``pith_number``
    ``pith:<year>:<26 base32 chars>``; ``receipt`` the ed25519 signature over the digest
    bytes. Append-only: triggers refuse UPDATE and DELETE. A changed record is a new row
    whose ``record_created`` event supersedes the old one.
    """

    # The varchar_pattern_ops copies Django makes for this key and pith_number are dropped
    # (migration 0005): nothing compares them with LIKE, and signing writes every index.
    canonical_sha256 = models.CharField(max_length=64, primary_key=True)
    pith_number = models.CharField(max_length=40, unique=True)
    # unique=True gives both the unique index and, on PostgreSQL, a varchar_pattern_ops copy
    # (Django's ``_like`` index) that the short forms' prefix lookups (LIKE 'L5Y4YBEW%') use.
    pith_body = models.CharField(max_length=26, unique=True)
    # No index of its own: record_paper_idx (paper, source_version, created_at) leads with it.
    paper = models.ForeignKey(
        "papers.Paper", on_delete=models.PROTECT, related_name="pith_records", db_index=False
    )
    source_kind = models.CharField(max_length=16, default="arxiv")
    source_id = models.CharField(max_length=64)
    source_version = models.PositiveSmallIntegerField()
    canonical_record = models.JSONField()
    receipt = models.JSONField()
    # No index (migration 0006): one key signs nearly every row, so no read goes by key, and a
    # key is never deleted (PROTECT's one scan); every signed row would write the index.
    key = models.ForeignKey(PublicKey, on_delete=models.PROTECT, related_name="records", db_index=False)
    created_at = models.DateTimeField(help_text="When signed (UTC); aliases show it in whole seconds")

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["paper_id", "source_version", "created_at"]
        indexes = [
            models.Index(fields=["paper", "source_version", "created_at"], name="record_paper_idx"),
            models.Index(fields=["source_id", "source_version"], name="record_source_idx"),
        ]
        triggers = [
            pgtrigger.Protect(name="record_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.pith_number} ({self.source_id}v{self.source_version})"

    @property
    def short_pith_number(self) -> str:
        return f"pith:{self.pith_body[:8]}"

    @property
    def year(self) -> int:
        return int(self.pith_number.split(":")[1])


class Event(models.Model):
    """One signed event of a record's log (``record_created``, ``graph_snapshot``, curation ...).

    ``content`` is the signed content: the event without ``signature``, ``content_sha256`` and
    ``event_id`` (``event_type``, ``subject_pith_number``, ``target``, ``payload``,
    ``signer``, ``created_at``, ``supersedes``, ``prev_event``, ``schema_version``);
    ``content_sha256`` its RFC 8785 digest and primary key; ``signature`` the ed25519 block.
    Events of one record and target form a chain through ``prev_event``; the unique
    constraint on ``(record, target, prev_event)`` makes a fork impossible, so two workers
    appending at once write each event once. Append-only: triggers refuse UPDATE and
    DELETE; only :func:`provenance.services` inserts.
    """

    # Its varchar_pattern_ops copy is dropped (migration 0005): ids are looked up whole.
    content_sha256 = models.CharField(max_length=64, primary_key=True)
    # No index of its own: event_record_idx (record, created_at) and event_chain_unique
    # (record, target, prev_event) both lead with it.
    record = models.ForeignKey(Record, on_delete=models.PROTECT, related_name="events", db_index=False)
    event_type = models.CharField(max_length=40)
    target = models.CharField(max_length=100)
    prev_event = models.CharField(max_length=71, null=True, blank=True)
    created_at = models.DateTimeField()
    # No index, as Record.key (migration 0006).
    key = models.ForeignKey(PublicKey, on_delete=models.PROTECT, related_name="events", db_index=False)
    content = models.JSONField()
    signature = models.JSONField()

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["record_id", "created_at", "content_sha256"]
        constraints = [
            models.UniqueConstraint(
                fields=["record", "target", "prev_event"], nulls_distinct=False, name="event_chain_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["record", "created_at"], name="event_record_idx"),
            models.Index(fields=["event_type", "created_at"], name="event_type_idx"),
        ]
        triggers = [
            pgtrigger.Protect(name="event_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"

    @property
    def event_id(self) -> str:
        return f"sha256:{self.content_sha256}"

    def as_dict(self) -> dict:
        """The event as it appears in a bundle (content, then ``signature``, hash and id)."""
        # Key order as in the registry's bundles (readability only: hashes sort keys).
        first = ("event_type", "subject_pith_number", "target", "payload", "signer", "created_at")
        data = {k: self.content[k] for k in first if k in self.content}
        data.update((k, v) for k, v in self.content.items() if k not in data)
        data["signature"] = self.signature
        data["content_sha256"] = self.content_sha256
        data["event_id"] = self.event_id
        return data


class PaperSigning(models.Model):
    """Bookkeeping: the paper ``content_hash`` last signed, so unchanged papers are skipped.

    Not part of the provenance itself (that is :class:`Record` and :class:`Event`), hence
    mutable.
    """

    paper = models.OneToOneField(
        "papers.Paper", on_delete=models.CASCADE, primary_key=True, related_name="signing"
    )
    content_hash = models.CharField(max_length=64)
    signed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.paper_id} signed {self.signed_at:%Y-%m-%d %H:%M}"


class AuthorshipSigning(models.Model):
    """Bookkeeping: the state of an authorship (``researchers.Authorship``) last recorded in
    an ``authorship_matched`` event, so unchanged links are not recorded again (issue 20).

    One row per author slot; ``event_id`` is that event and ``record`` the record it was
    appended to (a changed link's next event supersedes it there). Not part of the
    provenance itself (that is :class:`Event`), hence mutable, like :class:`PaperSigning`.
    """

    slot = models.OneToOneField(
        "papers.PaperAuthor", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    record = models.ForeignKey(Record, on_delete=models.PROTECT, related_name="+", db_index=False)
    event_id = models.CharField(max_length=71)
    researcher_id = models.BigIntegerField()
    method = models.CharField(max_length=16)
    confidence = models.FloatField()
    evidence = models.JSONField(default=list)
    unconfirmed = models.BooleanField(default=False)
    signed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"slot {self.slot_id} recorded in {self.event_id}"
