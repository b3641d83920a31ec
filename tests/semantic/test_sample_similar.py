"""Similar papers on the real sample: three topics embedded, neighbours checked by hand."""

from __future__ import annotations

from papers.models import Paper
from semantic import services

# Real sample papers on three topics (titles read by hand): long gamma-ray bursts,
# extrasolar planets, graphene nanoribbons and edges.
GRB = ["0704.0659", "0801.4362", "0704.0675", "0801.4325", "0705.0716", "0705.0249", "0704.0287", "0801.4462"]
PLANETS = ["0705.0003", "0705.0004", "0705.0066", "0705.0126", "0705.0356", "0705.0910", "0704.0441"]
GRAPHENE = ["0705.0023", "0705.0532", "0705.0556", "0705.0786", "0704.0411", "0801.4170"]


def test_similar_papers_for_a_long_grb_progenitor_paper(semantic_ready, sample_papers):
    ids = dict(Paper.objects.filter(arxiv_id__in=GRB + PLANETS + GRAPHENE).values_list("arxiv_id", "pk"))
    assert len(ids) == 21
    result = services.embeddings_update(paper_ids=ids.values())
    assert result.embedded == 21
    arxiv_of = {pk: a for a, pk in ids.items()}
    similar = [arxiv_of[pk] for pk in services.similar_papers(paper_id=ids["0704.0659"], limit=7)]
    # Read by hand: the four nearest are long-GRB papers, and no graphene paper is among the
    # seven. (Which GRB papers, and the rest of the seven, are the model's: the PyTorch model
    # put the papers on what explodes as a long GRB first, 0801.4362 nearest, and all seven
    # were GRB papers; the int8 model of issue 29, reading 96 word pieces, mixed two GRB
    # observation papers into the four and one planet paper, 0705.0126, into the seven; at
    # 64 word pieces these assertions hold as well.)
    assert set(similar[:4]) <= set(GRB)
    assert not set(similar) & set(GRAPHENE)
    assert "0704.0659" not in similar


def test_similar_titles_read_math_as_the_paper_list_does(sample_papers):
    # Issue 32: the sidebar showed "From dyadic Λ_α to Λ_α" and "AdS_3, ..." where the
    # paper list and the papers' own pages set MathML.
    from django.template.loader import render_to_string

    papers = list(Paper.objects.filter(arxiv_id__in=["0704.0005", "0705.0735"]).order_by("arxiv_id"))
    html = render_to_string("semantic/includes/similar_papers.html", {"similar_papers": papers})
    # Two Λ_α as MathML (their plain reading in alttext), AdS_3's bare script as <sub>.
    assert html.count('<math display="inline" alttext="Λ_α"><mrow><msub><mi>Λ</mi>') == 2
    assert "AdS<sub>3</sub>, Black Holes" in html and "AdS_3" not in html
