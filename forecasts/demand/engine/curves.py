"""Growth curves (``forecasts.demand.growth``) as engine members.

A curve is offered to the combination when a saturation level or capacity is known
(``capacity``: logistic and Gompertz with K fixed at it), or when a person pins one by name
(``linear``, ``exponential``, ``logistic``, ``gompertz``, ``piecewise``, ``damped``).  Each member
fits its family to the history on the original scale at every backtest origin and forecasts its
point path; the engine backtests, weights and calibrates it like any other member.
"""

from __future__ import annotations

from datetime import date

import numpy as np

from forecasts.demand.growth import ALL_FAMILIES, forecast_series

from .members import CurveMember
from .scale import FloatArray

SATURATING = ("logistic", "gompertz")


def curve_member(family: str, capacity: float | None = None) -> CurveMember:
    if family not in ALL_FAMILIES:
        raise ValueError(f"unknown growth family {family!r}; choose from {', '.join(ALL_FAMILIES)}")

    def fn(y: FloatArray, h: int) -> FloatArray:
        fc = forecast_series(y, start=date(2000, 1, 1), horizon=h, frequency="M", backtest_origins=0,
                             family=family, families=[family], n_boot=20, capacity=capacity)
        return np.asarray(fc.chosen.point_forecast, dtype=float)

    return CurveMember(family, fn, min_obs=6)


def curve_members(capacity: float | None = None, pinned: str | None = None) -> list[CurveMember]:
    """The curves to add: the saturating ones when ``capacity`` is given, and a pinned curve."""
    names = list(SATURATING) if capacity else []
    if pinned in ALL_FAMILIES and pinned not in names:
        names.append(pinned)
    return [curve_member(n, capacity if n in SATURATING else None) for n in names]
