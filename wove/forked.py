"""Batches in forked processes: Python-bound work on every core (issue 29's signing).

:func:`wove.bulk.batches_in_threads` keeps two PostgreSQL connections busy, but the batches'
Python (building and signing documents) holds one interpreter lock: signing a first load used
one core for Python and the other only for PostgreSQL. Forked children each have their own.
The standard library's ``multiprocessing.Process`` cannot be used: a Celery prefork worker's
process is daemonic and may not start one ("daemonic processes are not allowed to have
children", https://github.com/celery/celery/issues/1709), so the children are ``os.fork``-ed
here and spoken to over ``multiprocessing.Pipe`` (pickled messages on a socket pair).
"""

from __future__ import annotations

import itertools
import logging
import os
import pickle
import signal
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import Pipe
from multiprocessing import connection as mp_connection
from typing import TypeVar

from django.db import connection, connections

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

# Batches sent to a child before its first result comes back: it starts the next one while
# the parent reads its result and sends another.
_AHEAD = 2


class ChildFailed(RuntimeError):
    """A batch raised in a forked child; the message holds the child's traceback."""


def batches_in_processes(
    function: Callable[[T], R],
    batches: Iterable[T],
    *,
    workers: int,
    collect: Callable[[R], object],
) -> None:
    """``collect(function(batch))`` for every batch, ``function`` run in ``workers`` forked
    children (each with its own database connections), ``collect`` on the caller's thread
    in the order results arrive.

    ``batches`` are read on the caller's thread (its own connection), at most ``_AHEAD``
    per child ahead; each batch and result is pickled. Each batch must stand alone (its own
    statements, committed by itself). Fewer than two batches, ``workers`` 1, a caller inside
    a transaction (the children could not see its rows and would wait on its locks), or a
    caller on another thread than the main one (a fork copies only the calling thread: the
    others' connections would be finalised in the child) run every batch here, with no
    fork. The caller's connections stay open, with the session locks they hold (a stage's
    lock): the children leave them untouched (:func:`_detach_connections`).

    The first batch that raises stops the others from being taken, the children finish
    what they hold, and its exception is raised here
    (the child's traceback as a note; :class:`ChildFailed` when it cannot be pickled, or
    for a child killed before its result). A child whose parent dies stops after the
    batch in hand (its pipe closes).
    """
    iterator = iter(batches)
    first = list(itertools.islice(iterator, 2))
    if (
        workers <= 1
        or len(first) < 2
        or connection.in_atomic_block
        or threading.current_thread() is not threading.main_thread()
    ):
        for batch in [*first, *iterator]:
            collect(function(batch))
        return
    children: list[tuple[int, object]] = []
    for _ in range(workers):
        children.append(_fork(function, [pipe for _pid, pipe in children]))
    pending = iter([*first, *iterator])
    in_hand = {pipe: 0 for _pid, pipe in children}
    failure = None
    try:
        for pipe in in_hand:
            in_hand[pipe] = _send(pipe, pending, _AHEAD)
        while any(in_hand.values()):
            for pipe in mp_connection.wait([p for p, n in in_hand.items() if n]):
                try:
                    status, value = pipe.recv()
                    if status == "ok":
                        in_hand[pipe] -= 1
                        collect(value)
                        in_hand[pipe] += _send(pipe, pending, 1)
                        continue
                except (EOFError, OSError):  # killed (out of memory, a signal): batches lost
                    value = ChildFailed("a forked child exited before its result")
                failure = failure or value
                pending = iter(())  # no more batches taken
                in_hand[pipe] = 0  # the child has stopped
    finally:
        for _pid, pipe in children:
            pipe.close()  # the child's recv ends: it exits
        for pid, _pipe in children:
            os.waitpid(pid, 0)
    if failure:
        raise failure


def _send(pipe, pending: Iterator, count: int) -> int:
    """Send up to ``count`` batches from ``pending``; returns how many were sent."""
    sent = 0
    for batch in itertools.islice(pending, count):
        pipe.send(batch)
        sent += 1
    return sent


def _fork(function: Callable, siblings: list) -> tuple[int, object]:
    """A child serving ``function`` on one end of a new pipe: ``(pid, the parent's end)``.
    ``siblings`` are the parent's ends of the children forked before: the child closes its
    copies, or a sibling would never see its pipe close."""
    parent_end, child_end = Pipe()
    pid = os.fork()
    if pid:
        child_end.close()
        return pid, parent_end
    # The child: never returns into the parent's stack (a test runner's, a worker's).
    code = 1
    try:
        _detach_connections()
        for pipe in [parent_end, *siblings]:
            pipe.close()
        # The parent's handlers (a Celery worker's warm shutdown) are not the child's.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _serve(function, child_end)
        code = 0
    finally:
        try:
            connections.close_all()
        finally:
            os._exit(code)


# The parent's connections, as a child inherited them: referenced until the child's
# ``os._exit``, so that no finaliser ever runs on them.
_INHERITED: list = []


def _detach_connections() -> None:
    """In a child: forget the parent's database connections without closing them. Closing
    one (or letting it be finalised) would end the parent's session on the shared socket,
    and with it the session's advisory locks; the child opens its own on first use."""
    for alias in connections:
        wrapper = connections[alias]
        if wrapper.connection is not None:
            _INHERITED.append(wrapper.connection)
            wrapper.connection = None


def _portable(exc: Exception, text: str) -> Exception:
    """``exc`` with the child's traceback as a note, if it survives pickling (so the
    parent raises the same type: a Celery task retries on ``OperationalError``), else
    :class:`ChildFailed` with that traceback."""
    try:
        copy = pickle.loads(pickle.dumps(exc))  # noqa: S301 - our own bytes, just made
    except Exception:  # noqa: BLE001 - any exception that cannot cross the pipe
        return ChildFailed(text)
    copy.add_note(f"raised in a forked child:\n{text}")
    return copy


def _serve(function: Callable, pipe) -> None:
    """Run ``function`` on each batch received, sending ``("ok", result)`` or, once,
    once ``("error", exception)`` (:func:`_portable`); return when the parent closes the pipe."""
    while True:
        try:
            batch = pipe.recv()
        except EOFError:
            return
        try:
            result = function(batch)
        except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it
            log.exception("a batch failed in a forked child")
            pipe.send(("error", _portable(exc, traceback.format_exc())))
            return
        pipe.send(("ok", result))


__all__ = ["ChildFailed", "batches_in_processes"]
