"""The clustering shared by the local matcher and the bench, on hand-made hard cases."""

import math

from researchers.clustering import ClusterSettings, Mention, NamePriors, cluster_mentions, shared_coauthors
from researchers.names import parse_name


def m(id, name, *, aff=(), co=(), cats=("cs.RO",), year=2007, orcid=None, group=None):
    return Mention(
        id=id,
        name=parse_name(name),
        affiliations=tuple(aff),
        coauthors=frozenset(co),
        categories=frozenset(cats),
        year=year,
        orcid=orcid,
        group=group,
    )


def as_sets(clusters):
    return sorted(sorted(c) for c in clusters)


def test_accent_variants_of_one_person_merge():
    mentions = [
        m(1, "Wolfgang Müller", aff=["University of Paderborn"]),
        m(2, "Wolfgang Muller", aff=["Univ. of Paderborn, Germany"]),
        m(3, 'Wolfgang M{\\"u}ller', aff=["University of Paderborn"]),
    ]
    assert as_sets(cluster_mentions(mentions)) == [[1, 2, 3]]


def test_same_name_different_orcids_stay_apart():
    mentions = [
        m(1, "Wei Wang", aff=["Fudan University"], orcid="0000-0002-5250-9277"),
        m(2, "Wei Wang", aff=["Fudan University"], orcid="0000-0002-3361-627X"),
        m(3, "Wei Wang", aff=["Fudan University"], orcid="0000-0002-5250-9277"),
    ]
    assert as_sets(cluster_mentions(mentions)) == [[1, 3], [2]]


def test_initial_joins_one_full_name_without_chaining_two():
    mentions = [
        m(1, "John Smith", co=["p wenger"]),
        m(2, "J. Smith", co=["p wenger"]),
        m(3, "James Smith", co=["p wenger"]),
    ]
    clusters = as_sets(cluster_mentions(mentions))
    # "J." may join John or James, but John and James never share a researcher.
    assert [1, 3] not in clusters and [1, 2, 3] not in clusters
    assert len(clusters) == 2


def test_constraints_and_fixed_groups_win():
    mentions = [m(1, "Damien Chablat"), m(2, "Damien Chablat"), m(3, "D. Chablat", cats=("math.AG",))]
    assert as_sets(cluster_mentions(mentions, cannot_link=[(1, 2)])) != [[1, 2, 3]]
    assert [1, 2] not in as_sets(cluster_mentions(mentions, cannot_link=[(1, 2)]))
    assert [1, 2, 3] in as_sets(cluster_mentions(mentions, must_link=[(2, 3)]))
    fixed = [m(1, "Damien Chablat", group=10), m(2, "Damien Chablat", group=11), m(3, "Damien Chablat")]
    clusters = as_sets(cluster_mentions(fixed))
    assert [1, 2] not in clusters and len(clusters) == 2


def test_two_authors_of_one_paper_are_two_people():
    # arXiv 0704.0533 lists "J. Park" (5th) and "J.-H. Park" (8th): compatible names, one paper.
    mentions = [
        Mention(id=1, name=parse_name("J. Park"), categories=frozenset({"astro-ph"}), paper="0704.0533"),
        Mention(id=2, name=parse_name("J.-H. Park"), categories=frozenset({"astro-ph"}), paper="0704.0533"),
        Mention(id=3, name=parse_name("J.-H. Park"), categories=frozenset({"astro-ph"}), paper="0705.0001"),
    ]
    clusters = as_sets(cluster_mentions(mentions))
    assert [1, 2] not in clusters and [1, 2, 3] not in clusters


def test_two_institution_names_sharing_words_are_two_institutions():
    # "University of Iowa" and "Iowa State University" are each written word for word by
    # authors of other names, so they are institution names: shared words do not link them.
    # "Columbia" is "Columbia University" shortened, and still links.
    others = [
        m(10, "Anna Berg", aff=["University of Iowa"], cats=()),
        m(11, "Carl Dorn", aff=["Iowa State University"], cats=()),
        m(12, "Eva Fink", aff=["Columbia"], cats=()),
        m(13, "Gus Hahn", aff=["Columbia University"], cats=()),
    ]
    two = [
        m(1, "Jian Zhang", aff=["University of Iowa"], cats=("cs.DB",)),
        m(2, "Jian Zhang", aff=["Iowa State University"], cats=("cs.DS",)),
        m(3, "Jian Zhang", aff=["Nanjing University"], cats=("cs.CV",)),
        m(4, "Jian Zhang", aff=["Peking University"], cats=("cs.IT",)),
        m(5, "Jian Zhang", aff=["Tsinghua University"], cats=("cs.AI",)),
        m(6, "Jian Zhang", aff=["Fudan University"], cats=("cs.LG",)),
    ]
    clusters = as_sets(cluster_mentions(two + others))
    assert [1, 2] not in clusters and [1] in clusters and [2] in clusters
    one = [
        m(1, "Jules P. Halpern", aff=["Columbia University"], cats=("astro-ph",)),
        m(2, "J. P. Halpern", aff=["Columbia"], cats=("astro-ph",)),
    ]
    assert [1, 2] in as_sets(cluster_mentions(one + others))


def test_name_written_the_other_way_round_joins_the_usual_order():
    # Two papers write "Wei Wang", one "Wang Wei" (family name first), all from Fudan.
    mentions = [
        m(1, "Wei Wang", aff=["Fudan University"]),
        m(2, "Wei Wang", aff=["Fudan University"]),
        Mention(id=3, name=parse_name("Wang Wei", "Wei", "Wang"), affiliations=("Fudan University",)),
    ]
    assert as_sets(cluster_mentions(mentions)) == [[1, 2, 3]]


def test_a_full_name_in_few_groups_is_one_person_unless_the_fields_differ():
    # Thomas Ludwig (S2AND Qian set): Heidelberg, then TU Munich; nothing else links the papers.
    moved = [
        m(1, "Thomas Ludwig", aff=["Heidelberg University"], cats=()),
        m(2, "Thomas Ludwig", aff=["Heidelberg University"], cats=()),
        m(3, "Thomas Ludwig", aff=["Technische Universität München"], cats=()),
        m(4, "Thomas Ludwig", aff=["Technische Universität München"], cats=()),
    ]
    assert as_sets(cluster_mentions(moved)) == [[1, 2, 3, 4]]
    # The same, but the two groups publish in disjoint fields: two people.
    fields = [
        m(1, "Thomas Ludwig", aff=["Heidelberg University"], cats=("cs.DC",)),
        m(2, "Thomas Ludwig", aff=["Heidelberg University"], cats=("cs.DC",)),
        m(3, "Thomas Ludwig", aff=["Technische Universität München"], cats=("q-bio.GN",)),
        m(4, "Thomas Ludwig", aff=["Technische Universität München"], cats=("q-bio.GN",)),
    ]
    assert as_sets(cluster_mentions(fields)) == [[1, 2], [3, 4]]
    # One paper a group is one venue each: too little to say the fields differ.
    single = [fields[0], fields[2]]
    assert as_sets(cluster_mentions(single)) == [[1, 3]]
    # Initials alone are no name to lean on: "T. Ludwig" in two places stays two groups.
    initials = [m(i, "T. Ludwig", aff=[a], cats=()) for i, a in enumerate(["Heidelberg", "Munich"], 1)]
    assert as_sets(cluster_mentions(initials)) == [[1], [2]]


def test_cannot_link_holds_through_a_chain():
    # 1-2 and 2-3 share co-authors; an editor said 1 and 3 are two people: 3 stays out of {1, 2}.
    mentions = [
        m(1, "Damien Chablat", co=["p wenger", "a moroz"]),
        m(2, "Damien Chablat", co=["p wenger", "a moroz", "s caro"]),
        m(3, "Damien Chablat", co=["s caro", "p wenger"]),
    ]
    assert as_sets(cluster_mentions(mentions)) == [[1, 2, 3]]
    clusters = as_sets(cluster_mentions(mentions, cannot_link=[(3, 1)]))
    assert [1, 2, 3] not in clusters and [1, 3] not in clusters


def test_shared_kind_of_place_words_are_no_evidence():
    # Two initials-only mentions (no name prior applies) with no fields in common: only the
    # affiliations can join them. "University of Science and Technology" names no place;
    # "Purdue" does.
    def pair(left, right):
        mentions = [m(1, "W. Wang", aff=[left], cats=()), m(2, "W. Wang", aff=[right], cats=())]
        return as_sets(cluster_mentions(mentions))

    hkust = "Hong Kong University of Science and Technology"
    assert pair(hkust, "Norwegian University of Science and Technology") == [[1], [2]]
    assert pair("University of New South Wales", "Central South University") == [[1], [2]]
    assert pair("Indiana University – Purdue University Indianapolis", "Purdue University") == [[1, 2]]
    assert pair(hkust, "Dept. of Comput. Sci., Hong Kong Univ. of Sci. & Technol.") == [[1, 2]]


def test_name_priors_count_spelled_names_only():
    mentions = [
        m(1, "Wei Wang"),
        m(2, "Wei Wang"),
        m(3, "Jun Wang"),
        m(4, "Wei Zhang"),
        m(5, "W. Wang"),  # initials: no spelled name, not counted
        m(6, "Damien Chablat"),
    ]
    priors = NamePriors.of(mentions)
    # Distinct spelled names: wei wang, jun wang, wei zhang, damien chablat.
    assert priors.names == 4
    assert priors.family_givens == {"wang": 2, "zhang": 1, "chablat": 1}
    assert priors.given_families == {"wei": 2, "jun": 1, "damien": 1}
    # "Wei Wang": two first names with wang times two families with wei, over 4 names.
    assert priors.commonness(parse_name("Wei Wang")) == 2 * 2 / 4
    assert priors.commonness(parse_name("Damien Chablat")) == 1 * 1 / 4
    assert priors.commonness(parse_name("W. Wang")) == math.inf


def test_common_names_are_held_to_fewer_groups():
    # The same spelled name at two unrelated places: one person who moved by default (two
    # groups), two people once the name counts as common and common names keep one group.
    moved = [
        m(1, "Wei Wang", aff=["Fudan University"], cats=()),
        m(2, "Wei Wang", aff=["Fudan University"], cats=()),
        m(3, "Wei Wang", aff=["Stanford University"], cats=()),
        m(4, "Wei Wang", aff=["Stanford University"], cats=()),
    ]
    assert as_sets(cluster_mentions(moved)) == [[1, 2, 3, 4]]
    common = ClusterSettings(common_name=0.5, few_groups_common=1)
    # One spelled name in the data: commonness 1 * 1 / 1 = 1.0 > 0.5.
    assert as_sets(cluster_mentions(moved, settings=common)) == [[1, 2], [3, 4]]
    # Priors from a larger archive, where "Wei Wang" is one name of many, make it rare again.
    archive = NamePriors.of(moved + [m(10 + i, f"Anna Berg{i}") for i in range(9)])
    assert as_sets(cluster_mentions(moved, settings=common, priors=archive)) == [[1, 2, 3, 4]]


def test_a_mention_without_evidence_joins_a_large_enough_group_only():
    # Three "Wei Wang" groups of two and one mention with no affiliation, co-author or field.
    mentions = [
        m(i, "Wei Wang", aff=[place], cats=())
        for i, place in enumerate(["Fudan", "Fudan", "Stanford", "Stanford", "Oxford", "Oxford"], 1)
    ] + [m(7, "Wei Wang", cats=())]
    spread = ClusterSettings(few_groups=1)
    assert [7] not in as_sets(cluster_mentions(mentions, settings=spread))
    # The largest group holds 2 of 7 mentions (0.29): under a 0.3 share the mention stays alone.
    alone = ClusterSettings(few_groups=1, lone_share=0.3)
    assert [7] in as_sets(cluster_mentions(mentions, settings=alone))


def test_coauthors_are_shared_when_their_given_names_can_be_one_person():
    def with_coauthor(id, given):
        return Mention(
            id=id,
            name=parse_name("Li Chen"),
            coauthors=frozenset({"w wang", "j smith"}),
            coauthor_givens={"w wang": (given,), "j smith": (("john",),)},
        )

    wei, w, wen = with_coauthor(1, ("wei",)), with_coauthor(2, ("w",)), with_coauthor(3, ("wen",))
    # "J. Smith"/"John Smith" and "Wei Wang"/"W. Wang" are one co-author each: an initial
    # meets the full name, as S2AND's name rules allow.
    assert shared_coauthors(wei, w) == 2
    # "Wei Wang" and "Wen Wang" share a block, not a person.
    assert shared_coauthors(wei, wen) == 1
    # Without given names (a caller that has only blocks) every shared block counts.
    blocks_only = Mention(id=4, name=parse_name("Li Chen"), coauthors=frozenset({"w wang", "j smith"}))
    assert shared_coauthors(wei, blocks_only) == 2 and shared_coauthors(wei, wen, at_most=1) == 1
