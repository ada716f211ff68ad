"""Future years: more work arriving per unit of time (pure, no Django).

Method (docs/replay.md): a design's year Y is replayed with the last whole year's jobs, their
arrival rate multiplied by the forecast's growth g from that year to Y. Every inter-arrival time
is divided by g: submit'_i = s_0 + floor((s_i - s_0) / g). Each job keeps its own size, run time
and requested time, the order of arrivals is kept (the map is monotone), and the offered load
(processor-seconds per second) grows by g. The year's jobs then arrive in 1/g of the year, so the
replayed period is shorter when g > 1; waits, slowdown and utilisation are rates and compare
directly. The same scaling with g < 1 thins the load.
"""

from __future__ import annotations

import math

import numpy as np

from planner.replay.workload import I64, ReplayInputError


def scale_arrivals(submit_s: I64, load_scale: float) -> I64:
    """Submit times with every gap from the first submit divided by ``load_scale``."""
    if not (load_scale > 0 and math.isfinite(load_scale)):
        raise ReplayInputError(f"load scale {load_scale}: must be a finite number > 0")
    if len(submit_s) == 0 or load_scale == 1.0:
        return submit_s
    first = int(submit_s.min())
    return first + np.floor((submit_s - first) / load_scale).astype(np.int64)


def growth_factor(base_year_value: float, target_year_value: float) -> float:
    """The load scale for a target year: forecast demand that year over the base year's."""
    if not (base_year_value > 0 and target_year_value > 0):
        raise ReplayInputError(
            f"growth factor: forecast values must be > 0 (base {base_year_value}, target {target_year_value})"
        )
    return target_year_value / base_year_value
