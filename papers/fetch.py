"""Fetching a paper that is not archived yet from the arXiv API, the site's side: validate
the identifier, deduplicate, queue the ``papers.fetch_paper`` task (its work is in
:mod:`papers.fetch_run`)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from .identifiers import ArxivId, InvalidArxivId, parse_arxiv_id
from .models import ArxivFetch, Paper
from .tasks import fetch_paper

logger = logging.getLogger(__name__)

# A queued or running fetch older than this is presumed lost (worker died) and re-sent.
# (A finished one is re-sent once ArxivFetch.asks_again_at has passed: ten minutes after
# "incomplete", an hour after "missing", a day after "failed".)
STALE_AFTER = timedelta(minutes=10)


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
    fetch is re-queued only when stale, a finished one once its
    :attr:`~papers.models.ArxivFetch.asks_again_at` has passed (an ``incomplete`` fetch ten
    minutes later, a ``missing`` paper an hour later, a ``failed`` fetch a day later, one
    that never reached the queue at once).
    Raises :class:`FetchRefused` for impossible identifiers, before any network call, and
    :class:`QueueUnavailable` when the broker is down.
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
        if fetch.is_pending:
            resend = created or now - fetch.updated_at > STALE_AFTER
        else:
            # Missing or failed: again after its interval; done but no paper (deleted since)
            # or never queued (no finished_at, see _send): again at once.
            resend = fetch.may_ask_again(now)
        if resend:
            fetch.status = ArxivFetch.Status.QUEUED
            fetch.message = "Waiting for a turn at the arXiv API (one request every 3 seconds)."
            fetch.finished_at = None
            fetch.save()
            _queue(fetch)
    return fetch
