"""Result dataclasses of the growth models; every one serialises with ``to_dict()`` to plain JSON
(NaN and infinities become ``None``)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


def clean(value: Any) -> Any:
    """Recursively replace non-finite floats by None (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


@dataclass
class FitResult:
    """One family fitted to one series.

    ``params`` are on the working scale: natural-log units when ``log`` is true (e.g. a
    linear ``slope`` of 0.02 is 2% growth per period), series units otherwise; times (``tc``,
    ``break_1``, ``midpoint``) are in periods of ``t``.  ``sigma`` is the residual standard
    deviation on the working scale.  ``fitted`` holds model values (series units) at every
    period, gaps included.  ``mase``/``smape``/``coverage80`` are filled by the backtest
    (None when no backtest ran); ``point_forecast`` (series units) by ``forecast_series``.
    """

    family: str
    params: dict[str, float]
    n_params: int  # mean-curve parameters counted by AICc (breakpoints included; sigma not)
    n_obs: int
    aicc: float
    sigma: float
    log: bool
    converged: bool
    message: str
    fitted: list[float]
    mase: float = math.nan
    smape: float = math.nan
    coverage80: float = math.nan
    backtest_origins: int = 0
    point_forecast: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean(asdict(self))  # type: ignore[no-any-return]


@dataclass
class ForecastStep:
    """Quantiles of the simulated paths for one future period (series units)."""

    date: str  # ISO date of the period's first day
    index: int  # period index counted from the series start
    mean: float
    median: float
    p2_5: float
    p10: float
    p90: float
    p97_5: float


@dataclass
class YearAggregate:
    """A calendar year's figure computed path by path, then summarised.

    With ``aggregate='sum'`` (flows such as core-hours per month) each path's year total adds
    the observed values of that year (fitted values stand in for gaps) to the path's future
    values; with ``'last'`` (stocks such as TB stored) it is the year's last period; with
    ``'mean'`` the mean over the year's periods.  ``complete`` is false when the year is not
    fully covered by observations plus forecast.
    """

    year: int
    median: float
    p10: float
    p90: float
    mean: float
    periods_observed: int
    periods_forecast: int
    complete: bool


@dataclass
class Forecast:
    """A series' growth forecast: the chosen family, how it was chosen, and its intervals.

    ``selection`` is ``'backtest'`` (lowest rolling-origin MASE), ``'aicc'`` (lowest AICc,
    used when the series is too short to backtest or when asked) or ``'override'`` (the
    caller named the family).  ``fits`` lists every family that could be fitted, best first by
    the selection score; ``skipped`` says why the others could not.  ``paths`` (series units,
    n_boot x horizon) is filled only when requested.
    """

    family: str
    selection: str
    reason: str
    log: bool
    log_reason: str
    frequency: str
    start: str
    horizon: int
    n_boot: int
    seed: int
    aggregate: str
    backtest_horizon: int
    backtest_origins: int
    seasonal_period: int
    history_dates: list[str]
    history: list[float]
    fits: list[FitResult]
    steps: list[ForecastStep]
    yearly: list[YearAggregate]
    skipped: dict[str, str] = field(default_factory=dict)
    paths: list[list[float]] | None = None

    @property
    def chosen(self) -> FitResult:
        return next(f for f in self.fits if f.family == self.family)

    def to_dict(self) -> dict[str, Any]:
        return clean(asdict(self))  # type: ignore[no-any-return]
