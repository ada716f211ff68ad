"""Growth models for usage series (pure core: numpy/scipy only, no Django).

    from forecasts.demand.growth import fit_series, forecast_series

``fit_series`` fits the families (linear, exponential, logistic, Gompertz, piecewise linear,
damped trend) to one series; ``forecast_series`` also backtests them, chooses one and
simulates prediction intervals and calendar-year aggregates.  See ``core.py`` for the method.
"""

from .calendar import FREQUENCIES, add_months, period_dates, series_from_points
from .core import choose_log, fit_series, forecast_series
from .families import ALL_FAMILIES
from .results import FitResult, Forecast, ForecastStep, YearAggregate

__all__ = [
    "ALL_FAMILIES",
    "FREQUENCIES",
    "FitResult",
    "Forecast",
    "ForecastStep",
    "YearAggregate",
    "add_months",
    "choose_log",
    "fit_series",
    "forecast_series",
    "period_dates",
    "series_from_points",
]
