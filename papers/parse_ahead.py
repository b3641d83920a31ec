"""Parse recorded OAI-PMH pages in a child process while the caller writes the previous one."""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
from collections.abc import Iterator, Sequence
from pathlib import Path

from .oai import OaiError, OaiPage, OaiResponseError, parse_oai_response
from .text import make_slug

logger = logging.getLogger(__name__)

# Pages parsed ahead of the one being written. One keeps both cores busy (the child parses
# page n+1 while PostgreSQL and this process write page n); more only holds more memory.
AHEAD = 1
_POLL_SECONDS = 1.0


class ParseFailed(Exception):
    """The parsing process raised something other than an OAI error: the original's type
    name and message (exceptions do not all survive pickling, so they are not sent whole)."""


def record_slugs(page: OaiPage) -> None:
    """Fill ``record.slug`` (what :func:`papers.upsert._merge` would compute from the
    title) for every live record of ``page``, so that work is done where the page is parsed."""
    for record in page.records:
        if not record.deleted:
            record.slug = make_slug(record.title, fallback="") or make_slug(record.arxiv_id.replace("/", "-"))


def _parse_pages(paths: Sequence[str], out: multiprocessing.Queue, parent: int) -> None:
    """Child process: parse each page in order and send ``(index, kind, payload)``:
    ``("page", OaiPage)``, ``("oai_error", (code, message))`` or ``("failed", (type, text))``
    (then stop). Exits when the parent is gone (killed, so no one reads the queue)."""

    def send(item: tuple) -> bool:
        while True:
            try:
                out.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                if os.getppid() != parent:  # the writer died (kill -9): stop, do not linger
                    out.cancel_join_thread()  # nor wait at exit for a reader that is gone
                    return False

    for index, path in enumerate(paths):
        try:
            page = parse_oai_response(path)
            record_slugs(page)
            item = (index, "page", page)
        except OaiError as exc:
            item = (index, "oai_error", (exc.code, exc.message))
        except OaiResponseError as exc:
            item = (index, "not_oai", str(exc))
        except FileNotFoundError as exc:
            item = (index, "missing", (exc.errno, exc.strerror, exc.filename))
        except Exception as exc:  # sent to the writer, which fails the run with it
            item = (index, "failed", (type(exc).__name__, str(exc)))
        if not send(item) or item[1] in ("not_oai", "missing", "failed"):
            return


def parsed_pages(paths: Sequence[str | Path]) -> Iterator[OaiPage | OaiError]:
    """Yield each recorded page of ``paths`` parsed, in order, from a child process that
    parses up to :data:`AHEAD` pages in advance (bounded: memory stays one or two pages).

    Yields an :class:`~papers.oai.OaiError` instead of a page for an OAI error response (the
    caller decides, as for :func:`~papers.oai.parse_oai_response`). Raises
    :class:`~papers.oai.OaiResponseError` for a file that is not OAI-PMH,
    ``FileNotFoundError`` for a missing one, :class:`ParseFailed` for anything else the
    parser raised; pages before the failing one are yielded first. The child is stopped when
    the caller stops iterating; if the caller is killed, the child notices within a second
    and exits. Inside a daemonic process (a Celery prefork worker), which may not start
    children, pages are parsed in this process instead.
    """
    paths = [str(p) for p in paths]
    if multiprocessing.current_process().daemon:
        for path in paths:
            try:
                page = parse_oai_response(path)
            except OaiError as exc:
                yield exc
                continue
            yield page
        return
    # fork: the child inherits the loaded modules and logging set-up and never touches the
    # database connection; it ends with os._exit, so nothing of the parent's is closed.
    context = multiprocessing.get_context("fork")
    out = context.Queue(maxsize=AHEAD)
    child = context.Process(target=_parse_pages, args=(paths, out, os.getpid()), daemon=True)
    child.start()
    try:
        for _ in paths:
            while True:
                try:
                    _index, kind, payload = out.get(timeout=_POLL_SECONDS)
                    break
                except queue.Empty:
                    if not child.is_alive() and out.empty():
                        stopped = f"the parsing process stopped (exit code {child.exitcode})"
                        raise ParseFailed(stopped) from None
            if kind == "page":
                yield payload
            elif kind == "oai_error":
                yield OaiError(*payload)
            elif kind == "not_oai":
                raise OaiResponseError(payload)
            elif kind == "missing":
                raise FileNotFoundError(*payload)
            else:
                name, text = payload
                raise ParseFailed(f"{name}: {text}")
    finally:
        if child.is_alive():
            child.terminate()
        child.join(5)
        out.close()
