"""HTTP caching: the per-kind Cache-Control table and the middleware that applies it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers


@dataclass(frozen=True)
class CachePolicy:
    """How long a shared or private cache may keep an anonymous answer, in seconds.

    ``max_age`` is for browsers, ``s_maxage`` for shared caches (a CDN, Varnish), and
    ``stale_while_revalidate`` how long past that a cache may serve the old copy while it
    revalidates (RFC 9111 §5.2.2.9, RFC 5861 §3). Revalidation is cheap: every answer carries
    an ``ETag`` (and feeds a ``Last-Modified``) and a matching request gets 304.
    """

    max_age: int
    s_maxage: int
    stale_while_revalidate: int

    def header(self) -> str:
        """The ``Cache-Control`` value, e.g.
        ``public, max-age=300, s-maxage=3600, stale-while-revalidate=86400``."""
        return (
            f"public, max-age={self.max_age}, s-maxage={self.s_maxage}, "
            f"stale-while-revalidate={self.stale_while_revalidate}"
        )


# The one table of choices (README "Caching" shows it). A paper page changes when arXiv
# sends a new version or a curator links an author: rarely, so long. Search answers move with
# every harvest: short. Feeds are polled by readers every few minutes: medium.
CACHE_POLICIES: dict[str, CachePolicy] = {
    "paper": CachePolicy(max_age=300, s_maxage=3600, stale_while_revalidate=86400),
    "researcher": CachePolicy(max_age=120, s_maxage=900, stale_while_revalidate=3600),
    "institution": CachePolicy(max_age=120, s_maxage=900, stale_while_revalidate=3600),
    "collaboration": CachePolicy(max_age=120, s_maxage=900, stale_while_revalidate=3600),
    "list": CachePolicy(max_age=60, s_maxage=300, stale_while_revalidate=600),
    "home": CachePolicy(max_age=60, s_maxage=120, stale_while_revalidate=600),
    "search": CachePolicy(max_age=30, s_maxage=60, stale_while_revalidate=120),
    "feed": CachePolicy(max_age=300, s_maxage=900, stale_while_revalidate=3600),
    "api": CachePolicy(max_age=60, s_maxage=300, stale_while_revalidate=600),
    # robots.txt, llms.txt: change only with a deploy.
    "file": CachePolicy(max_age=3600, s_maxage=86400, stale_while_revalidate=86400),
    "icon": CachePolicy(max_age=86400, s_maxage=604800, stale_while_revalidate=604800),
    # Any other anonymous page (CMS pages, the pith page's choices, a new view nobody listed).
    "page": CachePolicy(max_age=60, s_maxage=300, stale_while_revalidate=600),
}


def policies_from_text(text: str) -> dict[str, CachePolicy]:
    """Parse ``HTTP_CACHE_POLICIES``: ``"paper=300/3600/86400,search=30/60/120"`` gives those
    kinds ``max_age/s_maxage/stale_while_revalidate`` (seconds) in place of the table's, for
    an operator who tunes a CDN. Empty text: ``{}``. Raises ``ImproperlyConfigured`` for a
    kind the table does not have or a value that is not three whole numbers of seconds."""
    from django.core.exceptions import ImproperlyConfigured

    policies = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, _, values = (part.strip() for part in item.partition("="))
        numbers = [n.strip() for n in values.split("/")]
        if kind not in CACHE_POLICIES or len(numbers) != 3 or not all(n.isdigit() for n in numbers):
            raise ImproperlyConfigured(
                f"HTTP_CACHE_POLICIES: {item!r} is not <kind>=<max-age>/<s-maxage>/<stale-while-revalidate> "
                f"with a kind among {', '.join(CACHE_POLICIES)}"
            )
        policies[kind] = CachePolicy(*(int(n) for n in numbers))
    return policies


CACHE_POLICIES.update(policies_from_text(settings.HTTP_CACHE_POLICIES))

# View (module.function, or module.Class for a Feed instance) -> kind in CACHE_POLICIES.
# A view not named here is a "page". A view that sets its own Cache-Control keeps it.
VIEW_KINDS: dict[str, str] = {
    "pages.paper_views.paper_detail": "paper",
    "pages.paper_views.paper_authors": "paper",
    "pages.paper_views.paper_export": "paper",
    "provenance.views.pith_page": "paper",
    "researchers.views.researcher_detail": "researcher",
    "pages.paper_views.researcher_export": "researcher",
    "institutions.views.institution_detail": "institution",
    "pages.collaboration_views.collaboration_detail": "collaboration",
    "pages.paper_views.paper_list": "list",
    "researchers.views.researcher_list": "list",
    "institutions.views.institution_list": "list",
    "pages.collaboration_views.collaboration_index": "list",
    "pages.paper_views.home": "home",
    "pages.views.search": "search",
    "pages.views.suggest": "search",
    "pages.views.search_counts": "search",
    "pages.feeds.LatestPapersFeed": "feed",
    "pages.feeds.CategoryFeed": "feed",
    "pages.feeds.ResearcherFeed": "feed",
    "pages.feeds.SearchFeed": "feed",
    "pages.views.sitemap_index": "feed",
    "pages.views.sitemap_section": "feed",
    "pages.views.robots_txt": "file",
    "pages.views.llms_txt": "file",
    "pages.views.root_icon": "icon",
}

# What signed-in, cookie-setting and CSRF-bearing answers get: only the browser may keep
# them, and it asks again each time (a 304 when the ETag still holds).
PRIVATE = "private, no-cache"


def view_path(func: Callable | None) -> str:
    """``"module.name"`` of a resolved view (a Feed instance by its class), as in :data:`VIEW_KINDS`."""
    if func is None:
        return ""
    if not hasattr(func, "__name__"):  # a callable instance, e.g. a syndication Feed
        func = type(func)
    return f"{func.__module__}.{func.__name__}"


def kind_of(request: HttpRequest) -> str:
    """The :data:`CACHE_POLICIES` kind of the view that answered ``request`` ("page" by default)."""
    match = getattr(request, "resolver_match", None)
    return VIEW_KINDS.get(view_path(match.func if match else None), "page")


def is_per_user(request: HttpRequest, response: HttpResponse) -> bool:
    """Whether ``response`` may differ from what another visitor gets: the user is signed
    in, the response sets a cookie (session, CSRF, messages), or its body holds a CSRF token
    (``get_token`` flags ``CSRF_COOKIE_NEEDS_UPDATE`` whenever a form asked for one)."""
    user = getattr(request, "user", None)
    return bool(
        (user is not None and user.is_authenticated)
        or response.cookies
        or request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )


class CachePolicyMiddleware:
    """Give every GET/HEAD answer a ``Cache-Control`` a CDN can use, from :data:`CACHE_POLICIES`.

    * 200 and 304 to an anonymous visitor with no cookie set and no CSRF token in the body:
      the kind's ``public, max-age, s-maxage, stale-while-revalidate``, and ``Vary: Cookie``
      (a shared cache keeps the cookie-less copy apart from a signed-in one).
    * The same to a signed-in user, or setting a cookie, or holding a CSRF token:
      ``private, no-cache``, with ``Vary: Cookie``.
    * Errors (4xx, 5xx) without a ``Cache-Control`` of their own: ``no-store``.
    * Redirects and answers whose view set ``Cache-Control`` itself (the API, the private
      feed, the fetch progress JSON) are left as they are, except that a per-user one never
      stays ``public``.

    It sits outside the session, CSRF and auth middleware (it sees the cookies they set)
    and inside Django's ``ConditionalGetMiddleware``, which then adds the body's ``ETag``
    and answers 304, copying these headers onto it (RFC 9110 §15.4.5).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return response
        status = response.status_code
        own = response.get("Cache-Control")
        if status >= 400:
            if not own:
                response["Cache-Control"] = "no-store"
            return response
        if status not in (200, 304):
            return response
        per_user = is_per_user(request, response)
        if own:
            if per_user and "public" in own:
                response["Cache-Control"] = PRIVATE
            return response
        response["Cache-Control"] = PRIVATE if per_user else CACHE_POLICIES[kind_of(request)].header()
        patch_vary_headers(response, ["Cookie"])
        return response
