"""Site-wide URLs: search, autocomplete, feeds, sitemaps, robots.txt, llms.txt."""

from django.contrib.sitemaps import views as sitemap_views
from django.urls import path

from . import feeds, views
from .sitemaps import SITEMAPS

app_name = "pages"

urlpatterns = [
    path("search", views.search, name="search"),
    path("search/suggest", views.suggest, name="suggest"),
    path("rss/latest.xml", feeds.LatestPapersFeed(), name="feed_latest"),
    path("rss/category/<str:code>.xml", feeds.CategoryFeed(), name="feed_category"),
    path("rss/researchers/<int:pk>.xml", feeds.ResearcherFeed(), name="feed_researcher"),
    path(
        "sitemap.xml",
        sitemap_views.index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "pages:sitemap_section"},
        name="sitemap",
    ),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="sitemap_section",
    ),
    path("robots.txt", views.robots_txt, name="robots"),
    path("llms.txt", views.llms_txt, name="llms"),
]
