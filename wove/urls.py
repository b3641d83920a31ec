"""URL configuration: public pages, admin, and each app's routes."""

from django.contrib import admin
from django.urls import include, path

from papers import views as paper_views
from researchers import views as researcher_views

urlpatterns = [
    path("", paper_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("papers/", include("papers.urls")),
    path("researchers", researcher_views.researcher_list),
    path("researchers/", include("researchers.urls")),
    path("institutions/", include("institutions.urls")),
    path("", include("provenance.urls")),
]

handler404 = "papers.views.not_found"
