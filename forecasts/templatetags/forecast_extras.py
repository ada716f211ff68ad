"""Number formatting for the forecast pages: NaN/None become a dash, not 'nan'."""

from __future__ import annotations

import math
from typing import Any

from django import template

from forecasts.demand.engine.timestamps import TimestampError, period_name

register = template.Library()


def _finite(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


@register.filter
def num(value: Any, digits: int = 2) -> str:
    v = _finite(value)
    return "–" if v is None else f"{v:,.{int(digits)}f}"


@register.filter
def pct(value: Any, digits: int = 0) -> str:
    v = _finite(value)
    return "–" if v is None else f"{100 * v:.{int(digits)}f}%"


@register.filter
def figs(value: Any) -> str:
    """Whole units with thousands separators from 100 up, three significant figures below, no suffix: one style
    for a row of figures spanning scales (2,503 / 1,300 / 24,576 / 22.6 / 0.0123)."""
    v = _finite(value)
    if v is None:
        return "–"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


@register.filter
def sig(value: Any) -> str:
    """Three significant figures with M/k suffixes for large numbers (12.3 M, 456 k, 0.0123)."""
    v = _finite(value)
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:.3g} G"
    if a >= 1e6:
        return f"{v / 1e6:.3g} M"
    if a >= 1e4:
        return f"{v / 1e3:.3g} k"
    if a >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def period(value: Any, frequency: str = "M") -> str:
    """An ISO date (a step's or an origin's) named as the series' period: ``2016`` for a yearly series,
    ``2016-H1`` half-yearly, ``2016-Q1`` quarterly, ``2016-01`` monthly (what the page's KPIs and tables show)."""
    text = str(value or "")
    try:
        return period_name(text[:10], frequency)
    except TimestampError:
        return text


@register.filter
def member(code: Any) -> str:
    """An engine member's or method's code in words ('ets_damped_orig' -> 'damped ETS on the original scale')."""
    from forecasts.demand.engine.labels import member_words

    return member_words(str(code))


@register.filter
def plain_method(text: Any) -> str:
    """The engine's method string with its member codes in words."""
    from forecasts.demand.engine.labels import plain_method as words

    return words(str(text))
