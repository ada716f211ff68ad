"""How far ahead a usage forecast may look: one rule for the series picker, refit-all and the API. Pure."""

from __future__ import annotations

from typing import Any

HORIZON_MONTHS_MIN = 1
HORIZON_MONTHS_MAX = 240  # the API's limit before the picker shared it (clients keep working)
HORIZON_MONTHS_DEFAULT = 36
HORIZON_RULE = f"a whole number of months from {HORIZON_MONTHS_MIN} to {HORIZON_MONTHS_MAX}"


class HorizonError(ValueError):
    """A horizon that is not a whole number of months in range; the message names the range."""


def horizon_months(value: Any) -> tuple[int, bool]:
    """(months, defaulted): blank is the default (and says so: ``defaulted``); anything else must be a
    whole number in range, refused otherwise rather than clamped (a typo must not become another horizon)."""
    text = "" if value is None else str(value).strip()
    if not text:
        return HORIZON_MONTHS_DEFAULT, True
    try:
        months = int(text)
    except ValueError:
        raise HorizonError(f"horizon: expected {HORIZON_RULE}, got {text[:40]!r}") from None
    if not HORIZON_MONTHS_MIN <= months <= HORIZON_MONTHS_MAX:
        raise HorizonError(f"horizon: expected {HORIZON_RULE}, got {months}")
    return months, False
