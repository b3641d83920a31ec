"""Paper pages: the canonical page, redirects from every other form, 404 and 410."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {})


def paper_list(request: HttpRequest) -> HttpResponse:
    return HttpResponse("")


def paper_detail(request: HttpRequest, arxiv_id: str, slug: str) -> HttpResponse:
    return HttpResponse("")


def paper_lookup(request: HttpRequest, raw: str) -> HttpResponse:
    return HttpResponse("")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return HttpResponse("", status=404)
