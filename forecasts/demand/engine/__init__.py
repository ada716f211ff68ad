"""Forecasting engine (pure core: numpy, scipy, statsforecast; no Django).

    from forecasts.demand.engine import forecast

``forecast`` fits the statistical members (AutoETS, damped ETS, Theta, dynamic optimised Theta,
AutoARIMA, random walk with drift; growth curves plug in as ``CurveMember``), backtests them
from rolling origins at the requested horizon, combines the best by the per-step median and
calibrates 80% and 95% intervals on the backtest errors (conformal).  ``panel`` forecasts or
scores every series of a long CSV in parallel, with a global model learned across the panel's
series (``pooled.py``: its windows; ``gbm.py``: gradient-boosted trees) blended in.  See
``core.py`` and docs/forecasting.md.
"""

from .core import DEFAULT_K, MIN_PERIODS, forecast, growth_rate_projection, min_periods
from .members import ALL_MEMBERS, STAT_MEMBERS, CurveMember, Member
from .results import EngineForecast, MemberResult, ShortHistoryError, Step
from .scale import choose_log

__all__ = [
    "ALL_MEMBERS",
    "DEFAULT_K",
    "MIN_PERIODS",
    "STAT_MEMBERS",
    "CurveMember",
    "EngineForecast",
    "Member",
    "MemberResult",
    "ShortHistoryError",
    "Step",
    "choose_log",
    "forecast",
    "growth_rate_projection",
    "min_periods",
]
