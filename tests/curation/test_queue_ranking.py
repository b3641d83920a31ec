"""The same-name queue ranks in tiers by evidence and proposes variant spellings of one
family name across name blocks (issue 20).

The sample tests read the real sample matched locally (``curation_sample``). The others file
authorships on constructed researcher rows (no matcher run), so the pairs stay two records
whatever the clustering decides; their names are the real ones named in the issue. The
sample may be loaded beside them (the fixture lives for the package), so they look only at
pairs of their own records."""

from __future__ import annotations

import pytest
from django.utils.text import slugify

from curation.merge import researcher_merge
from curation.pairs import pair_mark_distinct
from curation.queue import same_name_queue
from curation.selectors import merge_evidence
from researchers.matching_common import slot_block
from researchers.matching_local import researchers_match_local
from researchers.models import Authorship, MatchMethod, Researcher
from tests.researchers.test_bugs_name_parts import paper

pytestmark = pytest.mark.django_db


def pair_of(queue, first: str, second: str):
    """``(position, candidate)`` of the only pair of records named ``first`` and ``second``."""
    found = [
        (i, c)
        for i, c in enumerate(queue)
        if sorted([c.a.display_name, c.b.display_name]) == sorted([first, second])
    ]
    assert len(found) == 1, found
    return found[0]


# --------------------------------------------------------------------------- the real sample


def test_sample_same_name_ranks_above_different_given_names(curation_sample):
    """Issue 20: "Jian-Sheng Wang" / "Jian Wang" (score 1.05) came fourth, above "D. Mozyrsky"
    / "D. Mozyrsky" (0.7), 100th. Neither pair shares a co-author on another paper (the
    Mozyrsky papers 0704.0650/0651 are with I. Martin, 0704.0194 with S.A. Gurvitz), so an
    identical name now goes first; and Jian Wang and Jian-Sheng Wang are authors 1 and 2 of
    0704.0702, two people, so their pair goes last."""
    queue = same_name_queue()
    same_at, same = pair_of(queue, "D. Mozyrsky", "D. Mozyrsky")
    diff_at, diff = pair_of(queue, "Jian-Sheng Wang", "Jian Wang")
    assert same_at < diff_at
    assert (same.tier, same.tier_label, same.name_relation, same.together) == (
        3,
        "same name",
        "same name",
        [],
    )
    assert (diff.tier, diff.tier_label, diff.together) == (6, "authors of one paper together", ["0704.0702"])
    assert diff.name_relation == "compatible names"
    assert same.shared_coauthors == diff.shared_coauthors == []
    assert same.shared_categories == diff.shared_categories == ["cond-mat.mes-hall"]
    assert diff.score > same.score  # the tier wins over the score
    assert [c.tier for c in queue] == sorted(c.tier for c in queue)


def test_sample_coauthors_of_one_paper_are_not_shared_evidence(curation_sample):
    """ "J. Park" and "J.-H. Park" are authors 5 and 8 of 0704.0533 (and of nothing else):
    their 16 "shared co-authors" are that paper's other authors. They ranked first; now last."""
    queue = same_name_queue()
    _at, pair = pair_of(queue, "J. Park", "J.-H. Park")
    assert (pair.tier, pair.together, len(pair.shared_coauthors)) == (6, ["0704.0533"], 16)
    assert queue[0].tier < 6


def _comparison_row(page: str) -> str:
    """The "Shared co-authors" row of the merge comparison page."""
    return page.split('<th scope="row">Shared co-authors</th>', 1)[1].split("</tr>", 1)[0]


def test_sample_coauthors_of_one_name_block_are_not_shared(curation_sample, editor):
    """Issue 32: "Jae-Joon Lee" (0704.0706, with Myung Gyoon Lee, Ho-Gyu Lee, Hyung Mok Lee)
    and "J. Lee" (0704.0423, with M. J. Lee, H. S. Lee) topped the queue on "shared
    co-authors: h lee, m lee", name blocks of five different researchers, while the
    comparison said none. One rule now (curation.coauthors): the same researcher, or the same
    spelling where no researcher holds the slot. None, in both."""
    jae_joon = Researcher.objects.get(display_name="Jae-Joon Lee")
    j_lee = Authorship.objects.get(paper__arxiv_id="0704.0423", researcher__display_name="J. Lee").researcher
    queue = same_name_queue()
    at, pair = next((i, c) for i, c in enumerate(queue) if {c.a.pk, c.b.pk} == {jae_joon.pk, j_lee.pk})
    assert (pair.shared_coauthors, pair.tier, pair.tier_label) == ([], 4, "compatible names")
    assert queue[0].tier == 3 and queue[0].shared_coauthors == []
    assert [e.shared_coauthors for e in merge_evidence([jae_joon.pk, j_lee.pk])] == [[], []]
    page = editor.get(f"/admin/curation/queue/?page={at // 50 + 1}").content.decode()
    assert "co-authors: h lee" not in page and "co-authors: m lee" not in page
    compared = editor.get(f"/admin/curation/merge/?ids={jae_joon.pk},{j_lee.pk}").content.decode()
    assert _comparison_row(compared).count(">none</td>") == 2


def test_sample_a_coauthor_researcher_is_shared_in_queue_and_comparison(curation_sample, editor):
    """ "Srijit Bhattacharya" and "S. Bhattacharya", authors of the sample's 0801.3882, share its
    13 other authors' researcher records (Deepak Pandit, Surajit Pal, T.K. Rana ...): the
    queue and the comparison list the same 13 names."""
    queue = same_name_queue()
    at, pair = pair_of(queue, "Srijit Bhattacharya", "S. Bhattacharya")
    assert pair.together == ["0801.3882"]
    assert len(pair.shared_coauthors) == 13
    assert pair.shared_coauthors[:3] == ["A. De", "A. Dey", "C. Bhattacharya"]
    assert {"Deepak Pandit", "Surajit Pal", "T.K. Rana"} <= set(pair.shared_coauthors)
    columns = merge_evidence([pair.a.pk, pair.b.pk])
    assert [e.shared_coauthors for e in columns] == [pair.shared_coauthors, pair.shared_coauthors]
    page = editor.get(f"/admin/curation/queue/?page={at // 50 + 1}").content.decode()
    assert "co-authors: " + ", ".join(pair.shared_coauthors) in page
    compared = editor.get(f"/admin/curation/merge/?ids={pair.a.pk},{pair.b.pk}").content.decode()
    assert _comparison_row(compared).count(", ".join(pair.shared_coauthors)) == 2


def test_sample_proposes_a_compound_family_name_across_blocks(curation_sample):
    """ "J. Garcia" (block ``j garcia``) and "Juan Garcia-Bellido" (``j garciabellido``), both
    astro-ph, share no name block: the queue never paired them. ("M. Vidal" / "M. Soler-Vidal"
    of the issue are not in the sample; see the constructed test below.)"""
    _at, pair = pair_of(same_name_queue(), "J. Garcia", "Juan Garcia-Bellido")
    assert pair.name_relation == "variant spelling"
    assert pair.why == "“Garcia” is one part of the family name “Garcia-Bellido”"
    assert (pair.tier, pair.shared_categories) == (4, ["astro-ph"])


def test_sample_proposes_particles_written_as_one_word(curation_sample):
    _at, pair = pair_of(same_name_queue(), "Subinay Dasgupta", "S. Das Gupta")
    assert (pair.name_relation, pair.why) == ("variant spelling", "“Das Gupta” written as one word")


def test_sample_queue_page_shows_tiers_and_why(curation_sample, editor):
    queue = same_name_queue()
    position, _pair = pair_of(queue, "D. Mozyrsky", "D. Mozyrsky")
    page = editor.get(f"/admin/curation/queue/?page={position // 50 + 1}").content.decode()
    assert "<small>same name</small>" in page
    assert "Same name: written alike once accents, punctuation and particles are set aside" in page
    assert f"Same name: {sum(c.tier == 3 for c in queue)} pairs" in page
    position, _pair = pair_of(queue, "J. Garcia", "Juan Garcia-Bellido")
    page = editor.get(f"/admin/curation/queue/?page={position // 50 + 1}").content.decode()
    assert "Variant spelling: “Garcia” is one part of the family name “Garcia-Bellido”" in page
    position, _pair = pair_of(queue, "J. Park", "J.-H. Park")
    page = editor.get(f"/admin/curation/queue/?page={position // 50 + 1}").content.decode()
    assert "<strong>Authors of 0704.0533 together</strong>" in page


# --------------------------------------------------------------------------- constructed rows


def filed(arxiv_id: str, authors: list[tuple[str, str, str]], *, category: str = "nucl-ex") -> None:
    """A paper whose slots ``(name, keyname, forenames)`` are attached to the researcher
    record of that name (made on first use, as an editor's split would leave it); a name
    suffixed ``#2`` is written without the suffix and gets a record of its own."""
    p = paper(arxiv_id, [(n.split("#")[0], k, f) for n, k, f in authors], categories=(category,))
    for slot, (name, keyname, forenames) in zip(p.authors.order_by("position"), authors, strict=True):
        researcher, _new = Researcher.objects.get_or_create(
            slug=f"q20-{slugify(name)}", defaults={"display_name": slot.name, "name_variants": [slot.name]}
        )
        Authorship.objects.create(
            slot=slot,
            paper=p,
            researcher=researcher,
            method=MatchMethod.EDITOR,
            confidence=1.0,
            block=slot_block(slot.name, keyname, forenames),
        )


def ours(queue) -> list:
    """The pairs of records made by :func:`filed`, in queue order."""
    return [c for c in queue if c.a.slug.startswith("q20-") and c.b.slug.startswith("q20-")]


def test_tiers_identical_with_coauthors_then_compatible_with_coauthors_then_the_rest():
    """The issue's names on constructed rows: "S. Bhattacharya" / "Srijit Bhattacharya" with
    three shared co-authors score highest, but an identical name with one shared co-author
    comes first; "Jian-Sheng Wang" / "Jian Wang" with none comes last."""
    kundu, ghosh, pal = ("S. Kundu", "Kundu", "S."), ("T. Ghosh", "Ghosh", "T."), ("S. Pal", "Pal", "S.")
    filed("2302.00101", [("Srijit Bhattacharya", "Bhattacharya", "Srijit"), kundu, ghosh, pal])
    filed("2302.00102", [("S. Bhattacharya", "Bhattacharya", "S."), kundu, ghosh, pal])
    martin = ("I. Martin", "Martin", "I.")
    filed("2302.00103", [("D. Mozyrsky", "Mozyrsky", "D."), martin], category="cond-mat.mes-hall")
    filed("2302.00104", [("D. Mozyrsky#2", "Mozyrsky", "D."), martin], category="quant-ph")
    filed("2302.00105", [("Jian-Sheng Wang", "Wang", "Jian-Sheng")], category="cond-mat.mes-hall")
    filed("2302.00106", [("Jian Wang", "Wang", "Jian")], category="cond-mat.mes-hall")
    queue = ours(same_name_queue())
    assert [(c.a.display_name, c.b.display_name, c.tier) for c in queue] == [
        ("D. Mozyrsky", "D. Mozyrsky", 1),
        ("Srijit Bhattacharya", "S. Bhattacharya", 2),
        ("Jian-Sheng Wang", "Jian Wang", 4),
    ]
    same, compatible, rest = queue
    assert same.shared_coauthors == ["I. Martin"]
    assert compatible.shared_coauthors == ["S. Kundu", "S. Pal", "T. Ghosh"]
    assert compatible.score > same.score
    assert compatible.why == "initials against spelled-out names, or a missing middle name"
    assert rest.shared_coauthors == []


def test_authors_of_one_paper_together_go_last():
    """Srijit Bhattacharya and S. Bhattacharya as authors 1 and 6 of the sample's 0801.3882
    (three of its co-authors here): two people on one author list, last whatever they share."""
    kundu, ghosh, pal = ("S. Kundu", "Kundu", "S."), ("T. Ghosh", "Ghosh", "T."), ("S. Pal", "Pal", "S.")
    srijit, s = ("Srijit Bhattacharya", "Bhattacharya", "Srijit"), ("S. Bhattacharya", "Bhattacharya", "S.")
    filed("2302.00201", [srijit, kundu, ghosh, pal, s])
    filed("2302.00202", [("Jian-Sheng Wang", "Wang", "Jian-Sheng")])
    filed("2302.00203", [("Jian Wang", "Wang", "Jian")])
    queue = ours(same_name_queue())
    assert [(c.a.display_name, c.b.display_name, c.tier) for c in queue] == [
        ("Jian-Sheng Wang", "Jian Wang", 4),
        ("Srijit Bhattacharya", "S. Bhattacharya", 6),
    ]
    assert queue[1].together == ["2302.00201"]
    assert queue[1].shared_coauthors == ["S. Kundu", "S. Pal", "T. Ghosh"]


def test_variant_spelling_across_blocks_with_shared_coauthors(django_assert_max_num_queries):
    """ "M. Vidal" and "M. Soler-Vidal" fall in blocks ``m vidal`` and ``m solervidal``; with
    two shared co-authors they are proposed in tier 2, saying why. "M. Soler-Garcia" shares a
    part but is another family name, "J. Vidal" has another initial: neither is proposed."""
    puig, ferrer = ("Oriol Puig", "Puig", "Oriol"), ("Laia Ferrer", "Ferrer", "Laia")
    filed("2302.00001", [("M. Vidal", "Vidal", "M."), puig, ferrer], category="astro-ph")
    filed("2302.00002", [("M. Soler-Vidal", "Soler-Vidal", "M."), puig, ferrer], category="astro-ph")
    filed("2302.00003", [("M. Soler-Garcia", "Soler-Garcia", "M.")], category="astro-ph")
    filed("2302.00004", [("J. Vidal", "Vidal", "J.")], category="astro-ph")
    with django_assert_max_num_queries(8):
        queue = same_name_queue()
    [pair] = ours(queue)
    assert {pair.a.display_name, pair.b.display_name} == {"M. Vidal", "M. Soler-Vidal"}
    assert (pair.tier, pair.tier_label) == (2, "compatible names, shared co-authors")
    assert (pair.name_relation, pair.why) == (
        "variant spelling",
        "“Vidal” is one part of the family name “Soler-Vidal”",
    )
    assert pair.shared_coauthors == ["Laia Ferrer", "Oriol Puig"]


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        (
            ("Juan Garcia Lopez", "Lopez", "Juan Garcia"),
            ("J. Garcia-Lopez", "Garcia-Lopez", "J."),
            "“Garcia Lopez” read as one family name",
        ),
        (
            ("J. de la Cruz", "de la Cruz", "J."),
            ("J. Delacruz", "Delacruz", "J."),
            "“de la Cruz” written as one word",
        ),
    ],
)
def test_variant_spelling_compound_and_particles(first, second, why):
    filed("2302.00011", [first])
    filed("2302.00012", [second])
    [pair] = ours(same_name_queue())
    assert (pair.name_relation, pair.why, pair.tier) == ("variant spelling", why, 4)


def test_particles_dropped_share_a_block_already():
    """ "J. van der Berg" and "J. Berg" need no variant: both are filed under ``j berg``, and
    the names are the same once the particles are set aside."""
    filed("2302.00021", [("J. van der Berg", "van der Berg", "J.")])
    filed("2302.00022", [("J. Berg", "Berg", "J.")])
    [pair] = ours(same_name_queue())
    assert (pair.name_relation, pair.tier) == ("same name", 3)


def test_variant_pair_declared_distinct_leaves_the_queue(editor_user):
    filed("2302.00031", [("M. Vidal", "Vidal", "M.")])
    filed("2302.00032", [("M. Soler-Vidal", "Soler-Vidal", "M.")])
    [pair] = ours(same_name_queue())
    pair_mark_distinct(researcher_ids=[pair.a.pk, pair.b.pk], editor=editor_user, reason="Two astronomers")
    assert ours(same_name_queue()) == []


def test_variant_blocks_larger_than_the_limit_are_skipped():
    filed("2302.00041", [("M. Soler-Vidal", "Soler-Vidal", "M.")])
    filed("2302.00042", [("M. Vidal", "Vidal", "M.")])
    filed("2302.00043", [("M. Vidal#2", "Vidal", "M.")])
    assert len(ours(same_name_queue(max_block=2))) == 3  # two variant pairs and the block pair
    assert [(c.a.display_name, c.b.display_name) for c in ours(same_name_queue(max_block=1))] == []


def test_variant_pair_merges_and_leaves_the_queue(editor, editor_user):
    """The queue's "Compare and merge…" works for two records of different name blocks."""
    filed("2302.00051", [("M. Vidal", "Vidal", "M.")])
    filed("2302.00052", [("M. Soler-Vidal", "Soler-Vidal", "M.")])
    [pair] = ours(same_name_queue())
    page = editor.get(f"/admin/curation/merge/?ids={pair.a.pk},{pair.b.pk}").content.decode()
    assert "M. Soler-Vidal" in page and "M. Vidal" in page
    researcher_merge(
        survivor_id=pair.b.pk, merged_ids=[pair.a.pk], editor=editor_user, reason="One astronomer"
    )
    assert ours(same_name_queue()) == []
    assert Researcher.objects.get(pk=pair.b.pk).paper_count == 2


def test_variant_pair_merge_binds_a_rematch(editor_user):
    """A merge across name blocks holds when both blocks are matched again from scratch:
    the merge's must-links join the blocks' anchors."""
    filed("2302.00061", [("M. Vidal", "Vidal", "M.")])
    filed("2302.00062", [("M. Soler-Vidal", "Soler-Vidal", "M.")])
    [pair] = ours(same_name_queue())
    researcher_merge(
        survivor_id=pair.b.pk, merged_ids=[pair.a.pk], editor=editor_user, reason="One astronomer"
    )
    Authorship.objects.filter(block__in=["m vidal", "m solervidal"]).delete()
    researchers_match_local()
    found = set(
        Authorship.objects.filter(paper__arxiv_id__in=["2302.00061", "2302.00062"]).values_list(
            "researcher_id", flat=True
        )
    )
    assert len(found) == 1
