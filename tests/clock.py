"""A clock for code that sleeps between retries: tests read what it slept, never wait."""

from __future__ import annotations


class FakeClock:
    """Monotonic seconds that move only when the client sleeps: pass it as the client's
    ``clock`` and its ``sleep`` as ``sleep``; ``slept`` lists each pause in seconds."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
