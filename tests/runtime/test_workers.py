"""``WorkerThreads``: the threads a runtime runs sync tools on."""

from __future__ import annotations

import os
import threading

import pytest
from tooldesign.runtime.workers import WorkerThreads


def test_one_call_after_another_runs_on_the_thread_that_finished_last() -> None:
    """ThreadPoolExecutor started a second thread for calls made one after another and rotated
    them over both; here the warm thread takes each next call."""
    pool = WorkerThreads(4, thread_name_prefix="t")
    names = [pool.submit(lambda: threading.current_thread().name).result() for _ in range(50)]
    assert set(names) == {"t_0"}
    pool.shutdown()


@pytest.mark.parametrize("threads", [1, 2])
def test_calls_past_the_threads_wait_in_order_and_every_call_ends(threads: int) -> None:
    pool = WorkerThreads(threads, thread_name_prefix="t")
    release = threading.Event()
    started: list[int] = []

    def job(number: int) -> int:
        started.append(number)
        release.wait(5)
        return number

    futures = [pool.submit(job, n) for n in range(5)]
    assert len(pool._threads) == threads  # no more threads than allowed
    release.set()
    assert [f.result(5) for f in futures] == [0, 1, 2, 3, 4]
    if threads == 1:
        assert started == [0, 1, 2, 3, 4]  # the waiting ones in the order they came
    pool.shutdown()


def test_a_call_cancelled_before_a_thread_took_it_never_runs() -> None:
    pool = WorkerThreads(1, thread_name_prefix="t")
    release = threading.Event()
    ran: list[str] = []
    busy = pool.submit(release.wait, 5)
    queued = pool.submit(ran.append, "queued")
    assert queued.cancel()
    release.set()
    assert busy.result(5) is True
    pool.shutdown()
    assert ran == []


def test_a_failure_reaches_the_caller_and_the_thread_goes_on() -> None:
    pool = WorkerThreads(1, thread_name_prefix="t")

    def fail() -> None:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        pool.submit(fail).result(5)
    assert pool.submit(lambda: 42).result(5) == 42
    pool.shutdown()
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(lambda: 1)
    assert not any(t.is_alive() for t in pool._threads)


def test_a_forked_child_starts_threads_of_its_own() -> None:
    """The parent's idle threads do not exist in a forked child: a call there still runs."""
    pool = WorkerThreads(2, thread_name_prefix="t")
    assert pool.submit(lambda: 1).result(5) == 1  # an idle thread, in the parent
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(writer, str(pool.submit(lambda: 2).result(5)).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as pipe:
        assert pipe.read() == "2"
    os.waitpid(pid, 0)
    pool.shutdown()
