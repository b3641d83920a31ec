"""Institution URLs: ``/institutions/<id>-<slug>`` and every form that redirects to it."""

from django.urls import path, re_path

from . import views

app_name = "institutions"

urlpatterns = [
    path("", views.institution_list, name="list"),
    re_path(r"^(?P<pk>[1-9][0-9]*)-(?P<slug>[a-z0-9-]+)$", views.institution_detail, name="detail"),
    # Internal ids, ROR IDs (which may hold "https://ror.org/") and names: the view resolves.
    re_path(r"^(?P<key>.+)$", views.institution_lookup, name="lookup"),
]
