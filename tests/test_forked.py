"""``wove.forked.batches_in_processes``: batches run in forked children (issue 29's signing
on both cores), results collected here, a child's failure raised here with its traceback."""

import os

import pytest
from django.db import connection

from wove.bulk import batched
from wove.forked import ChildFailed, batches_in_processes
from wove.locks import advisory_lock


def _pid_and_sum(batch: list[int]) -> tuple[int, int]:
    return os.getpid(), sum(batch)


def test_two_children_do_every_batch_and_the_parent_collects_each_result():
    results = []
    batches_in_processes(_pid_and_sum, batched(range(100), 7), workers=2, collect=results.append)
    assert len(results) == 15  # 14 batches of 7 and one of 2
    assert sum(total for _pid, total in results) == 4950  # 0 + 1 + ... + 99
    pids = {pid for pid, _total in results}
    assert os.getpid() not in pids
    assert len(pids) == 2


def test_one_batch_is_done_here_without_a_fork():
    results = []
    batches_in_processes(_pid_and_sum, [[1, 2, 3]], workers=2, collect=results.append)
    assert results == [(os.getpid(), 6)]


def test_a_failing_batch_raises_its_error_here_with_the_childs_traceback():
    def work(batch: list[int]) -> int:
        if 7 in batch:
            raise ValueError("batch with 7")
        return len(batch)

    done = []
    with pytest.raises(ValueError, match="batch with 7") as raised:
        batches_in_processes(work, batched(range(3000), 3), workers=2, collect=done.append)
    assert any("raised in a forked child" in note and "in work" in note for note in raised.value.__notes__)
    assert len(done) < 500  # batches after the failure were not taken (1,000 in all)


class _Unpicklable(Exception):
    def __init__(self, one, two):  # pickle calls __init__ with args=(message,): it fails
        super().__init__(f"{one} {two}")


def test_an_error_that_cannot_cross_the_pipe_is_raised_as_child_failed():
    def work(batch: list[int]) -> int:
        raise _Unpicklable("no", "pickle")

    with pytest.raises(ChildFailed, match="_Unpicklable: no pickle"):
        batches_in_processes(work, batched(range(10), 3), workers=2, collect=lambda _r: None)


def test_a_child_killed_before_its_result_is_child_failed():
    def work(batch: list[int]) -> int:
        os._exit(9)  # as the kernel's out-of-memory killer would end it

    with pytest.raises(ChildFailed, match="exited before its result"):
        batches_in_processes(work, batched(range(10), 3), workers=2, collect=lambda _r: None)


def _backend_pid(batch: list[int]) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_children_use_their_own_connections_and_the_callers_session_keeps_its_lock():
    """A stage runs its batches holding its advisory lock on the caller's session: the
    children must neither close that session nor send their statements on it."""
    with advisory_lock("forked-test") as held:
        assert held
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            parent = cursor.fetchone()[0]
        backends = []
        batches_in_processes(_backend_pid, batched(range(12), 3), workers=2, collect=backends.append)
        assert len(backends) == 4 and parent not in backends
        assert len(set(backends)) == 2  # one connection each
        with connection.cursor() as cursor:  # the same session, its lock still held
            cursor.execute(
                "SELECT pg_backend_pid(), count(*) FROM pg_locks"
                " WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted"
            )
            assert cursor.fetchone() == (parent, 1)
