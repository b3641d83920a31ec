"""Curation screens, mounted under ``/admin/curation/`` (before the admin's own URLs)."""

from django.urls import path

from . import claim_views, proposal_views, views

app_name = "curation"

urlpatterns = [
    path("merge/", views.merge_confirm, name="merge"),
    path("split/<int:pk>/", views.split_confirm, name="split"),
    path("undo/<int:pk>/", views.undo_confirm, name="undo"),
    path("queue/", views.same_name_queue_view, name="queue"),
    path("distinct/", views.pair_distinct, name="distinct"),
    path("unconfirmed/", views.unconfirmed_queue_view, name="unconfirmed"),
    path("unconfirmed/<int:pk>/confirm/", views.authorship_confirm_view, name="confirm"),
    path("unconfirmed/<int:pk>/reassign/", views.authorship_reassign_view, name="reassign"),
    path("claims/", claim_views.claims_queue_view, name="claims"),
    path("claims/<int:pk>/decide", claim_views.claim_decide_view, name="claim_decide"),
    path("proposals/", proposal_views.proposals_queue_view, name="proposals"),
    path("proposals/<int:pk>/", proposal_views.proposal_review_view, name="proposal"),
    path("proposals/<int:pk>/decide", proposal_views.proposal_decide_view, name="proposal_decide"),
]
