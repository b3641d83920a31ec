"""URL configuration: public pages, admin, and each app's routes."""

from django.contrib import admin
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.admin import urls as wagtailadmin_urls
from wagtail.documents import urls as wagtaildocs_urls

from institutions import views as institution_views
from pages import paper_views
from researchers import views as researcher_views

urlpatterns = [
    path("", include("pages.urls")),
    path("", paper_views.home, name="home"),
    path("admin/curation/", include("curation.urls")),  # before the admin and its catch-all
    path("admin/", admin.site.urls),
    # The lists answer with and without the slash (APPEND_SLASH is off; links use both).
    path("papers", paper_views.paper_list),
    path("papers/", include("pages.paper_urls")),
    path("researchers", researcher_views.researcher_list),
    path("researchers/", include("researchers.urls")),
    path("institutions", institution_views.institution_list),
    path("institutions/", include("institutions.urls")),
    path("", include("wove.api")),  # /api/v1/, /api/docs, /openapi.json
    path("", include("provenance.urls")),
    path("accounts/claims/", include("accounts.claim_urls")),  # issue 31: claiming a researcher
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("cms/", include(wagtailadmin_urls)),
    path("documents/", include(wagtaildocs_urls)),
    # Wagtail serves /about, /contact, /privacy, /developers; keep this catch-all LAST.
    path("", include(wagtail_urls)),
]

handler404 = "papers.views.not_found"
handler500 = "wove.views.server_error"
