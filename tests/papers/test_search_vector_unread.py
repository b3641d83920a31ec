"""Paper reads leave out the stored tsvector (papers.querysets.PaperManager, issue 28): no
page shows it, and a list page read 24 of them to show titles."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Paper
from researchers.models import Authorship

pytestmark = pytest.mark.django_db


def test_a_paper_read_leaves_the_search_vector_out_until_asked(sample_papers):
    paper = Paper.objects.get(arxiv_id="0704.0001")
    assert paper.get_deferred_fields() == {"search_vector"}
    with CaptureQueriesContext(connection) as ctx:
        vector = paper.search_vector
    # "Tevatron", the title's ninth word (weight A: the title)
    assert len(ctx.captured_queries) == 1 and "'tevatron':9A" in vector
    assert Paper.objects.filter(search_vector="tevatron").filter(pk=paper.pk).exists()


def test_the_researcher_and_institution_lists_do_not_read_it(client, sample_papers):
    from researchers.services import researchers_match_authors

    researchers_match_authors(sources=[])
    researcher = Authorship.objects.get(slot__paper__arxiv_id="0705.0856", slot__position=3).researcher
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(researcher.get_absolute_url()).status_code == 200
    assert not [q for q in ctx.captured_queries if '"papers_paper"."search_vector"' in q["sql"]]
