"""Forecast or score every series of a long CSV panel, in parallel over the cores.

    python -m forecasts.demand.engine.panel PATH --frequency A|Q|M|S --horizon H --out FILE
        [--holdout H] [--json] [--jobs N] [--k K] [--pin MEMBER] [--combine median|mean|trimmed]

Input: a CSV (gzip allowed) with a header naming at least ``series_id``, ``timestamp`` and
``value`` (other columns are ignored, so the M3 ``*_TSTS.csv.gz`` files read as they are).
Timestamps: ``1989``, ``1990-H1``, ``1990-Q3``, ``1990-07`` or ISO dates (``timestamps.py``).

Output (forecast mode): ``series_id,timestamp,median,p10,p90,p2_5,p97_5`` for each future step,
timestamps in each series' own style.  With ``--holdout H`` the last H points of each series are
held back, the rest is forecast H steps, FILE gets the same columns plus ``actual`` for the held
back periods, and the summary scores them: sMAPE (original scale, percent), MASE (original scale,
scaled by the in-sample MAE of the seasonal naive forecast, as in M4) and the share of held-back
points inside the 80% and 95% intervals, for the combination and for every member (each member
with intervals calibrated on its own backtest errors).  Averages are over all series and steps.
AutoARIMA runs only when named in ``--members`` (it is not in the default combination and its
order search costs about as much as all the other members together).

Cross-learning: before the series are forecast, one pooled model is trained on the windows of
every series' history (the part that is forecast from: with ``--holdout`` never the held-back
points), a model per backtest cutoff and step: gradient-boosted trees (``gbm.py``, LightGBM) or,
with ``--global-learner linear`` or where LightGBM cannot load, a robust linear autoregression
(``pooled.py``).  Its forecasts join every series' forecast as the member ``global``, blended
into the median of the local members: half and half with the trees, 0.2 with the linear model or
when fewer than 100 series could be learned from (``--global-weight W``; 0 leaves it out).  Only
yearly and quarterly panels get it by default (``POOLED_FREQUENCIES``: where it was checked).
Single series (``forecast_series``, usage series) have no panel to learn from and are forecast by
the local members alone.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from forecasts.units import PERIOD_UNITS

from . import gbm, pooled
from .backtest import MAX_ORIGINS
from .core import COMBINE, DEFAULT_K, NOT_COMBINED, forecast
from .members import ALL_MEMBERS, STAT_MEMBERS
from .panel_input import PanelError, PanelSeries, read_panel
from .results import EngineForecast, clean
from .timestamps import SEASON_LENGTH, format_period

OUT_COLUMNS = ("series_id", "timestamp", "median", "p10", "p90", "p2_5", "p97_5")
# AutoARIMA is never in the default combination, and its order search is half a panel's time:
# panels leave it out unless asked (--members ...,arima); the combined forecast is the same.
PANEL_MEMBERS = tuple(m for m in STAT_MEMBERS if m not in NOT_COMBINED)
LEARNERS = ("lightgbm", "linear")  # the pooled model: gradient-boosted trees (gbm.py) or robust AR (pooled.py)
GLOBAL_ANCHORS = ("auto", *pooled.ANCHORS)  # what the trees' targets are from (anchor_used)
# The pooled model's share of the combination when none is given, per learner (M3 validation sets,
# docs/forecasting.md): the trees (with the window level as a feature) 0.5 — the plain mean of the
# local combination and the global model; the linear model 0.2.  A model learned from fewer than
# FULL_WEIGHT_SERIES series is weaker: there the trees get SMALL_PANEL_WEIGHT (on random subsets of
# the validation panels, 0.5 beat 0.2 from about 100 series and lost below).
DEFAULT_WEIGHTS = {"lightgbm": 0.5, "linear": 0.2}
GLOBAL_WEIGHT = DEFAULT_WEIGHTS[LEARNERS[0]]
FULL_WEIGHT_SERIES = 100
SMALL_PANEL_WEIGHT = 0.2
# The frequencies the pooled member was chosen and checked on (M3, M1 and tourism yearly and quarterly panels).
# Elsewhere it is left out unless asked for (--global-weight): on the monthly panels, checked 2026-11-28, it made
# the combination worse (M1 sMAPE 14.65 -> 14.82, tourism 19.23 -> 19.43; docs/forecasting.md), its window of 8
# values being shorter than a year of months.
POOLED_FREQUENCIES = ("A", "Q")


T = TypeVar("T")


@dataclass(frozen=True)
class Options:
    frequency: str
    horizon: int
    holdout: int = 0
    k: int | None = DEFAULT_K
    pin: str | None = None
    members: tuple[str, ...] = PANEL_MEMBERS
    global_weight: float | None = None  # None: the learner's default (DEFAULT_WEIGHTS); 0: no pooled member
    global_learner: str = LEARNERS[0]
    global_anchor: str = "auto"  # the trees' targets from: "level", "last" or "auto" (anchor_used)
    combine: str = "median"  # the local members' per-step combination (core.COMBINE), before the pooled blend


@dataclass
class SeriesOutcome:
    series_id: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # method -> metric -> value
    error: str | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # process CPU time: what the series costs whatever else runs
    global_weight: float = 0.0  # the pooled model's share of the combination (the panel's, 0: none)


def _mase_scale(train: np.ndarray, m: int) -> float:
    lag = m if train.size > m else 1
    d = np.abs(train[lag:] - train[:-lag])
    d = d[np.isfinite(d)]
    return float(d.mean()) if d.size and d.mean() > 0 else math.nan


def _holdout_scores(actual: np.ndarray, cols: Mapping[str, Sequence[float]], train: np.ndarray,
                    m: int) -> dict[str, float]:
    f = np.asarray(cols["median"], dtype=float)
    ok = np.isfinite(actual) & np.isfinite(f)
    if not ok.any():
        return {}
    a, f = actual[ok], f[ok]
    denom = np.abs(a) + np.abs(f)
    smape = float(np.mean(np.where(denom > 0, 200 * np.abs(a - f) / np.where(denom > 0, denom, 1.0), 0.0)))
    scale = _mase_scale(train, m)
    out = {"smape": smape, "mase": float(np.mean(np.abs(a - f)) / scale) if math.isfinite(scale) else math.nan}
    if cols.get("p10"):
        lo80, hi80 = (np.asarray(cols[c], dtype=float)[ok] for c in ("p10", "p90"))
        lo95, hi95 = (np.asarray(cols[c], dtype=float)[ok] for c in ("p2_5", "p97_5"))
        out["coverage80"] = float(np.mean((a >= lo80) & (a <= hi80)))
        out["coverage95"] = float(np.mean((a >= lo95) & (a <= hi95)))
    return out


def _columns(fc: EngineForecast) -> dict[str, list[float]]:
    return {c: fc.column(c) for c in ("median", "p10", "p90", "p2_5", "p97_5")}


def _history(series: PanelSeries, opts: Options) -> np.ndarray:
    """The part of the series that is forecast from (all of it, or all but the held-back tail)."""
    return series.values[: -opts.holdout] if opts.holdout else series.values


def learner_used(opts: Options) -> tuple[str, str | None]:
    """The pooled model's learner for ``opts`` and, when LightGBM was asked for but cannot be
    loaded (its OpenMP runtime, libgomp, missing), why the linear one is used instead."""
    if opts.global_learner == "lightgbm":
        why = gbm.available()
        if why is not None:
            return "linear", f"{why}: the linear pooled model is used instead"
    return opts.global_learner, None


def weight_used(opts: Options, learned_from: int | None = None) -> float:
    """The pooled model's share of each combination: the one asked for, else the default of the
    learner actually used (``learner_used``), at most ``SMALL_PANEL_WEIGHT`` when the model
    learned from fewer than ``FULL_WEIGHT_SERIES`` series (``learned_from``; None: a full panel), and
    none at a frequency outside ``POOLED_FREQUENCIES``."""
    if opts.global_weight is not None:
        return opts.global_weight
    if opts.frequency not in POOLED_FREQUENCIES:
        return 0.0
    weight = DEFAULT_WEIGHTS[learner_used(opts)[0]]
    if learned_from is not None and learned_from < FULL_WEIGHT_SERIES:
        weight = min(weight, SMALL_PANEL_WEIGHT)
    return weight


def with_weight(series: Sequence[PanelSeries], opts: Options) -> Options:
    """``opts`` with the pooled model's share settled for this panel (``weight_used``)."""
    if opts.global_weight is not None:
        return opts
    learned_from = pooled.learnable([_history(s, opts) for s in series])
    return replace(opts, global_weight=weight_used(opts, learned_from))


def anchor_used(opts: Options) -> str:
    """What the trees' targets are log changes from: as asked, or for "auto" the window's last value
    when the panel's frequency has no season (yearly) and its level (a whole number of seasons' mean)
    otherwise.  The linear model always uses the level."""
    if opts.global_anchor == "auto":
        return "last" if SEASON_LENGTH[opts.frequency] == 1 else "level"
    return opts.global_anchor


def train_pooled(series: Sequence[PanelSeries], opts: Options,
                 cutoffs: Sequence[int] = tuple(range(MAX_ORIGINS + 1))) -> pooled.PooledModel | None:
    """The pooled model of a panel, one per backtest cutoff, on every series' history only."""
    if weight_used(opts) <= 0:
        return None
    h = opts.holdout or opts.horizon
    histories = [_history(s, opts) for s in series]
    if learner_used(opts)[0] == "lightgbm":
        return gbm.train_gbm(histories, h, cutoffs=cutoffs, anchor=anchor_used(opts))
    return pooled.train(histories, h, cutoffs=cutoffs)


def _pooled_part(args: tuple[Sequence[PanelSeries], Options, Sequence[int]]) -> list[dict[int, np.ndarray]]:
    """Train the pooled models of some cutoffs and make their forecasts (a process's share)."""
    series, opts, cutoffs = args
    model = train_pooled(series, opts, cutoffs)
    return pooled.forecast_table(model, [_history(s, opts) for s in series]) if model else [{} for _ in series]


def pooled_forecasts(series: Sequence[PanelSeries], opts: Options,
                     pool: ProcessPoolExecutor | None = None, jobs: int = 1) -> list[dict[int, np.ndarray] | None]:
    """Per series, the pooled model's forecasts at every backtest cutoff (``pooled.forecast_table``),
    or None for every series when the panel has no pooled member.  With a ``pool`` the cutoffs are
    shared out between ``jobs`` processes (each cutoff's models are independent of the others')."""
    if weight_used(opts) <= 0:
        return [None] * len(series)
    cutoffs = list(range(MAX_ORIGINS + 1))
    if pool is None or jobs <= 1:
        parts = [_pooled_part((series, opts, cutoffs))]
    else:
        # cost ~ steps trained: cutoff 0 and the deep ones train every step, the first few fewer
        cost = sorted(cutoffs, key=lambda c: -len(pooled.steps_at(c, opts.holdout or opts.horizon)))
        shares: list[list[int]] = [cost[i::jobs] for i in range(jobs)]
        parts = list(pool.map(_pooled_part, [(series, opts, share) for share in shares]))
    out: list[dict[int, np.ndarray] | None] = [{} for _ in series]
    for part in parts:
        for row, got in zip(out, part, strict=True):
            assert row is not None
            row.update(got)
    return out


def run_one(series: PanelSeries, opts: Options, table: Mapping[int, np.ndarray] | None = None) -> SeriesOutcome:
    """Forecast (or score against the held-back tail) one series; errors become ``error``.
    ``table``: the series' forecasts by the panel's pooled model (``pooled_forecasts``), blended
    in as the member ``global``."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = SeriesOutcome(series.series_id, global_weight=weight_used(opts) if table is not None else 0.0)
    m = SEASON_LENGTH[opts.frequency]
    values = series.values
    if opts.holdout:
        if values.size <= opts.holdout:
            out.error = f"{values.size} {PERIOD_UNITS[opts.frequency]}: nothing left after holding back {opts.holdout}"
            return out
        train, actual, h = _history(series, opts), values[-opts.holdout :], opts.holdout
    else:
        train, actual, h = _history(series, opts), np.array([]), opts.horizon
    extra: list[pooled.PooledMember] = []
    finite = np.flatnonzero(np.isfinite(train))
    if table is not None and finite.size:
        extra.append(pooled.PooledMember(table, int(train.size - finite[0])))
    try:
        fc = forecast(train, h, season_length=m, members=opts.members, k=opts.k, pin=opts.pin, combine=opts.combine,
                      extra_members=extra, blend=(pooled.NAME, weight_used(opts)) if extra else None,
                      unit=PERIOD_UNITS[opts.frequency])
    except ValueError as exc:
        out.error = str(exc)
        return out
    cols = _columns(fc)
    last = series.first_period + train.size - 1
    for i in range(h):
        row: dict[str, Any] = {"series_id": series.series_id,
                               "timestamp": format_period(last + 1 + i, opts.frequency, series.style)}
        row.update({c: cols[c][i] for c in OUT_COLUMNS[2:]})
        if opts.holdout:
            row["actual"] = float(actual[i])
        out.rows.append(row)
    if opts.holdout:
        out.scores["combined"] = _holdout_scores(actual, cols, train, m)
        for mr in fc.members:
            if mr.median:
                mcols = {"median": mr.median, "p10": mr.p10, "p90": mr.p90, "p2_5": mr.p2_5, "p97_5": mr.p97_5}
                out.scores[mr.name] = _holdout_scores(actual, mcols, train, m)
    out.seconds = time.perf_counter() - t0
    out.cpu_seconds = time.process_time() - c0
    return out


def _run_chunk(args: tuple[list[tuple[PanelSeries, dict[int, np.ndarray] | None]], Options]) -> list[SeriesOutcome]:
    chunk, opts = args
    return [run_one(s, opts, table) for s, table in chunk]


class Progress:
    """'forecast_panel: 1,200 of 5,000 series (24 %), 95 s' on ``stream`` every ``every`` seconds and at the end."""

    def __init__(self, stream: Any, every: float = 15.0) -> None:
        self.stream, self.every = stream, every
        self.t0 = self.last = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self.last < self.every:
            return
        self.last = now
        print(f"forecast_panel: {done:,} of {total:,} series ({done / max(total, 1):.0%}), {now - self.t0:.0f} s",
              file=self.stream, flush=True)


def _warm_up() -> None:
    """Compile statsforecast's numba code once in the parent so forked workers inherit it."""
    forecast(np.linspace(1.0, 2.0, 12) + np.sin(np.arange(12.0)) * 0.1, 2, season_length=4)


def _chunks(series: list[T], size: int) -> Iterator[list[T]]:
    for i in range(0, len(series), size):
        yield series[i : i + size]


def run_panel(series: list[PanelSeries], opts: Options, jobs: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[SeriesOutcome]:
    """Forecast every series with ``jobs`` processes (default: all cores); order is kept.  The
    pooled models are trained first, once, on the whole panel, their cutoffs shared out between the
    processes (``pooled_forecasts``).  Work is handed
    out longest series first in small chunks (a series' cost grows with its length), so the
    processes finish together instead of one waiting on the other's last long chunk.  ``progress(done,
    total)`` is called as series finish (a long panel's command prints it)."""
    jobs = jobs or os.cpu_count() or 1
    opts = with_weight(series, opts)
    if jobs <= 1 or len(series) < 4:
        tables = pooled_forecasts(series, opts)
        single = []
        for s, t in zip(series, tables, strict=True):
            single.append(run_one(s, opts, t))
            if progress is not None:
                progress(len(single), len(series))
        return single
    _warm_up()
    order = sorted(range(len(series)), key=lambda i: -series[i].values.size)
    size = max(1, min(4, len(series) // (jobs * 8)))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        tables = pooled_forecasts(series, opts, pool, jobs)
        work = [(series[i], tables[i]) for i in order]
        done: list[SeriesOutcome] = []
        for part in pool.map(_run_chunk, [(c, opts) for c in _chunks(work, size)]):
            done.extend(part)
            if progress is not None:
                progress(len(done), len(series))
    out: list[SeriesOutcome | None] = [None] * len(series)
    for i, o in zip(order, done, strict=True):
        out[i] = o
    return [o for o in out if o is not None]


def summarise(outcomes: list[SeriesOutcome], opts: Options, seconds: float, jobs: int) -> dict[str, Any]:
    """Panel-level figures: means over all scored series of each method's per-series means."""
    done = [o for o in outcomes if o.error is None]
    summary: dict[str, Any] = {
        "series": len(outcomes),
        "forecast": len(done),
        "failed": {o.series_id: o.error for o in outcomes if o.error is not None},
        "frequency": opts.frequency,
        "horizon": opts.holdout or opts.horizon,
        "holdout": opts.holdout,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(sum(o.cpu_seconds for o in outcomes), 2),
        "jobs": jobs,
        "load_average": round(os.getloadavg()[0], 2),
    }
    if weight_used(opts) > 0:
        summary["global_learner"], note = learner_used(opts)
        if summary["global_learner"] == "lightgbm":
            summary["global_anchor"] = anchor_used(opts)
        summary["global_weight"] = max((o.global_weight for o in outcomes), default=0.0)
        if note:
            summary["global_note"] = note
    elif opts.global_weight is None:
        summary["global_note"] = ("no pooled global member: by default only yearly and quarterly panels get one, "
                                  "where it was checked (ask for one with a global weight)")
    if opts.combine != "median":
        summary["combine"] = opts.combine
    if opts.holdout:
        methods: dict[str, dict[str, list[float]]] = {}
        for o in done:
            for method, sc in o.scores.items():
                for key, v in sc.items():
                    methods.setdefault(method, {}).setdefault(key, []).append(v)
        summary["scores"] = {
            method: {key: float(np.nanmean(v)) for key, v in metrics.items()} | {"series": len(metrics["smape"])}
            for method, metrics in methods.items()
        }
    return clean(summary)  # type: ignore[no-any-return]


def write_rows(outcomes: list[SeriesOutcome], out: io.TextIOBase, holdout: bool) -> int:
    cols = list(OUT_COLUMNS) + (["actual"] if holdout else [])
    w = csv.DictWriter(out, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    n = 0
    for o in outcomes:
        for row in o.rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
            n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m forecasts.demand.engine.panel", description=__doc__.split("\n\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--frequency", required=True, choices=["A", "S", "Q", "M"])
    p.add_argument("--horizon", type=int, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--holdout", type=int, default=0, metavar="H")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--k", type=int, default=DEFAULT_K, help="at most K members combined (default: all that pass)")
    p.add_argument("--members", default=",".join(PANEL_MEMBERS),
                   help=f"comma-separated members (default {','.join(PANEL_MEMBERS)}; add arima for its scores, "
                        "ces for AutoCES)")
    p.add_argument("--pin", default=None, choices=ALL_MEMBERS, help="use one member instead of the combination")
    p.add_argument("--global-weight", type=float, default=None, metavar="W",
                   help="share of the pooled global model in the combination (default "
                        f"{DEFAULT_WEIGHTS['lightgbm']} with the trees, {DEFAULT_WEIGHTS['linear']} with the "
                        "linear model, for yearly and quarterly panels; other frequencies 0; 0: none)")
    p.add_argument("--global-learner", choices=LEARNERS, default=LEARNERS[0],
                   help="the pooled model: gradient-boosted trees (default) or a robust linear autoregression")
    p.add_argument("--global-anchor", choices=GLOBAL_ANCHORS, default="auto",
                   help="the trees' targets: log changes from the window's level, its last value, or auto "
                        "(default: the last value for yearly panels, the level for seasonal ones)")
    p.add_argument("--combine", choices=COMBINE, default="median",
                   help="the local members' per-step combination: median (default), mean or trimmed (20%% from "
                        "each end)")
    a = p.parse_args(argv)
    if a.horizon < 1 or a.holdout < 0:
        p.error("--horizon must be at least 1 and --holdout at least 0")
    if a.global_weight is not None and not 0 <= a.global_weight < 1:
        p.error("--global-weight must be at least 0 and below 1")
    try:
        series = read_panel(a.path, a.frequency)
    except PanelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    members = tuple(m.strip() for m in a.members.split(",") if m.strip())
    unknown = [m for m in members if m not in ALL_MEMBERS]
    if unknown:
        p.error(f"unknown member {unknown[0]!r}; choose from {', '.join(ALL_MEMBERS)}")
    opts = Options(a.frequency, a.horizon, a.holdout, a.k, a.pin, members, a.global_weight, a.global_learner,
                   a.global_anchor, a.combine)
    jobs = a.jobs or os.cpu_count() or 1
    t0 = time.perf_counter()
    outcomes = run_panel(series, opts, jobs, progress=Progress(sys.stderr))
    seconds = time.perf_counter() - t0
    with a.out.open("w", encoding="utf-8") as fh:
        write_rows(outcomes, fh, bool(a.holdout))
    summary = summarise(outcomes, opts, seconds, jobs)
    if a.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"{summary['forecast']} of {summary['series']} series in {seconds:.1f} s on {jobs} processes "
              f"({summary['cpu_seconds']:.1f} CPU-s, load average {summary['load_average']}) -> {a.out}")
        for method, sc in summary.get("scores", {}).items():
            print(f"  {method:11s} sMAPE {sc['smape']:6.2f}  MASE {sc['mase']:.3f}  "
                  f"80% {sc.get('coverage80', math.nan):.3f}  95% {sc.get('coverage95', math.nan):.3f}")
        if summary.get("global_note"):
            print(f"  note: {summary['global_note']}")
        for sid, err in list(summary["failed"].items())[:10]:
            print(f"  {sid}: {err}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
