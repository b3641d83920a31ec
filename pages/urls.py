"""Site-wide URLs: search, autocomplete, feeds, sitemaps, collaborations, robots.txt, llms.txt, root icons."""

from django.urls import path, re_path

from . import collaboration_views, feeds, paper_views, views

app_name = "pages"

urlpatterns = [
    path("search", views.search, name="search"),
    path("search/suggest", views.suggest, name="suggest"),
    path("search/counts", views.search_counts, name="search_counts"),
    path("search/feed.xml", feeds.SearchFeed(), name="feed_search"),
    path("rss/latest.xml", feeds.LatestPapersFeed(), name="feed_latest"),
    path("rss/category/<str:code>.xml", feeds.CategoryFeed(), name="feed_category"),
    path("rss/researchers/<int:pk>.xml", feeds.ResearcherFeed(), name="feed_researcher"),
    path("sitemap.xml", views.sitemap_index, name="sitemap"),
    path("sitemap-<section>.xml", views.sitemap_section, name="sitemap_section"),
    path("papers/fetch", views.fetch_request, name="fetch"),
    path("papers/fetch/<path:arxiv_id>", views.fetch_status, name="fetch_status"),
    path("papers/fetch-status/<path:arxiv_id>", views.fetch_status_json, name="fetch_status_json"),
    # A researcher's whole list as citations (the researcher page links here).
    re_path(
        r"^researchers/(?P<pk>[0-9]+)/export\.(?P<fmt>bib|ris)$",
        paper_views.researcher_export,
        name="researcher_export",
    ),
    re_path(
        r"^collaborations/(?P<pk>[0-9]+)-(?P<slug>[a-z0-9-]+)$",
        collaboration_views.collaboration_detail,
        name="collaboration",
    ),
    re_path(r"^collaborations/(?P<pk>[0-9]+)/?$", collaboration_views.collaboration_lookup),
    re_path(r"^collaborations/?$", collaboration_views.collaboration_index, name="collaborations"),
    path("robots.txt", views.robots_txt, name="robots"),
    path("llms.txt", views.llms_txt, name="llms"),
    re_path(
        r"^(?P<name>favicon\.ico|apple-touch-icon\.png|apple-touch-icon-precomposed\.png)$",
        views.root_icon,
        name="root_icon",
    ),
]
