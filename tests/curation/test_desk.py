"""The editor's desk (issue 21): the comparison lists papers, records read as sentences,
every confirmation has Cancel, the queues open the comparison and come back."""

from __future__ import annotations

import re
from html import unescape

import pytest

import curation.selectors
from curation import stories
from curation.models import CurationRecord
from curation.queue import same_name_queue
from researchers.models import Authorship

from .conftest import researcher_of

pytestmark = pytest.mark.django_db


def cieza():
    """Lucas A. Cieza (1 paper: 0801.4572) and Lucas Cieza (2: 0801.4403, 0704.0253)."""
    return researcher_of("0801.4572", 1), researcher_of("0801.4403", 1)


def text(html: str) -> str:
    """The page as a reader sees it: inline tags dropped, others a space, entities decoded."""
    html = re.sub(r"</?(a|strong|em|span|label|code)\b[^>]*>", "", html)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def compare(client, *researchers, extra: str = "") -> str:
    ids = ",".join(str(r.pk) for r in researchers)
    response = client.get(f"/admin/curation/merge/?ids={ids}{extra}")
    assert response.status_code == 200
    return response.content.decode()


def test_comparison_lists_each_records_papers(curation_sample, editor):
    a, b = cieza()
    page = compare(editor, a, b)
    shown = text(page)
    # Titles linked to the public paper pages, with the year and the arXiv id.
    assert (
        '<a href="/papers/0801.4572-' in page and "The Evolution of Primordial Circumstellar Disks" in shown
    )
    assert "(2008, arXiv 0801.4403)" in shown and "(2007, arXiv 0704.0253)" in shown
    assert "Spitzer observations of the Hyades: Circumstellar debris disks at 625 Myr of age" in shown
    # The record's slot on each paper and the co-authors there (0704.0253 has 18 authors:
    # the first 8 others are named, 9 more counted).
    assert "As “Lucas Cieza”, author 8 of 18." in shown
    assert "With William D. Cochran, Jean-Charles Augereau." in shown
    assert "Neal J. Evans II" in shown and "Shih-Ping Lai and 9 more." in shown
    cochran = researcher_of("0801.4403", 2)
    assert f'<a href="{cochran.get_absolute_url()}"' in page
    # Each record links to its public page and its admin page.
    assert f'<a href="/admin/researchers/researcher/{a.pk}/change/">admin</a>' in page
    assert f'<a href="{b.get_absolute_url()}" target="_blank" rel="noopener">public page</a>' in page


def test_comparison_shows_the_slots_affiliations(curation_sample, editor):
    chablat = researcher_of("0705.0856", 3)
    wenger = researcher_of("0705.0982", 2)
    shown = text(compare(editor, chablat, wenger))
    assert "A New Three-DOF Parallel Mechanism: Milling Machine Applications" in shown
    assert "As “Damien Chablat”, author 1 of 2. Affiliation: IRCCyN." in shown


def test_comparison_lists_the_newest_papers_and_counts_the_rest(curation_sample, editor, monkeypatch):
    monkeypatch.setattr(curation.selectors, "PAPERS_SHOWN", 3)
    chablat = researcher_of("0705.0856", 3)  # 8 papers, the newest 0705.0982, 0705.0962, 0705.0961
    a, _b = cieza()
    page = compare(editor, chablat, a)
    assert "arXiv 0705.0982" in page and "arXiv 0705.0961" in page and "arXiv 0705.0856" not in page
    assert "And 5 older papers" in text(page)


def test_comparison_queries_do_not_grow_with_papers(curation_sample, editor, django_assert_max_num_queries):
    """Cieza's records hold 3 papers, Chablat's and Wenger's 8 and 5 with more co-authors:
    the same number of queries (no query per paper or co-author): 14 for two records
    (session, user, permissions twice, researchers, identities, co-authors, facts, papers,
    their co-authors, institutions per record, the shared co-authors by the one rule the
    queue reads too (curation.coauthors, issue 32), pair decisions)."""
    a, b = cieza()
    chablat, wenger = researcher_of("0705.0856", 3), researcher_of("0705.0982", 2)
    with django_assert_max_num_queries(14) as small:
        compare(editor, a, b)
    with django_assert_max_num_queries(14) as large:
        compare(editor, chablat, wenger)
    assert len(large.captured_queries) == len(small.captured_queries)


def merge_cieza(client, reason: str = "Same astronomer", **extra):
    a, b = cieza()
    data = {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": reason, **extra}
    return a, b, client.post("/admin/curation/merge/", data)


def test_after_a_merge_the_record_reads_as_sentences(curation_sample, editor):
    a, b, response = merge_cieza(editor)
    record = CurationRecord.objects.get()
    assert response["Location"] == f"/admin/curation/curationrecord/{record.pk}/change/"
    page = editor.get(response["Location"]).content.decode()
    shown = text(page)
    assert (
        f"Merged researcher {a.pk} (Lucas A. Cieza, 1 paper) into researcher {b.pk} (Lucas Cieza, 2 papers)"
        " because “Same astronomer”." in shown
    )
    assert (
        f"Moved 1 paper to researcher {b.pk}: 0801.4572 The Evolution of Primordial Circumstellar Disks"
        " (2008)." in shown
    )
    assert f"The merged record's page now redirects to researcher {b.pk}." in shown
    # Links: researchers to their admin and public pages, the paper to its page.
    assert f'<a href="/admin/researchers/researcher/{a.pk}/change/">{a.pk}</a>' in page
    assert f'<a href="/researchers/{a.pk}">Lucas A. Cieza</a>' in page
    assert '<a href="/papers/0801.4572-' in page
    # The success message links the record; no empty "Override orcid" field; the raw JSON
    # is kept for auditors, collapsed.
    assert f"Merged researcher {a.pk} into researcher {b.pk} (curation #{record.pk})." in shown
    assert "Override orcid" not in page
    details = page.index("<details")
    assert "Stored record (for auditors)" in page[details:]
    assert page.index("&quot;survivor&quot;: ") > details


def chablat_split(client):
    """Move Damien Chablat's 0705.0738 and 0705.0982 to a new record through the split page."""
    chablat = researcher_of("0705.0856", 3)
    moving = list(
        Authorship.objects.filter(
            researcher=chablat, paper__arxiv_id__in=["0705.0738", "0705.0982"]
        ).values_list("pk", flat=True)
    )
    data = {
        "authorships": moving,
        "target": "new",
        "display_name": "D. Chablat (2)",
        "reason": "Other person",
    }
    return chablat, client.post(f"/admin/curation/split/{chablat.pk}/", data)


def test_after_a_split_the_record_reads_as_sentences(curation_sample, editor):
    chablat, response = chablat_split(editor)
    record = CurationRecord.objects.get()
    target = record.changes["target"]
    assert response["Location"] == f"/admin/curation/curationrecord/{record.pk}/change/"
    shown = text(editor.get(response["Location"]).content.decode())
    assert (
        f"Moved 2 papers from researcher {chablat.pk} (Damien Chablat, 8 papers) to new researcher {target}"
        " (D. Chablat (2), 2 papers) because “Other person”." in shown
    )
    assert (
        "The papers: 0705.0982 A New Three-DOF Parallel Mechanism: Milling Machine Applications (2007);"
        " 0705.0738 The Optimization of a Novel Prismatic Drive (2007)." in shown
    )
    assert f"Moved 2 papers to researcher {target} (curation #{record.pk})." in shown  # the message


def test_undo_page_speaks_in_sentences_and_the_undo_record_too(curation_sample, editor):
    a, b, _response = merge_cieza(editor, reason="Same astronomer.")
    record = CurationRecord.objects.get()
    page = editor.get(f"/admin/curation/undo/{record.pk}/").content.decode()
    shown = text(page)
    assert (
        f"Researcher {a.pk} (Lucas A. Cieza, 1 paper) becomes a separate record again;"
        f" its page stops redirecting to researcher {b.pk}." in shown
    )
    assert f"1 paper goes back to researcher {a.pk}." in shown
    # The reason keeps its own full stop and nothing doubles it; no "(s)" plurals.
    assert "because “Same astronomer.” Moved" in shown
    assert ".”." not in shown and "(s)" not in shown and ".." not in shown
    response = editor.post(f"/admin/curation/undo/{record.pk}/", {"reason": "Different people"})
    undo = CurationRecord.objects.get(undoes=record)
    assert response["Location"] == f"/admin/curation/curationrecord/{undo.pk}/change/"
    shown = text(editor.get(response["Location"]).content.decode())
    assert f"Undid curation #{record.pk} (a merge) because “Different people”." in shown
    assert (
        f"Restored researchers {a.pk} (Lucas A. Cieza, 1 paper) and {b.pk} (Lucas Cieza, 2 papers)"
        " as they were before it." in shown
    )


def test_split_undo_page_says_what_goes_back(curation_sample, editor):
    chablat, _response = chablat_split(editor)
    record = CurationRecord.objects.get()
    shown = text(editor.get(f"/admin/curation/undo/{record.pk}/").content.decode())
    assert f"2 papers go back to researcher {chablat.pk}." in shown
    assert f"Researcher {record.changes['target']}, which the split created, is deleted." in shown


def cancel_of(page: str, label: str = "Cancel") -> str:
    found = re.findall(rf'<a href="([^"]*)" class="button cancel-link">{label}</a>', page)
    assert len(found) == 1, found
    return unescape(found[0])


def test_every_confirmation_page_has_cancel_back_to_where_the_editor_came_from(curation_sample, editor):
    a, b = cieza()
    chablat = researcher_of("0705.0856", 3)
    changelist = "/admin/researchers/researcher/?q=cieza"
    # Merge: back to the page it was opened from (Referer), else the researcher list.
    page = editor.get(
        f"/admin/curation/merge/?ids={a.pk},{b.pk}", HTTP_REFERER=f"http://testserver{changelist}"
    )
    assert cancel_of(page.content.decode()) == f"http://testserver{changelist}"
    assert cancel_of(compare(editor, a, b)) == "/admin/researchers/researcher/"
    # A refused POST keeps the Cancel the GET found.
    data = {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": "", "cancel": changelist}
    assert cancel_of(editor.post("/admin/curation/merge/", data).content.decode()) == changelist
    # Split: the researcher's admin page by default.
    page = editor.get(f"/admin/curation/split/{chablat.pk}/").content.decode()
    assert cancel_of(page) == f"/admin/researchers/researcher/{chablat.pk}/change/"
    # Undo: the record by default, or where the editor came from.
    merge_cieza(editor)
    record = CurationRecord.objects.get()
    page = editor.get(f"/admin/curation/undo/{record.pk}/").content.decode()
    assert cancel_of(page) == f"/admin/curation/curationrecord/{record.pk}/change/"
    page = editor.get(
        f"/admin/curation/undo/{record.pk}/", HTTP_REFERER="http://testserver/admin/curation/curationrecord/"
    ).content.decode()
    assert cancel_of(page) == "http://testserver/admin/curation/curationrecord/"
    # Distinct: offered on the comparison of two records, whose Cancel is above.
    c, d = researcher_of("0801.4403", 2), researcher_of("0705.0982", 2)
    page = compare(editor, c, d)
    assert 'formaction="/admin/curation/distinct/" value="Not the same person"' in page


def test_queue_opens_the_comparison_and_comes_back_after_a_merge(curation_sample, editor):
    a, b = cieza()
    low, high = sorted((a.pk, b.pk))
    position = [(c.a.pk, c.b.pk) for c in same_name_queue()].index((low, high))
    queue = f"/admin/curation/queue/?page={position // 50 + 1}"
    back = f"{queue}#row-{position % 50 + 1}"
    page = editor.get(queue).content.decode()
    encoded = back.replace("?", "%3F").replace("=", "%3D").replace("#", "%23")
    link = f"/admin/curation/merge/?ids={low},{high}&amp;next={encoded}"
    assert f'<a class="button" id="row-{position % 50 + 1}" href="{link}">' in page
    page = editor.get(unescape(link)).content.decode()
    assert cancel_of(page) == back
    assert f'<input type="hidden" name="next" value="{back}">' in page
    response = editor.post(
        "/admin/curation/merge/",
        {"ids": f"{low},{high}", "survivor": b.pk, "reason": "Same astronomer", "next": back},
    )
    record = CurationRecord.objects.get()
    assert response.status_code == 302 and response["Location"] == back
    page = editor.get(back).content.decode()
    assert (
        f"Merged researcher {a.pk} into researcher {b.pk}"
        f' (<a href="/admin/curation/curationrecord/{record.pk}/change/">curation #{record.pk}</a>).' in page
    )


def test_not_the_same_person_from_the_comparison_comes_back_to_next(curation_sample, editor):
    a, b = cieza()
    low, high = sorted((a.pk, b.pk))
    back = "/admin/curation/unconfirmed/?page=2#row-7"  # any admin URL: the review queue's, say
    page = compare(editor, a, b, extra="&next=%2Fadmin%2Fcuration%2Funconfirmed%2F%3Fpage%3D2%23row-7")
    assert (
        f'<input type="hidden" name="a" value="{low}"><input type="hidden" name="b" value="{high}">' in page
    )
    response = editor.post(
        "/admin/curation/distinct/",
        {"a": low, "b": high, "ids": f"{low},{high}", "reason": "Two people", "next": back},
    )
    record = CurationRecord.objects.get(kind="distinct")
    assert response["Location"] == back
    # Without next the editor lands on the record, which reads as sentences.
    assert (
        text(editor.get(f"/admin/curation/curationrecord/{record.pk}/change/").content.decode()).count(
            f"Declared researchers {low} ("
        )
        == 1
    )


def test_next_off_the_site_is_ignored(curation_sample, editor):
    a, b = cieza()
    page = compare(editor, a, b, extra="&next=https%3A%2F%2Fevil.example%2F")
    assert cancel_of(page) == "/admin/researchers/researcher/" and "evil.example" not in page
    response = editor.post(
        "/admin/curation/merge/",
        {"ids": f"{a.pk},{b.pk}", "survivor": b.pk, "reason": "Same", "next": "//evil.example/x"},
    )
    record = CurationRecord.objects.get()
    assert response["Location"] == f"/admin/curation/curationrecord/{record.pk}/change/"


def test_a_decision_cannot_be_undone_and_the_page_says_so(curation_sample, editor):
    a, b = cieza()
    editor.post("/admin/curation/distinct/", {"a": a.pk, "b": b.pk, "reason": "Two people"})
    record = CurationRecord.objects.get()
    page = editor.get(f"/admin/curation/undo/{record.pk}/").content.decode()
    assert f"Curation #{record.pk} (not the same person) cannot be undone." in text(page)
    assert 'name="reason"' not in page and cancel_of(page, "Back") == (
        f"/admin/curation/curationrecord/{record.pk}/change/"
    )


def test_a_kind_moving_links_between_records_is_told_by_its_shape(curation_sample):
    """Kinds added later (the review queue's reassignment moves one authorship like a split
    and keeps the old marks) read as sentences without a story of their own."""
    chablat = researcher_of("0705.0856", 3)
    moved = Authorship.objects.get(researcher=chablat, paper__arxiv_id="0705.0738")
    record = CurationRecord(
        kind="reassign",
        reason="Another Chablat",
        researcher_id=chablat.pk,
        researcher_ids=[chablat.pk, 1],
        changes={
            "source": chablat.pk,
            "target": 1,
            "before": {str(chablat.pk): {"display_name": "Damien Chablat", "paper_count": 8}},
            "after": {"1": {"display_name": "D. Chablat", "paper_count": 1}},
            "authorships": [{"id": moved.pk, "from": chablat.pk, "to": 1}],
            "identities": [],
            "marks": [{"id": moved.pk, "researcher": 1}],
        },
    )
    shown = text(" ".join(stories.record_story(record)))
    assert (
        f"Moved 1 paper from researcher {chablat.pk} (Damien Chablat, 8 papers) to researcher 1"
        " (D. Chablat, 1 paper) because “Another Chablat”." in shown
    )
    assert "1 link is now the editor's decision" in shown
    assert (
        "1 authorship gets back the method, confidence, mark (unconfirmed or not) and evidence it had"
        in text(" ".join(stories.undo_preview(record)))
    )


def test_a_decision_on_one_author_slot_names_the_paper(curation_sample):
    """The review queue's confirmation (issue 20) writes the slot's paper and researcher."""
    b = researcher_of("0801.4403", 1)
    record = CurationRecord(
        kind="confirm",
        reason="Right person",
        researcher_id=b.pk,
        researcher_ids=[b.pk],
        changes={
            "researcher": b.pk,
            "arxiv_id": "0801.4403",
            "before": {str(b.pk): {"display_name": "Lucas Cieza", "paper_count": 2}},
            "authorships": [],
            "marks": [{"id": 1, "researcher": b.pk}],
        },
    )
    page = " ".join(stories.record_story(record))
    assert f"Confirm: researcher {b.pk} (Lucas Cieza, 2 papers) is an author of arXiv 0801.4403" in text(page)
    assert '<a href="/papers/0801.4403">arXiv 0801.4403</a>' in page
