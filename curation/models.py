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
    :mod:`curation.reassign`); issue 31 adds the researcher's own: ``claim`` (a user claims
    a researcher record, :mod:`curation.claims`), ``claim_approve`` and ``claim_refuse`` (an
    editor's decision on a claim that needed review), ``mine`` and ``not_mine`` (the owner
    of a claimed record confirms or rejects one of its authorships, :mod:`curation.owner`),
    ``name_variant`` and ``display_name`` (the owner adds a name or chooses the one shown),
    ``merge_proposal`` (the owner proposes merging another record of theirs; an editor's
    confirmation is a ``merge``, a refusal ``proposal_refuse``) and ``take`` (the owner takes
    a paper from an unconfirmed link or the review queue).
    For those, ``editor`` is the user who acted (the researcher, or the deciding editor).
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
        CLAIM = "claim", "Claim"
        CLAIM_APPROVE = "claim_approve", "Claim approved"
        CLAIM_REFUSE = "claim_refuse", "Claim refused"
        MINE = "mine", "Confirmed by the researcher"
        NOT_MINE = "not_mine", "Rejected by the researcher"
        NAME_VARIANT = "name_variant", "Name added by the researcher"
        DISPLAY_NAME = "display_name", "Display name chosen by the researcher"
        MERGE_PROPOSAL = "merge_proposal", "Merge proposed by the researcher"
        PROPOSAL_REFUSE = "proposal_refuse", "Merge proposal refused"
        TAKE = "take", "Taken by the researcher"

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
    CurationRecord.Kind.CLAIM,
    CurationRecord.Kind.CLAIM_APPROVE,
    CurationRecord.Kind.CLAIM_REFUSE,
    CurationRecord.Kind.MINE,
    CurationRecord.Kind.NOT_MINE,
    CurationRecord.Kind.TAKE,
    CurationRecord.Kind.MERGE_PROPOSAL,
    CurationRecord.Kind.PROPOSAL_REFUSE,
    CurationRecord.Kind.NAME_VARIANT,
    CurationRecord.Kind.DISPLAY_NAME,
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


class ResearcherClaim(models.Model):
    """A user's claim to be the person of a researcher record (issue 31).

    ``strong`` claims were proved: the user signed in with ORCID (allauth's
    ``SocialAccount`` of provider ``orcid``) and the researcher holds that iD, as its
    ``orcid`` or through any ORCID :class:`~researchers.models.ExternalIdentity` (a merged
    record holding several); they are ``approved`` at once. Every other claim waits
    ``pending`` in the editors' queue with the user's ``evidence`` (free text) and ``orcid``
    (the iD the user typed, or the verified one that the researcher does not hold: never
    proof), until an editor approves or refuses it. ``orcid`` is stored normalised, or empty.

    Statuses (database trigger): ``pending`` -> ``approved`` | ``refused`` | ``withdrawn``;
    ``approved`` -> ``pending`` (an editor's approval undone) | ``withdrawn`` (a proved claim
    undone); ``refused`` -> ``pending`` (a refusal undone). One approved claim per researcher
    (the owner), one open claim per user and researcher (unique constraints). ``record`` is
    the curation record of the claim, ``decision`` that of the editor's last decision.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for an editor"
        APPROVED = "approved", "Approved"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"

    researcher = models.ForeignKey("researchers.Researcher", on_delete=models.CASCADE, related_name="claims")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="researcher_claims"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    strong = models.BooleanField(default=False, help_text="Proved by ORCID sign-in")
    orcid = models.CharField(max_length=19, blank=True, help_text="The iD given with the claim, normalised")
    evidence = models.TextField(blank=True, help_text="What the user wrote for the editors")
    record = models.ForeignKey(CurationRecord, on_delete=models.PROTECT, related_name="claims_made")
    decision = models.ForeignKey(
        CurationRecord, null=True, blank=True, on_delete=models.PROTECT, related_name="claims_decided"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"], name="claim_status_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher"], condition=models.Q(status="approved"), name="claim_one_owner"
            ),
            models.UniqueConstraint(
                fields=["researcher", "user"],
                condition=models.Q(status__in=["pending", "approved"]),
                name="claim_one_open_per_user",
            ),
        ]
        triggers = [
            pgtrigger.FSM(
                name="claim_status_transitions",
                field="status",
                transitions=[
                    ("pending", "approved"),
                    ("pending", "refused"),
                    ("pending", "withdrawn"),
                    ("approved", "pending"),
                    ("approved", "withdrawn"),
                    ("refused", "pending"),
                ],
            ),
        ]

    def __str__(self) -> str:
        return f"claim #{self.pk} of researcher {self.researcher_id} by user {self.user_id} ({self.status})"


class MergeProposal(models.Model):
    """The owner of a claimed record says another record is theirs too (issue 31).

    ``user`` owns ``claim`` (approved); ``researcher`` is their record (the claimed one, or
    the survivor it was merged into), which survives the merge and keeps its ORCID iD;
    ``other`` the record proposed, followed to its survivor when it had been merged away.
    ``evidence`` is what the user wrote for the editors (free text, never shown publicly).
    ``record`` is the ``merge_proposal`` curation record; ``decision`` the editor's last
    decision on it (a ``merge`` record naming the proposal, or ``proposal_refuse``) and
    ``editor`` who took it.

    Statuses (database trigger): ``pending`` -> ``confirmed`` | ``refused`` | ``withdrawn``;
    ``confirmed`` -> ``pending`` (the merge undone) and ``refused`` -> ``pending`` (the
    refusal undone); ``withdrawn`` (the owner withdrew it, or an editor undid the proposal's
    record) is final. One pending proposal per pair of records (unique constraint).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for an editor"
        CONFIRMED = "confirmed", "Confirmed: merged"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="merge_proposals"
    )
    claim = models.ForeignKey(ResearcherClaim, on_delete=models.CASCADE, related_name="merge_proposals")
    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="merge_proposals"
    )
    other = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="proposed_into"
    )
    evidence = models.TextField(blank=True, help_text="What the researcher wrote for the editors")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    record = models.OneToOneField(CurationRecord, on_delete=models.PROTECT, related_name="proposal_made")
    decision = models.ForeignKey(
        CurationRecord, null=True, blank=True, on_delete=models.PROTECT, related_name="proposals_decided"
    )
    editor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="merge_proposals_decided",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"], name="proposal_status_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher", "other"],
                condition=models.Q(status="pending"),
                name="proposal_one_pending",
            ),
            models.CheckConstraint(
                condition=~models.Q(researcher=models.F("other")), name="proposal_two_records"
            ),
        ]
        triggers = [
            pgtrigger.FSM(
                name="proposal_status_transitions",
                field="status",
                transitions=[
                    ("pending", "confirmed"),
                    ("pending", "refused"),
                    ("pending", "withdrawn"),
                    ("confirmed", "pending"),
                    ("refused", "pending"),
                ],
            ),
        ]

    def __str__(self) -> str:
        return f"proposal #{self.pk}: researcher {self.other_id} into {self.researcher_id} ({self.status})"
