"""Time one forecast: a 60-month series with every member, the backtest, calibrated intervals
and 1,000 sample paths.

    python -m forecasts.demand.engine.bench [--months 60] [--repeat 5]

The series is synthetic (3% growth a month, 5% noise, a 10% seasonal swing; seed 0).  Prints the
median and the fastest of ``repeat`` runs after one warm-up (statsforecast compiles on first use),
and the 1-minute load average, since a shared machine slows everything.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from .core import forecast


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m forecasts.demand.engine.bench")
    p.add_argument("--months", type=int, default=60)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    t = np.arange(a.months)
    y = 1e6 * np.exp(0.03 * t + 0.05 * rng.standard_normal(a.months)) * (1 + 0.1 * np.sin(2 * np.pi * t / 12))
    forecast(y, 12, season_length=12, n_paths=1000)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        fc = forecast(y, 12, season_length=12, n_paths=1000)
        times.append(time.perf_counter() - t0)
    print(f"{a.months}-month series, {len(fc.members)} members, {fc.backtest_origins} origins x "
          f"h={fc.backtest_horizon}, 1000 paths: median {statistics.median(times):.3f} s, fastest {min(times):.3f} s "
          f"(load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
