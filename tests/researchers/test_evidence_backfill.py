"""The evidence backfill (issue 20): authorships written before evidence was kept get the same
evidence and unconfirmed marks a fresh match gives, unattended, from the matcher's next run."""

import pytest

from researchers.models import Authorship
from researchers.services import authorships_evidence_backfill, researchers_match_authors

pytestmark = pytest.mark.django_db


def test_backfill_rebuilds_what_a_fresh_match_stores(sample_papers):
    researchers_match_authors(sources=[])
    fresh = dict(Authorship.objects.values_list("slot_id", "evidence"))
    fresh_unconfirmed = set(Authorship.objects.filter(unconfirmed=True).values_list("slot_id", flat=True))
    assert len(fresh) == 8459 and fresh_unconfirmed

    # An archive matched before issue 20: no evidence, nothing marked.
    Authorship.objects.update(evidence=[], unconfirmed=False)
    assert authorships_evidence_backfill(batch_size=3000) == 8459  # three batches
    assert dict(Authorship.objects.values_list("slot_id", "evidence")) == fresh
    assert (
        set(Authorship.objects.filter(unconfirmed=True).values_list("slot_id", flat=True))
        == fresh_unconfirmed
    )

    # The matcher runs it after every match; with nothing left it fills nothing.
    Authorship.objects.filter(paper__arxiv_id="0801.4563").update(evidence=[], unconfirmed=False)
    stamps = dict(Authorship.objects.filter(paper__arxiv_id="0801.4563").values_list("pk", "modified_at"))
    summary = researchers_match_authors(sources=[])
    wiped = Authorship.objects.filter(paper__arxiv_id="0801.4563").count()
    # Each link given evidence has a new change time (the paper API's Last-Modified).
    assert all(a.modified_at > stamps[a.pk] for a in Authorship.objects.filter(pk__in=stamps))
    assert (summary.slots, summary.evidence_backfilled) == (0, wiped)
    assert f", {wiped} older links given evidence (" in summary.line()
    maller = Authorship.objects.get(paper__arxiv_id="0801.4563", slot__position=1)
    assert maller.unconfirmed and maller.evidence[-1] == {
        "kind": "name",
        "name": "Ariyeh H. Maller",
        "block": "a maller",
    }
    assert researchers_match_authors(sources=[]).evidence_backfilled == 0


def test_registry_links_are_explained_by_the_ids_their_researcher_holds(db):
    from papers.models import Paper, PaperAuthor
    from researchers.models import ExternalIdentity, Researcher

    paper = Paper.objects.create(arxiv_id="2108.04680", slug="x", title="t", categories=["cs.HC"])
    slots = [
        PaperAuthor.objects.create(
            paper=paper, position=i, name=n, keyname=n.split()[-1], forenames=n.split()[0]
        )
        for i, n in enumerate(["Jonathan Roberts", "Joseph Mearman", "Peter Butcher"], start=1)
    ]
    roberts = Researcher.objects.create(display_name="Jonathan Roberts", orcid="0000-0001-7718-3181")
    mearman = Researcher.objects.create(display_name="Joseph Mearman")
    ExternalIdentity.objects.create(researcher=mearman, source="openalex", external_id="A5017898742")
    butcher = Researcher.objects.create(display_name="Peter Butcher")
    for slot, researcher, method, source in (
        (slots[0], roberts, "orcid", "openalex"),
        (slots[1], mearman, "external_id", "openalex"),
        (slots[2], butcher, "editor", ""),
    ):
        Authorship.objects.create(
            slot=slot,
            paper=paper,
            researcher=researcher,
            method=method,
            source=source,
            confidence=0.9,
            block="x",
        )
    assert authorships_evidence_backfill() == 3
    assert [a.evidence for a in Authorship.objects.order_by("slot__position")] == [
        [{"kind": "orcid", "orcid": "0000-0001-7718-3181", "source": "openalex"}],
        [{"kind": "external_id", "source": "openalex", "id": "A5017898742"}],
        [{"kind": "editor"}],
    ]
