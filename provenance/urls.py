"""Provenance URLs: bundles, states, keys and the human page of each pith number."""

from django.urls import path

from . import views

app_name = "provenance"

urlpatterns = [
    path(".well-known/pith/keys.json", views.keys_json, name="keys"),
    path(".well-known/pith/<str:number>/bundle.json", views.bundle_json, name="well_known_bundle"),
    path("pith/<str:number>/bundle.json", views.bundle_json, name="bundle"),
    path("pith/<str:number>/state.json", views.state_json, name="state"),
    # The page of a number, a short form (pith:L5Y4YBEW) or an arXiv id (old style has a slash).
    path("pith/<path:ref>", views.pith_page, name="page"),
]
