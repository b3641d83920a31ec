"""Fetching a paper that is not archived yet from the arXiv API: validate, deduplicate,
queue, run (the Celery task calls :func:`arxiv_fetch_run`)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from papers.arxiv_api import ArxivApiClient, ArxivApiError, parse_feed
from papers.identifiers import ArxivId, InvalidArxivId, parse_arxiv_id
from papers.models import ArxivFetch, Paper
from papers.services import papers_upsert

logger = logging.getLogger(__name__)

# A queued or running fetch older than this is presumed lost (worker died) and re-sent.
STALE_AFTER = timedelta(minutes=10)
# arXiv said "no such paper" or refused: do not ask again for a day.
RETRY_FINISHED_AFTER = timedelta(days=1)

# The archives that had old-style identifiers (1991 to March 2007): a closed, historical set.
OLD_STYLE_ARCHIVES = frozenset(
    [
        "acc-phys",
        "adap-org",
        "alg-geom",
        "ao-sci",
        "astro-ph",
        "atom-ph",
        "bayes-an",
        "chao-dyn",
        "chem-ph",
        "cmp-lg",
        "comp-gas",
        "cond-mat",
        "cs",
        "dg-ga",
        "funct-an",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math",
        "math-ph",
        "mtrl-th",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "patt-sol",
        "physics",
        "plasm-ph",
        "q-alg",
        "q-bio",
        "quant-ph",
        "solv-int",
        "supr-con",
    ]
)


class FetchRefused(ValueError):
    """The identifier cannot name an existing arXiv paper; no request is made."""


def check_fetchable(raw: str, *, now=None) -> ArxivId:
    """Validate ``raw`` as the identifier of a paper arXiv could have, without any network
    call: a valid form (see :func:`papers.identifiers.parse_arxiv_id`), a submission month
    not in the future, a sequence number above zero, and for old-style ids an archive
    arXiv had. Returns the parsed id; raises :class:`FetchRefused` with the reason."""
    try:
        parsed = parse_arxiv_id(raw)
    except InvalidArxivId as exc:
        raise FetchRefused(str(exc)) from exc
    now = now or timezone.now()
    number = parsed.id.split("/")[-1]
    if parsed.is_old_style:
        archive = parsed.id.split("/")[0]
        if int(number[4:]) == 0:
            raise FetchRefused(f"{parsed.id}: old-style numbers start at 001")
        if archive not in OLD_STYLE_ARCHIVES:
            raise FetchRefused(f"{parsed.id}: arXiv has no archive {archive!r}")
    else:
        yymm, seq = number.split(".")
        if int(seq) == 0:
            raise FetchRefused(f"{parsed.id}: sequence numbers start at 1")
        year, month = 2000 + int(yymm[:2]), int(yymm[2:])
        if (year, month) > (now.year, now.month):
            raise FetchRefused(f"{parsed.id}: {year}-{month:02d} is in the future")
    return parsed


class QueueUnavailable(RuntimeError):
    """The task broker refused or did not answer; the fetch was not queued (its row says so
    and the next request queues it again)."""


QUEUE_DOWN_MESSAGE = "The task queue did not answer, so nothing was sent to arXiv. Try again in a minute."


def _queue(fetch: ArxivFetch) -> None:
    """Send the fetch task once the row is committed (the worker reads it)."""
    arxiv_id = fetch.arxiv_id
    transaction.on_commit(lambda: _send(arxiv_id))


def _send(arxiv_id: str) -> None:
    """Send the fetch task. On a broker failure mark the row failed without ``finished_at``
    (so the next request re-queues it at once) and raise :class:`QueueUnavailable`."""
    from kombu.exceptions import OperationalError

    from .tasks import fetch_paper

    try:
        fetch_paper.delay(arxiv_id)
    except OperationalError as exc:
        logger.warning("arXiv fetch of %s not queued: broker unavailable (%s)", arxiv_id, exc)
        ArxivFetch.objects.filter(arxiv_id=arxiv_id).update(
            status=ArxivFetch.Status.FAILED, message=QUEUE_DOWN_MESSAGE, finished_at=None
        )
        raise QueueUnavailable(QUEUE_DOWN_MESSAGE) from exc


def arxiv_fetch_request(*, raw_id: str) -> Paper | ArxivFetch:
    """Ask for a paper: returns the ``Paper`` when it is already archived, else the
    (possibly shared) ``ArxivFetch``, queuing a task when none is pending.

    Deduplicated on the identifier (one row per paper, locked while deciding); a pending
    fetch is re-queued only when stale, a finished one only after a day (one that never
    reached the queue at once). Raises :class:`FetchRefused` for impossible identifiers,
    before any network call, and :class:`QueueUnavailable` when the broker is down.
    """
    parsed = check_fetchable(raw_id)
    paper = Paper.objects.filter(arxiv_id=parsed.id).only("arxiv_id", "slug", "deleted").first()
    if paper is not None:
        return paper
    now = timezone.now()
    with transaction.atomic():
        fetch, created = ArxivFetch.objects.get_or_create(arxiv_id=parsed.id)
        if not created:
            fetch = ArxivFetch.objects.select_for_update().get(pk=fetch.pk)
        resend = created
        if fetch.is_pending and now - fetch.updated_at > STALE_AFTER:
            resend = True
        if not fetch.is_pending and fetch.status != ArxivFetch.Status.DONE:
            # No finished_at: the task never reached the queue (see _send_now).
            resend = fetch.finished_at is None or now - fetch.finished_at > RETRY_FINISHED_AFTER
        if fetch.status == ArxivFetch.Status.DONE:
            resend = True  # done but no paper (deleted since): fetch again
        if resend:
            fetch.status = ArxivFetch.Status.QUEUED
            fetch.message = "Waiting for a turn at the arXiv API (one request every 3 seconds)."
            fetch.finished_at = None
            fetch.save()
            _queue(fetch)
    return fetch


def _redis():
    import redis

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


def arxiv_fetch_run(*, arxiv_id: str, client: ArxivApiClient | None = None) -> ArxivFetch:
    """Run one fetch: one API request (rate-limited across workers), parse, upsert.

    Safe to run twice: a finished fetch returns at once; the upsert is idempotent.
    Transport errors, 429 and 5xx propagate (``httpx`` exceptions) so the task retries;
    an error feed marks the fetch ``failed``, an answer without the paper ``missing``.
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
        client = ArxivApiClient(
            settings.ARXIV_API_ENDPOINT,
            min_interval=settings.ARXIV_API_MIN_INTERVAL,
            timeout=settings.ARXIV_API_TIMEOUT,
            user_agent=settings.WOVE_USER_AGENT,
            redis=_redis(),
        )
    try:
        body = client.fetch_ids([arxiv_id])  # no transaction is open here (STYLE rule 3)
        records = [r for r in parse_feed(body) if r.arxiv_id == arxiv_id]
    except ArxivApiError as exc:
        logger.warning("arXiv API refused %s: %s", arxiv_id, exc)
        return _finish(fetch, ArxivFetch.Status.FAILED, f"arXiv refused the request: {exc}")
    finally:
        if own_client:
            client._http.close()
    if not records:
        return _finish(fetch, ArxivFetch.Status.MISSING, f"arXiv has no paper {arxiv_id}.")
    papers_upsert(records=records[:1])
    return _finish(fetch, ArxivFetch.Status.DONE, "Fetched from arXiv.")
