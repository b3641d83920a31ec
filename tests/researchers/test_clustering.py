"""The clustering shared by the local matcher and the bench, on hand-made hard cases."""

from researchers.clustering import Mention, affiliation_tokens, cluster_mentions
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


def test_affiliation_tokens_expand_abbreviations():
    assert affiliation_tokens(["Nat. Univ. of Singapore, Singapore 117576"]) == {
        "national",
        "university",
        "singapore",
    }


def test_two_authors_of_one_paper_are_two_people():
    # arXiv 0704.0533 lists "J. Park" (5th) and "J.-H. Park" (8th): compatible names, one paper.
    mentions = [
        Mention(id=1, name=parse_name("J. Park"), categories=frozenset({"astro-ph"}), paper="0704.0533"),
        Mention(id=2, name=parse_name("J.-H. Park"), categories=frozenset({"astro-ph"}), paper="0704.0533"),
        Mention(id=3, name=parse_name("J.-H. Park"), categories=frozenset({"astro-ph"}), paper="0705.0001"),
    ]
    clusters = as_sets(cluster_mentions(mentions))
    assert [1, 2] not in clusters and [1, 2, 3] not in clusters
