"""Account URLs under ``/accounts/`` (allauth's sign-in and e-mail pages live beside them)."""

from django.urls import path, re_path

from . import views

app_name = "accounts"

urlpatterns = [
    path("following", views.following, name="following"),
    path("settings", views.account_settings, name="settings"),
    path("feed-token", views.feed_token, name="feed_token"),
    re_path(r"^feed/(?P<token>[A-Za-z0-9_-]{1,64})\.xml$", views.private_feed, name="feed"),
    path("saved-searches", views.saved_search_create, name="saved_search_create"),
    path("saved-searches/<int:pk>", views.saved_search_edit, name="saved_search"),
    path("saved-searches/<int:pk>/delete", views.saved_search_delete, name="saved_search_delete"),
    path("digests/<int:pk>", views.digest_page, name="digest"),
    path("export.json", views.export, name="export"),
    path("delete", views.delete, name="delete"),
    re_path(r"^follow/(?P<kind>[a-z]+)/(?P<key>[A-Za-z0-9._-]+)$", views.follow, name="follow"),
    re_path(r"^unfollow/(?P<kind>[a-z]+)/(?P<key>[A-Za-z0-9._-]+)$", views.unfollow, name="unfollow"),
]
