"""Speed benchmark of the growth models (pure core; a management command may wrap ``main``).

Measures one 60-month series with every family, 500-path intervals and a 12-origin backtest
on one core, and 100 such series on 2 worker processes; prints one JSON object.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import date

import numpy as np

from forecasts.demand.growth import forecast_series

START = date(2015, 1, 1)


def synthetic_series(i: int, n: int = 60) -> np.ndarray:
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
    out: np.ndarray = y * np.exp(rng.normal(0, 0.05, n))
    return out


def _one(i: int) -> str:
    return _timed(i)[0]


def _timed(i: int) -> tuple[str, float]:
    """Chosen family and the CPU seconds this process spent on series ``i``."""
    c0 = time.process_time()
    fam = forecast_series(
        synthetic_series(i), start=START, horizon=36, backtest_origins=12, n_boot=500, seed=i
    ).family
    return fam, time.process_time() - c0


def main(n_series: int = 100, workers: int = 2) -> dict[str, object]:
    """Run the benchmark and print (and return) its JSON summary."""
    _one(0)  # warm imports and caches
    singles = []
    for i in range(5):
        t0 = time.perf_counter()
        _one(i)
        singles.append(time.perf_counter() - t0)
    # one BLAS thread per worker process: the work is many small arrays, threads only contend
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        timed = list(pool.map(_timed, range(n_series)))
    families = [f for f, _ in timed]
    batch = time.perf_counter() - t0
    result: dict[str, object] = {
        "single_series_s": {"max": round(max(singles), 3), "median": round(float(np.median(singles)), 3)},
        "batch": {
            "series": n_series,
            "workers": workers,
            "seconds": round(batch, 2),
            # wall time on an idle machine is about cpu_seconds / workers
            "cpu_seconds": round(sum(c for _, c in timed), 2),
        },
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "chosen_families": {f: families.count(f) for f in sorted(set(families))},
        "settings": {"months": 60, "horizon": 36, "backtest_origins": 12, "n_boot": 500, "families": "all"},
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
