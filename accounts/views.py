"""Account pages: follow/unfollow (POST, no JavaScript needed), Following, settings, the
private RSS feed, data export and account deletion. Sign-in and e-mail flows are allauth's."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from papers.feeds import PaperFeed
from papers.models import Paper
from wove.paginator import SitePaginator

from . import saved_searches, services
from .forms import DeleteAccountForm, DigestSettingsForm
from .models import Digest, FollowKind
from .selectors import (
    follow_reasons,
    follow_target,
    follows_for_user,
    papers_for_user,
    saved_search_new,
    saved_searches_for_user,
)

FOLLOWING_PAGE_SIZE = 25


def _target_url(target) -> str:
    if hasattr(target, "get_absolute_url"):
        return target.get_absolute_url()
    return f"/papers/?category={target.pk}"


def _target_name(target) -> str:
    return getattr(target, "display_name", None) or getattr(target, "name", None) or str(target.pk)


def _next_url(request: HttpRequest, fallback: str) -> str:
    """Where a form posted from a page goes back to: its ``next`` field (the Follow button
    sends the page's own path), else the ``Referer``, when either stays on this site
    (``url_has_allowed_host_and_scheme``); else ``fallback``. base.html shows the message
    the action left there."""
    for candidate in (request.POST.get("next"), request.GET.get("next"), request.headers.get("Referer")):
        if candidate and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return candidate
    return fallback


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _resolve(kind: str, key: str):
    if kind not in FollowKind.values:
        raise Http404("nothing to follow here")
    target = follow_target(kind, key)
    if target is None:
        raise Http404(f"no such {kind}")
    return target


@require_POST
def follow(request: HttpRequest, kind: str, key: str) -> HttpResponse:
    """``POST /accounts/follow/<kind>/<key>``: follow, then 303 back to the page it came from
    (``next`` or the ``Referer``, same site only), else the followed page, which shows "You
    now follow …" once. Anonymous visitors are sent to sign in first."""
    target = _resolve(kind, key)
    back = _next_url(request, _target_url(target))
    if not request.user.is_authenticated:
        return _see_other(f"{settings.LOGIN_URL}?{urlencode({'next': back})}")
    _follow, created = services.follow_create(user_id=request.user.pk, target=target)
    if created:
        messages.success(request, f"You now follow {_target_name(target)}.")
    return _see_other(back)


@require_POST
@login_required
def unfollow(request: HttpRequest, kind: str, key: str) -> HttpResponse:
    """``POST /accounts/unfollow/<kind>/<key>``: stop following, then 303 back to ``next``."""
    target = _resolve(kind, key)
    if services.follow_delete(user_id=request.user.pk, target=target):
        messages.success(request, f"You no longer follow {_target_name(target)}.")
    return _see_other(_next_url(request, _target_url(target)))


@require_safe
@login_required
def following(request: HttpRequest) -> HttpResponse:
    """``/accounts/following``: what the signed-in user follows, their saved searches and the
    newest papers from both."""
    groups = follows_for_user(request.user.pk)
    page = SitePaginator(papers_for_user(request.user.pk), FOLLOWING_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    reasons = follow_reasons(request.user.pk, [paper.pk for paper in page])
    row = services.account_settings_get(user_id=request.user.pk)
    response = render(
        request,
        "accounts/following.html",
        {
            "groups": groups,
            "page": page,
            "items": [(paper, reasons.get(paper.pk, [])) for paper in page],
            "account": row,
            "saved_searches": saved_searches_for_user(request.user.pk),
        },
    )
    response["Cache-Control"] = "private, no-store"
    return response


# -- Saved searches (issue 31) -------------------------------------------------------------

#: A saved search's page previews this many of the papers its next digest holds.
PREVIEW_SIZE = 50


@require_POST
@login_required
def saved_search_create(request: HttpRequest) -> HttpResponse:
    """``POST /accounts/saved-searches``: save the search the form names (the search page's
    "Save this search": a name and its terms), then show it with its preview. Bad terms send
    the user back with the reason."""
    try:
        saved = saved_searches.saved_search_save(user_id=request.user.pk, data=request.POST)
    except saved_searches.SavedSearchInvalid as exc:
        messages.error(request, f"The search was not saved: {exc}")
        return _see_other(_next_url(request, "/accounts/following"))
    messages.success(request, f"Saved “{saved.name}”. New papers it matches come in your digest.")
    return _see_other(f"/accounts/saved-searches/{saved.pk}")


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def saved_search_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/saved-searches/<id>``: edit a saved search's name and terms, and preview
    exactly the papers its next digest holds (:func:`accounts.selectors.saved_search_new`).
    404 for another user's search."""
    saved = saved_searches.saved_search_get(user_id=request.user.pk, pk=pk)
    if saved is None:
        raise Http404("no such saved search")
    if request.method == "POST":
        try:
            saved_searches.saved_search_save(user_id=request.user.pk, data=request.POST, saved=saved)
        except saved_searches.SavedSearchInvalid:
            pass  # the bound form below shows the errors
        else:
            messages.success(request, f"Saved “{saved.name}”: the next digest follows the new terms.")
            return _see_other(f"/accounts/saved-searches/{saved.pk}")
        # Validation copied the typed terms onto the instance it was given: the heading, links
        # and preview read a fresh copy of what is stored, the form another one holding what
        # was typed.
        saved = saved_searches.saved_search_get(user_id=request.user.pk, pk=pk)
        typed = saved_searches.saved_search_get(user_id=request.user.pk, pk=pk)
        form = saved_searches.saved_search_form(user_id=request.user.pk, data=request.POST, saved=typed)
        form.is_valid()
    else:
        form = saved_searches.saved_search_form(user_id=request.user.pk, saved=saved)
    new = saved_search_new(saved)
    preview = list(new[:PREVIEW_SIZE])
    count = len(preview) if len(preview) < PREVIEW_SIZE else new.count()
    response = render(
        request,
        "accounts/saved_search.html",
        {
            "saved": saved,
            "form": form,
            "preview": preview,
            "preview_count": count,
            "account": services.account_settings_get(user_id=request.user.pk),
        },
        status=422 if form.errors else 200,
    )
    response["Cache-Control"] = "private, no-store"
    return response


@require_POST
@login_required
def saved_search_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """``POST /accounts/saved-searches/<id>/delete``: delete it; back to Following."""
    saved = saved_searches.saved_search_get(user_id=request.user.pk, pk=pk)
    if saved is None or not saved_searches.saved_search_delete(user_id=request.user.pk, pk=pk):
        raise Http404("no such saved search")
    messages.success(request, f"Deleted the saved search “{saved.name}”.")
    return _see_other("/accounts/following")


@require_safe
@login_required
def digest_page(request: HttpRequest, pk: int) -> HttpResponse:
    """``/accounts/digests/<id>``: every paper of one of the user's digests, grouped as the
    e-mail groups them, none left out (the e-mail lists 50 a group and links here for the
    rest). 404 for another user's digest."""
    digest = Digest.objects.filter(pk=pk, user_id=request.user.pk).first()
    if digest is None:
        raise Http404("no such digest")
    content = services.digest_content(digest, listed=None)
    response = render(request, "accounts/digest.html", {"content": content, "digest": digest})
    response["Cache-Control"] = "private, no-store"
    return response


@require_http_methods(["GET", "POST"])
@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    """``/accounts/settings``: digest frequency, the private feed, export, deletion, links to
    the e-mail and password pages."""
    row = services.account_settings_get(user_id=request.user.pk)
    form = DigestSettingsForm(request.POST or None, initial={"digest_frequency": row.digest_frequency})
    if request.method == "POST" and form.is_valid():
        services.account_settings_update(
            user_id=request.user.pk, digest_frequency=form.cleaned_data["digest_frequency"]
        )
        messages.success(request, "Digest settings saved.")
        return _see_other("/accounts/settings")
    feed_url = request.build_absolute_uri(f"/accounts/feed/{row.feed_token}.xml") if row.feed_token else ""
    response = render(request, "accounts/settings.html", {"form": form, "account": row, "feed_url": feed_url})
    response["Cache-Control"] = "private, no-store"
    return response


@require_POST
@login_required
def feed_token(request: HttpRequest) -> HttpResponse:
    """``POST /accounts/feed-token`` with ``action`` ``regenerate`` (new URL, old one dead) or
    ``revoke`` (no feed)."""
    action = request.POST.get("action")
    if action == "regenerate":
        had_feed = bool(services.account_settings_get(user_id=request.user.pk).feed_token)
        services.feed_token_regenerate(user_id=request.user.pk)
        messages.success(
            request,
            "Your private feed has a new address; the old one no longer works."
            if had_feed
            else "Your private feed is ready.",
        )
    elif action == "revoke":
        services.feed_token_revoke(user_id=request.user.pk)
        messages.success(request, "Your private feed is turned off; its address no longer works.")
    else:
        return HttpResponse("unknown action", status=400, content_type="text/plain")
    return _see_other("/accounts/settings")


class PrivateFeed(PaperFeed):
    """RSS 2.0 feed of the newest papers from what one user follows, opened by its token;
    items rendered as every paper feed renders them (:class:`papers.feeds.PaperFeed`)."""

    description = "Newest papers by the researchers, institutions and categories you follow on wovepaper."

    def get_object(self, request: HttpRequest, token: str) -> int:
        user_id = services.feed_user_for_token(token)
        if user_id is None:
            raise Http404("no such feed")
        return user_id

    def title(self, obj: int) -> str:
        return "wovepaper: papers from what you follow"

    def link(self, obj: int) -> str:
        return "/accounts/following"

    def items(self, obj: int) -> list[Paper]:
        return services.feed_papers(user_id=obj)


_private_feed = PrivateFeed()


def private_feed(request: HttpRequest, token: str) -> HttpResponse:
    """``/accounts/feed/<token>.xml``: the private RSS feed; 404 for an unknown or revoked token."""
    response = _private_feed(request, token=token)
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_safe
@login_required
def export(request: HttpRequest) -> HttpResponse:
    """``/accounts/export.json``: everything stored about the signed-in user, as a download."""
    data = services.account_export(user_id=request.user.pk)
    response = HttpResponse(
        json.dumps(data, indent=2, ensure_ascii=False), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = 'attachment; filename="wovepaper-account.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@require_http_methods(["GET", "POST"])
@login_required
def delete(request: HttpRequest) -> HttpResponse:
    """``/accounts/delete``: confirm with the password, then delete the account and sign out."""
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user_id = request.user.pk
        logout(request)
        services.account_delete(user_id=user_id)
        messages.success(request, "Your account and everything stored with it have been deleted.")
        return _see_other("/")
    return render(request, "accounts/delete.html", {"form": form})
