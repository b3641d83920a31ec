"""Running a fetch of a paper not archived yet (the work of the ``papers.fetch_paper`` task):
an arXiv API listing of the one identifier (rate-limited across workers through Redis, an
empty answer asked again with backoff), then the upsert."""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.utils import timezone

from .arxiv_api import ArxivApiClient, ArxivApiError
from .models import ArxivFetch
from .upsert import papers_upsert

logger = logging.getLogger(__name__)


def _redis():
    url = settings.ARXIV_FETCH_REDIS_URL
    if url.startswith("redis+socket://"):
        url = "unix://" + url[len("redis+socket://") :]
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def _finish(fetch: ArxivFetch, status: str, message: str) -> ArxivFetch:
    fetch.status = status
    fetch.message = message[:500]
    fetch.finished_at = timezone.now()
    fetch.save(update_fields=["status", "message", "finished_at", "updated_at"])
    return fetch


def arxiv_fetch_give_up(*, arxiv_id: str, message: str) -> ArxivFetch:
    """Mark a fetch failed after its last retry, with a message for the progress page."""
    return _finish(ArxivFetch.objects.get(arxiv_id=arxiv_id), ArxivFetch.Status.FAILED, message)


def arxiv_fetch_note(*, arxiv_id: str, message: str) -> None:
    """Update the progress message of a running fetch (between retries)."""
    ArxivFetch.objects.filter(arxiv_id=arxiv_id, status=ArxivFetch.Status.RUNNING).update(
        message=message[:500], updated_at=timezone.now()
    )


def arxiv_api_client() -> ArxivApiClient:
    """The arXiv API client of a fetch run by a worker: the settings' endpoint, interval and
    timeout, and the Redis slot every worker shares. (Tests replace this function to give
    the task a replaying transport and a fake clock.) Close it after use."""
    return ArxivApiClient(
        settings.ARXIV_API_ENDPOINT,
        min_interval=settings.ARXIV_API_MIN_INTERVAL,
        timeout=settings.ARXIV_API_TIMEOUT,
        user_agent=settings.WOVE_USER_AGENT,
        redis=_redis(),
    )


def arxiv_fetch_run(*, arxiv_id: str, client: ArxivApiClient | None = None) -> ArxivFetch:
    """Run one fetch: list the identifier through the API (rate-limited across workers),
    parse, upsert. ``client`` defaults to :func:`arxiv_api_client` (closed after use).

    An empty but valid answer is asked again with backoff (3, 6, 12 s: BUGS.md API-01, see
    :meth:`~papers.arxiv_api.ArxivApiClient.list_records`), the progress message saying
    so. When the retries run out the fetch is ``incomplete``, never ``missing``: arXiv's
    empty answer does not tell a paper it lacks from one it has; a visitor may ask again
    ten minutes later (:attr:`ArxivFetch.asks_again_at`). ``missing`` is an answer with
    entries, none of them the paper. Safe to run twice: a finished fetch returns at once;
    the upsert is idempotent. Transport errors, 429 and 5xx propagate (``httpx``
    exceptions) so the task retries; an error feed marks the fetch ``failed``.
    """
    fetch = ArxivFetch.objects.get(arxiv_id=arxiv_id)
    if fetch.status in {ArxivFetch.Status.DONE, ArxivFetch.Status.MISSING, ArxivFetch.Status.FAILED}:
        return fetch
    ArxivFetch.objects.filter(pk=fetch.pk).update(
        status=ArxivFetch.Status.RUNNING,
        attempts=fetch.attempts + 1,
        message="Asking arXiv…",
        updated_at=timezone.now(),
    )
    fetch.refresh_from_db()
    own_client = client is None
    if own_client:
        client = arxiv_api_client()

    def note_empty(tries: int, pause: float) -> None:
        arxiv_fetch_note(
            arxiv_id=arxiv_id, message=f"arXiv answered with an empty list; asking again in {pause:g} s…"
        )

    try:  # no transaction is open here (STYLE rule 3)
        listing = client.list_records(id_list=[arxiv_id], on_empty=note_empty)
    except ArxivApiError as exc:
        logger.warning("arXiv API refused %s: %s", arxiv_id, exc)
        return _finish(fetch, ArxivFetch.Status.FAILED, f"arXiv refused the request: {exc}")
    finally:
        if own_client:
            client._http.close()
    records = [r for r in listing.records if r.arxiv_id == arxiv_id]
    if not records:
        if listing.complete:
            return _finish(fetch, ArxivFetch.Status.MISSING, f"arXiv has no paper {arxiv_id}.")
        message = (
            f"arXiv answered {listing.requests} times, with growing pauses, with an empty list. "
            f"It may have no paper {arxiv_id}, or its API may be sending empty answers, "
            "as it does at times."
        )
        return _finish(fetch, ArxivFetch.Status.INCOMPLETE, message)
    papers_upsert(records=records[:1])
    return _finish(fetch, ArxivFetch.Status.DONE, "Fetched from arXiv.")
