"""Researcher URLs: ``/researchers/<id>-<slug>``, the id alone (301), the list."""

from django.urls import path, re_path

from . import views

app_name = "researchers"

urlpatterns = [
    path("", views.researcher_list, name="list"),
    re_path(r"^(?P<pk>[0-9]+)-(?P<slug>[a-z0-9-]+)$", views.researcher_detail, name="detail"),
    re_path(r"^(?P<pk>[0-9]+)/?$", views.researcher_lookup, name="lookup"),
]
