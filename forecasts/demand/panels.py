"""Forecast or score a panel of series (long CSV ``series_id,timestamp,value``): the service behind
``manage.py forecast_panel``, ``POST /api/v1/forecast-panels/`` and the page /forecasts/panel/.

The work is the pure engine's (``forecasts.demand.engine.panel``).  The command uses every core;
the page and the API run in the web process, one series after another, and take at most
``MAX_WEB_SERIES`` series (a larger panel is a command's job).
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forecasts.demand.engine.panel import (
    GLOBAL_ANCHORS,
    LEARNERS,
    PANEL_MEMBERS,
    Options,
    PanelError,
    SeriesOutcome,
    read_panel,
    run_panel,
    summarise,
    write_rows,
)

MAX_WEB_SERIES = 100
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
FREQUENCIES = ("A", "S", "Q", "M")

__all__ = ["MAX_WEB_SERIES", "PanelError", "PanelRun", "panel_run", "usage_panel_csv"]


@dataclass
class PanelRun:
    summary: dict[str, Any]
    outcomes: list[SeriesOutcome]

    def csv(self) -> str:
        buf = io.StringIO()
        write_rows(self.outcomes, buf, bool(self.summary["holdout"]))
        return buf.getvalue()

    def rows(self) -> list[dict[str, Any]]:
        return [row for o in self.outcomes for row in o.rows]


def _check(frequency: str, horizon: int, holdout: int) -> None:
    if frequency not in FREQUENCIES:
        raise PanelError(f"frequency must be one of {', '.join(FREQUENCIES)}, not {frequency!r}")
    if horizon < 1 or horizon > 240:
        raise PanelError("horizon must be between 1 and 240 periods")
    if holdout < 0 or holdout > 240:
        raise PanelError("holdout must be between 0 and 240 periods")


def panel_run(source: Path | bytes, *, frequency: str, horizon: int, holdout: int = 0, name: str | None = None,
              jobs: int | None = None, max_series: int | None = None, pin: str | None = None,
              members: tuple[str, ...] = PANEL_MEMBERS, global_weight: float | None = None,
              global_learner: str = LEARNERS[0], global_anchor: str = "auto",
              progress: Callable[[int, int], None] | None = None) -> PanelRun:
    """Read, forecast (or score with ``holdout``) and summarise a panel.  ``source`` is a path or
    the uploaded bytes (gzip allowed).  ``jobs`` processes (default: all cores).  ``global_weight``:
    the pooled model's share of each combination (None: the learner's default, 0.5 for the trees and
    0.2 for the linear model; 0: local members only); ``global_learner``:
    "lightgbm" (trees, the default) or "linear"; ``global_anchor``: what the trees' targets are
    log changes from ("auto": the last value for yearly panels, the level for seasonal ones)."""
    _check(frequency, horizon, holdout)
    if isinstance(source, bytes):
        if len(source) > MAX_UPLOAD_BYTES:
            raise PanelError(f"{name or 'upload'}: {len(source) / 1e6:.1f} MB is over the "
                             f"{MAX_UPLOAD_BYTES // 10**6} MB limit; use python manage.py forecast_panel")
        import gzip

        raw = gzip.decompress(source) if source[:2] == b"\x1f\x8b" else source
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise PanelError(f"{name or 'upload'}: not UTF-8 text (byte {exc.start})") from exc
        series = read_panel(io.StringIO(text), frequency, name=name or "upload")
    else:
        series = read_panel(source, frequency, name=name)
    if max_series is not None and len(series) > max_series:
        raise PanelError(f"{name or 'upload'}: {len(series)} series; the page and the API take at most "
                         f"{max_series}: run python manage.py forecast_panel for larger panels")
    if pin and pin not in members:
        members = (*members, pin)
    if global_weight is not None and not 0 <= global_weight < 1:
        raise PanelError("the global model's weight must be at least 0 and below 1")
    if global_learner not in LEARNERS:
        raise PanelError(f"global learner must be one of {', '.join(LEARNERS)}, not {global_learner!r}")
    if global_anchor not in GLOBAL_ANCHORS:
        raise PanelError(f"global anchor must be one of {', '.join(GLOBAL_ANCHORS)}, not {global_anchor!r}")
    opts = Options(frequency, horizon, holdout, pin=pin, members=members, global_weight=global_weight,
                   global_learner=global_learner, global_anchor=global_anchor)
    jobs = jobs or os.cpu_count() or 1
    t0 = time.perf_counter()
    outcomes = run_panel(series, opts, jobs, progress=progress)
    return PanelRun(summarise(outcomes, opts, time.perf_counter() - t0, jobs), outcomes)


def usage_panel_csv() -> tuple[str, int]:
    """This institution's monthly core-hours per cluster and department as a panel CSV
    (``series_id,timestamp,value``; ids ``cluster/DEPT``, timestamps ``YYYY-MM``), whole months
    only, as the usage forecasts see them: the sample a planner can upload back to the panel page.
    Returns the text and the number of series (0: no usage loaded yet)."""
    from forecasts.demand.growth import add_months
    from forecasts.demand.series import core_hours_by_cluster_department

    panel = core_hours_by_cluster_department()
    buf = io.StringIO()
    buf.write("series_id,timestamp,value\n")
    for cluster, dept, series in panel:
        sid = f"{cluster.name}/{dept.code}"
        for i, value in enumerate(series.values):
            buf.write(f"{sid},{add_months(series.start, i):%Y-%m},{value:.1f}\n")
    return buf.getvalue(), len(panel)
