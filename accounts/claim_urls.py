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
    path("<int:pk>/take", claim_views.owner_take_list, name="take"),
    path("<int:pk>/take/link/<int:authorship>", claim_views.owner_take_link, name="take_link"),
    path("<int:pk>/take/review/<int:slot>", claim_views.owner_take_review, name="take_review"),
    path("<int:pk>/merge", claim_views.owner_merge, name="merge"),
    path("<int:pk>/merge/<int:other>", claim_views.owner_propose, name="propose"),
    path("proposals/<int:pk>/withdraw", claim_views.owner_withdraw, name="withdraw"),
]
