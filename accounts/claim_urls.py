"""Claiming a researcher profile (issue 31), under ``/accounts/claims/``."""

from django.urls import path

from . import claim_views

app_name = "claims"

urlpatterns = [
    path("", claim_views.claims_home, name="home"),
    path("researcher/<int:pk>", claim_views.claim_researcher, name="claim"),
    path("<int:pk>/papers", claim_views.owner_papers, name="papers"),
    path("<int:pk>/names", claim_views.owner_names, name="names"),
    path("<int:pk>/authorships/<int:authorship>/<str:decision>", claim_views.owner_decide, name="decide"),
]
