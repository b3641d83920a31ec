"""The curation screens as an editor uses them: compare and merge, split, undo, the queue."""

from __future__ import annotations

import pytest

from curation.models import CurationRecord, PairDecision
from curation.queue import same_name_queue
from researchers.models import Authorship, Researcher

from .conftest import researcher_of

pytestmark = pytest.mark.django_db


def cieza():
    return researcher_of("0801.4572", 1), researcher_of("0801.4403", 1)


def test_merge_page_shows_the_evidence_side_by_side(curation_sample, editor):
    a, b = cieza()
    page = editor.get(f"/admin/curation/merge/?ids={a.pk},{b.pk}").content.decode()
    assert "Lucas A. Cieza" in page and "Lucas Cieza" in page
    assert "astro-ph (1)" in page and "astro-ph (2)" in page  # categories with paper counts
    assert f'value="{b.pk}" checked' in page  # the record with most papers is proposed
    assert "2007" in page and "2008" in page  # years: 0704.0253 (2007), 0801.4572 (2008)


def test_merge_through_the_page_then_undo(curation_sample, editor):
    a, b = cieza()
    response = editor.post(
        "/admin/curation/merge/", {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": ""}
    )
    assert response.status_code == 200 and not CurationRecord.objects.exists()  # reason required
    response = editor.post(
        "/admin/curation/merge/", {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": "Same astronomer"}
    )
    record = CurationRecord.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/curation/curationrecord/{record.pk}/change/"
    assert record.editor.username == "editor" and record.changes["merged"] == [a.pk]
    page = editor.get(response["Location"]).content.decode()
    assert f"/admin/curation/undo/{record.pk}/" in page

    page = editor.get(f"/admin/curation/undo/{record.pk}/").content.decode()
    assert f"1 paper goes back to researcher {a.pk}." in page
    response = editor.post(f"/admin/curation/undo/{record.pk}/", {"reason": "Different people"})
    assert response.status_code == 302
    assert Researcher.objects.get(pk=a.pk).merged_into_id is None
    assert CurationRecord.objects.filter(undoes=record).count() == 1


def test_orcid_conflict_needs_the_override(curation_sample, editor):
    a, b = cieza()
    Researcher.objects.filter(pk=a.pk).update(orcid="0000-0002-1825-0097")
    Researcher.objects.filter(pk=b.pk).update(orcid="0000-0001-5109-3700")
    data = {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": "Same person, two ORCID records"}
    page = editor.post("/admin/curation/merge/", data).content.decode()
    assert "hold different ORCID iDs (0000-0001-5109-3700, 0000-0002-1825-0097)" in page
    assert 'name="override_orcid"' in page and not CurationRecord.objects.exists()
    response = editor.post("/admin/curation/merge/", {**data, "override_orcid": "on"})
    assert response.status_code == 302 and CurationRecord.objects.get().override_orcid


def test_split_through_the_page(curation_sample, editor):
    chablat = researcher_of("0705.0856", 3)
    page = editor.get(f"/admin/curation/split/{chablat.pk}/").content.decode()
    assert page.count('name="authorships"') == 8
    moving = list(
        Authorship.objects.filter(
            researcher=chablat, paper__arxiv_id__in=["0705.0738", "0705.0982"]
        ).values_list("pk", flat=True)
    )
    response = editor.post(
        f"/admin/curation/split/{chablat.pk}/",
        {"authorships": moving, "target": "new", "display_name": "D. Chablat (2)", "reason": "Other person"},
    )
    assert response.status_code == 302
    record = CurationRecord.objects.get()
    target = Researcher.objects.get(pk=record.changes["target"])
    assert target.display_name == "D. Chablat (2)" and target.paper_count == 2
    # Existing target without an id: the form says so and nothing happens.
    page = editor.post(
        f"/admin/curation/split/{chablat.pk}/",
        {"authorships": moving[:1], "target": "existing", "reason": "x"},
    ).content.decode()
    assert "Give the id of the researcher" in page and CurationRecord.objects.count() == 1


def test_queue_lists_pairs_and_records_not_the_same_person(curation_sample, editor):
    a, b = cieza()
    low, high = sorted((a.pk, b.pk))
    link = f"/admin/curation/merge/?ids={low},{high}"
    position = [(c.a.pk, c.b.pk) for c in same_name_queue()].index((low, high))
    page = editor.get(f"/admin/curation/queue/?page={position // 50 + 1}").content.decode()
    assert link in page and "Not the same person" in page
    back = f"/admin/curation/queue/?page={position // 50 + 1}#row-{position % 50 + 1}"
    response = editor.post(
        "/admin/curation/distinct/",
        {"a": low, "b": high, "reason": "Not the same person (same-name queue)", "next": back},
    )
    assert response.status_code == 302 and response["Location"] == back
    assert PairDecision.objects.filter(researcher_low=low, researcher_high=high).exists()
    page = editor.get(f"/admin/curation/queue/?page={position // 50 + 1}").content.decode()
    assert link not in page
    # The merge page still opens for the pair, warning about the decision.
    page = editor.get(link).content.decode()
    assert f"declared #{low} and #{high} not the same person" in page
    assert (low, high) not in [(c.a.pk, c.b.pk) for c in same_name_queue()]


def test_the_comparison_reads_paper_titles_as_readers_do(curation_sample, editor):
    # Issue 32: the comparison showed raw TeX, "On $p$-adic Gibbs measures...".
    first = researcher_of("0705.0244", 1)
    other = Researcher.objects.exclude(pk=first.pk).order_by("pk").first()
    page = editor.get(f"/admin/curation/merge/?ids={first.pk},{other.pk}").content.decode()
    assert "On p-adic Gibbs measures of countable state Potts model on the Cayley tree" in page
    assert "$p$-adic" not in page
