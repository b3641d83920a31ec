"""Curation: the append-only log of editors' merges, splits, undos and same-name decisions."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from .querysets import CurationRecordQuerySet

# The one permission curation needs beyond viewing (``curation.curate_researchers``).
CURATE_PERMISSION = "curation.curate_researchers"


class CurationRecord(models.Model):
    """One editor decision on researcher identities, with exactly what it changed.

    ``kind`` is ``merge``, ``split``, ``undo``, ``distinct`` ("not the same person"),
    ``confirm`` (an unconfirmed authorship confirmed, :mod:`curation.confirm`) or ``reassign``
    (an authorship moved to another or a new researcher: a split of one authorship,
    :mod:`curation.reassign`).
    ``researcher`` is the record the history is shown on (the survivor of a merge, the
    researcher a split took authorships from); ``researcher_ids`` every researcher involved
    (GIN-indexed, so a researcher page finds its history in one query). ``changes`` is the
    JSON description written by the curation actions (:mod:`curation.merge`,
    :mod:`curation.split`; ``before`` snapshots of the researcher rows, moved authorships,
    identities, follows, constraints, ...) from which
    :func:`curation.undo.curation_undo` restores the prior state exactly. ``undoes``
    points an ``undo`` record at the record it reverted (one undo per record).
    ``provenance_event`` is the id (``sha256:<hex>``) of the signed provenance event
    appended in the same transaction, empty when no paper could carry it.

    Guarantee (database triggers): rows are never updated or deleted; an undo is a new row.
    """

    class Kind(models.TextChoices):
        MERGE = "merge", "Merge"
        SPLIT = "split", "Split"
        UNDO = "undo", "Undo"
        DISTINCT = "distinct", "Not the same person"
        CONFIRM = "confirm", "Confirm"
        REASSIGN = "reassign", "Reassign"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    editor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="curation_records"
    )
    editor_name = models.CharField(max_length=150, help_text="Username at the time of the decision")
    reason = models.TextField()
    researcher_id = models.BigIntegerField(help_text="Researcher whose page shows this record")
    researcher_ids = ArrayField(models.BigIntegerField(), help_text="Every researcher involved")
    changes = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    override_orcid = models.BooleanField(default=False)
    undoes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="undone_by"
    )
    provenance_event = models.CharField(max_length=71, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CurationRecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("curate_researchers", "Can merge, split and undo researcher identities")]
        indexes = [
            GinIndex(fields=["researcher_ids"], name="curation_researchers_gin"),
            models.Index(fields=["researcher_id", "-created_at"], name="curation_subject_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason=""), name="curation_reason_required"),
        ]
        triggers = [
            pgtrigger.Protect(
                name="curationrecord_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} of researcher {self.researcher_id}"


# The kinds :func:`curation.undo.curation_undo` can revert (an undo is final, "not the same
# person" is a decision kept for good).
UNDOABLE_KINDS = (
    CurationRecord.Kind.MERGE,
    CurationRecord.Kind.SPLIT,
    CurationRecord.Kind.CONFIRM,
    CurationRecord.Kind.REASSIGN,
)


class PairDecision(models.Model):
    """Not the same person: two researcher records an editor declared distinct, for good.

    Stored with ``researcher_low < researcher_high``; unique, so the pair is decided once
    and the same-name queue never offers it again. The matching cannot-link constraints
    are written by :func:`curation.pairs.pair_mark_distinct` alongside. Append-only
    (database triggers refuse UPDATE and DELETE).
    """

    researcher_low = models.BigIntegerField()
    researcher_high = models.BigIntegerField()
    record = models.OneToOneField(CurationRecord, on_delete=models.PROTECT, related_name="pair_decision")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["researcher_low", "researcher_high"], name="pairdecision_unique"),
            models.CheckConstraint(
                condition=models.Q(researcher_low__lt=models.F("researcher_high")),
                name="pairdecision_ordered",
            ),
        ]
        triggers = [
            pgtrigger.Protect(name="pairdecision_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.researcher_low} ≠ {self.researcher_high}"
