"""Paper URLs: ``/papers/<arxiv-id>-<slug>`` and every form that redirects to it."""

from django.urls import path, re_path

from . import paper_views

app_name = "papers"

urlpatterns = [
    path("", paper_views.paper_list, name="list"),
    # Canonical form; the id may hold a slash (old style: hep-th/9504118).
    re_path(
        r"^(?P<arxiv_id>(?:[a-z]+(?:-[a-z]+)?/\d{7})|(?:\d{4}\.\d{4,5}))-(?P<slug>[a-z0-9-]+)$",
        paper_views.paper_detail,
        name="detail",
    ),
    # Every author of a paper, paged (a 3,000-author paper's page shows the first 50).
    re_path(
        r"^(?P<arxiv_id>(?:[a-z]+(?:-[a-z]+)?/\d{7})|(?:\d{4}\.\d{4,5}))-(?P<slug>[a-z0-9-]+)/authors$",
        paper_views.paper_authors,
        name="authors",
    ),
    # The author list under any other identifier form (the id alone, arXiv:, versioned, a
    # wrong slug): 301 to the canonical one, as the paper page and its exports do.
    re_path(r"^(?P<raw>.+)/authors$", paper_views.paper_authors_lookup, name="authors_lookup"),
    # Citation exports, any identifier form: /papers/2401.10241/export.bib, .../export.ris.
    re_path(r"^(?P<raw>.+)/export\.(?P<fmt>bib|ris)$", paper_views.paper_export, name="export"),
    # Everything else under /papers/ is resolved (redirect, 404, 410) by the view.
    re_path(r"^(?P<raw>.+)$", paper_views.paper_lookup, name="lookup"),
]
