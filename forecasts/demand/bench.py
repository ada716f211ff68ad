"""Speed benchmark of the forecasting engine (pure core; ``manage.py bench_forecast`` wraps ``main``).

Each series: 60 months (linear, exponential, saturating or kinked growth with a 5% seasonal swing
and 5% noise), forecast 36 months ahead by ``forecasts.demand.engine.forecast`` exactly as the
``forecast`` command does it: every member (AutoETS, damped ETS, Theta, DOTM, AutoARIMA, random
walk with drift, and the other-scale members of a positive series), the rolling-origin backtest
at the asked horizon, the conformal 80%/95% intervals and 1,000 sample paths.  Measures five
series one after another on one core (wall and CPU seconds), then ``n_series`` on ``workers``
processes; prints one JSON object.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from forecasts.demand.engine import forecast
from forecasts.demand.engine.backtest import MAX_ORIGINS

MONTHS = 60
HORIZON = 36
N_PATHS = 1000


def synthetic_series(i: int, n: int = MONTHS) -> np.ndarray:
    """A mix of linear, exponential, saturating and kinked monthly core-hour series."""
    rng = np.random.default_rng(i)
    t = np.arange(n, dtype=float)
    kind = i % 4
    if kind == 0:
        y = 1e6 + 2e4 * t
    elif kind == 1:
        y = 1e6 * np.exp(0.025 * t)
    elif kind == 2:
        y = 3e6 / (1 + np.exp(-0.12 * (t - 30)))
    else:
        y = 1e6 + 1e4 * t + 4e4 * np.maximum(0, t - 35)
    out: np.ndarray = y * (1 + 0.05 * np.sin(2 * np.pi * t / 12)) * np.exp(rng.normal(0, 0.05, n))
    return out


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float  # this process's CPU seconds: the work itself, whatever else runs
    selected: tuple[str, ...]
    members: int
    log: bool
    backtest_horizon: int
    family: str


def _timed(i: int) -> Timed:
    """One series: wall and CPU seconds, members combined, scale."""
    t0, c0 = time.perf_counter(), time.process_time()
    fc = forecast(synthetic_series(i), HORIZON, season_length=12, n_paths=N_PATHS, seed=i, unit="months")
    return Timed(time.perf_counter() - t0, time.process_time() - c0, tuple(fc.selected), len(fc.members),
                 fc.log, fc.backtest_horizon, fc.pinned or "combined")


def _stats(xs: list[float]) -> dict[str, float]:
    return {"max": round(max(xs), 3), "median": round(float(np.median(xs)), 3)}


def main(n_series: int = 100, workers: int = 2) -> dict[str, object]:
    """Run the benchmark and print (and return) its JSON summary."""
    _timed(0)  # warm imports and statsforecast's numba compilation
    singles = [_timed(i) for i in range(5)]
    # one BLAS thread per worker process: the work is many small arrays, threads only contend
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("fork")  # workers inherit the compiled code
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        timed = list(pool.map(_timed, range(n_series)))
    batch = time.perf_counter() - t0
    combined = Counter(n for r in timed for n in r.selected)
    result: dict[str, object] = {
        "single_series_s": _stats([r.wall for r in singles]),
        "single_series_cpu_s": _stats([r.cpu for r in singles]),
        "batch": {
            "series": n_series,
            "workers": workers,
            "seconds": round(batch, 2),
            # wall time on an idle machine is about cpu_seconds / workers
            "cpu_seconds": round(sum(r.cpu for r in timed), 2),
        },
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "chosen_families": dict(Counter(r.family for r in timed)),
        "members_combined": dict(sorted(combined.items())),  # series whose combination used each member
        "log_scale_series": sum(r.log for r in timed),
        "settings": {"months": MONTHS, "horizon": HORIZON, "backtest_origins": MAX_ORIGINS,
                     "backtest_horizon": singles[0].backtest_horizon, "n_paths": N_PATHS,
                     "members": singles[0].members, "engine": "forecasts.demand.engine"},
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
