"""Progress bars for long commands (tqdm on standard error), one per pipeline stage."""

from __future__ import annotations

from collections.abc import Callable

from tqdm import tqdm


class StageProgress:
    """A ``progress_for(stage)`` factory for :func:`wove.pipeline.pipeline_run_inline`: one
    tqdm bar per stage, counting the stage's ``unit`` (stages count slots or papers as they
    go, so the bar has no total). Off when ``disabled``. Call :meth:`close` when the run ends."""

    def __init__(self, *, disabled: bool = False) -> None:
        self.disabled = disabled
        self._bar: tqdm | None = None

    def __call__(self, stage) -> Callable[[int], object] | None:
        self.close()
        if self.disabled:
            return None
        # disable=None: drawn on a terminal only, as the other commands' bars (not in cron logs).
        self._bar = tqdm(desc=stage.name, unit=stage.unit, leave=False, disable=None)
        return self._bar.update

    def close(self) -> None:
        """Close the current stage's bar, if any."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
