"""Progress of the long stages, for the person watching `siterag run` / `siterag reindex`.

Library functions take an optional `progress(done, total)` callback. The CLI installs a reporter for its process
(`use(Reporter(...))`); the flow and its tasks open a stage with `stage(site, name, unit)`, which yields such a
callback: a rich progress bar when stdout is a terminal, else a plain line per ~10% (or per call when calls are
rarer). Without a reporter (served deployments, Dask workers, tests calling the flow) the callback does nothing,
so the flow runs the same with or without one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

Progress = Callable[[int, int], None]

_active: Reporter | None = None
_current: _Stage | None = None


def _noop(done: int, total: int) -> None:
    pass


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class _Stage:
    """One stage's count: `done` of `total` `unit` since `started`."""

    def __init__(self, reporter: Reporter, label: str, unit: str) -> None:
        self.reporter, self.label, self.unit = reporter, label, unit
        self.done, self.total = 0, 0
        self.started = time.monotonic()
        self.next_line = 0.0  # plain mode: print when the share done reaches this
        self.bar = None

    def update(self, done: int, total: int) -> None:
        self.total = max(0, total)
        self.done = max(0, min(done, self.total)) if self.total else max(0, done)
        self.reporter._show(self)

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n, self.total)

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        share = self.done / self.total if self.total else 1.0
        text = f"   {self.label}: {self.done}/{self.total} {self.unit} ({share:.0%})"
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            each = self.unit.removesuffix("s")
            text += f", {rate:.1f} {self.unit}/s" if rate >= 0.1 else f", {elapsed / self.done:.0f} s per {each}"
            if self.done < self.total:
                text += f", ETA {_duration((self.total - self.done) / rate)}"
            else:
                text += f", {_duration(elapsed)}"
        return text


class Reporter:
    """Shows stage progress on `stream`: rich bars on a terminal (`live=None` decides by isatty), else lines."""

    def __init__(self, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._progress = None
        self.broken = False

    def _show(self, stage: _Stage) -> None:
        """Show a stage's count; a display that fails (its stream closed) is switched off, never the work."""
        if self.broken:
            return
        try:
            self._draw(stage)
        except (OSError, ValueError):
            self.broken = True

    def _draw(self, stage: _Stage) -> None:
        if self.live:
            if stage.bar is None:
                stage.bar = self._progress.add_task(stage.label, total=stage.total or None, unit=stage.unit)
            self._progress.update(stage.bar, completed=stage.done, total=stage.total or None)
            return
        if not stage.total:
            return
        share = stage.done / stage.total
        if share >= stage.next_line or stage.done == stage.total:
            if stage.done == stage.total and stage.next_line > 1.0:
                return  # the last line is out already
            self.stream.write(stage.line() + "\n")  # not print(): a flow with log_prints=True takes those
            self.stream.flush()
            stage.next_line = 1.01 if stage.done == stage.total else (int(share * 10) + 1) / 10

    @contextmanager
    def open(self, label: str, unit: str) -> Iterator[_Stage]:
        stage = _Stage(self, label, unit)
        if self.live:
            from rich import progress as rp
            from rich.console import Console

            self._progress = rp.Progress(
                rp.TextColumn("   {task.description}"), rp.BarColumn(), rp.MofNCompleteColumn(),
                rp.TextColumn("{task.fields[unit]}"), _rate_column(), rp.TextColumn("ETA"), rp.TimeRemainingColumn(),
                rp.TimeElapsedColumn(), console=Console(file=self.stream), transient=False)
            self._progress.start()
        try:
            yield stage
        finally:
            if self.live and self._progress is not None:
                self._progress.stop()
                self._progress = None


def _rate_column():  # noqa: ANN202 - rich is imported only for a terminal
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task) -> Text:  # noqa: ANN001
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.1f}/s" if speed else "-/s")

    return RateColumn()


def use(reporter: Reporter | None) -> None:
    """Install (or with None remove) the reporter of this process."""
    global _active
    _active = reporter


@contextmanager
def stage(site: str, name: str, unit: str = "pages") -> Iterator[Progress]:
    """`with stage("example", "index", "docs") as progress: work(progress=progress)`; a no-op without reporter."""
    global _current
    if _active is None:
        yield _noop
        return
    with _active.open(f"{site} {name}", unit) as current:
        outer, _current = _current, current
        try:
            yield current.update
        finally:
            _current = outer


def advance(n: int = 1) -> None:
    """Count `n` more units done in the stage open in this process (a task's per-page step), if any."""
    if _current is not None:
        _current.advance(n)
