"""How far ahead a usage forecast may look: one rule for the series picker, refit-all and the API; and which
forecast years are whole. Pure."""

from __future__ import annotations

from typing import Any

HORIZON_MONTHS_MIN = 1
HORIZON_MONTHS_MAX = 240  # the API's limit before the picker shared it (clients keep working)
HORIZON_MONTHS_DEFAULT = 36
HORIZON_RULE = f"a whole number of months from {HORIZON_MONTHS_MIN} to {HORIZON_MONTHS_MAX}"


def whole_forecast_years(yearly: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A fit's yearly rows that hold forecast months and are whole years (12 months observed + forecast):
    the only ones quoted as a year's figure (a part year never is)."""
    return [y for y in yearly if y.get("periods_forecast") and y.get("complete", True)]


class HorizonError(ValueError):
    """A horizon that is not a whole number of months in range; the message names the range."""


def horizon_months(value: Any) -> tuple[int, bool]:
    """(months, defaulted): blank is the default (and says so: ``defaulted``); anything else must be a
    whole number in range, refused otherwise rather than clamped (a typo must not become another horizon)."""
    return _whole(value, HORIZON_MONTHS_DEFAULT, HORIZON_MONTHS_MAX, HORIZON_RULE)


HORIZON_PERIODS_DEFAULT = 5  # an external series' own periods (years, quarters, months ...), as the API's default
HORIZON_PERIODS_RULE = f"a whole number of periods from 1 to {HORIZON_MONTHS_MAX}"


def horizon_periods(value: Any) -> int:
    """An external series' horizon in its own periods: the same rule as :func:`horizon_months` (blank: 5)."""
    return _whole(value, HORIZON_PERIODS_DEFAULT, HORIZON_MONTHS_MAX, HORIZON_PERIODS_RULE)[0]


BACKTEST_ORIGINS_DEFAULT, BACKTEST_ORIGINS_MAX = 12, 60  # as the API's external-series forecast


def backtest_origins(value: Any) -> int:
    """How many rolling backtest origins an external series' refit asks for: blank is 12, else 0-60 (0: none)."""
    rule = f"a whole number of origins from 0 to {BACKTEST_ORIGINS_MAX}"
    return _whole(value, BACKTEST_ORIGINS_DEFAULT, BACKTEST_ORIGINS_MAX, rule, what="backtest", low=0)[0]


def _whole(value: Any, default: int, high: int, rule: str, what: str = "horizon",
           low: int = HORIZON_MONTHS_MIN) -> tuple[int, bool]:
    text = "" if value is None else str(value).strip()
    if not text:
        return default, True
    try:
        number = int(text)
    except ValueError:
        raise HorizonError(f"{what}: expected {rule}, got {text[:40]!r}") from None
    if not low <= number <= high:
        raise HorizonError(f"{what}: expected {rule}, got {number}")
    return number, False
