"""Plotly figure dicts for usage pages (built in Python, drawn by static/js/charts.js).

Only plain dicts and lists: the templates ship them with ``json_script`` and the
``.json`` endpoints return them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from forecasts.usage.cache import rollup_cached
from forecasts.usage.selectors import usage_monthly_by_department

# A qualitative palette readable on white; the Unassigned bucket is always grey.
PALETTE = ["#1f6feb", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#d6336c", "#5c940d",
           "#7048e8", "#c2255c", "#1098ad", "#a61e4d"]
UNASSIGNED_COLOUR = "#adb5bd"


def usage_area_figure(rows: Iterable[dict[str, Any]], *, title: str = "Core-hours per month by department"
                      ) -> dict[str, Any]:
    """Stacked area of monthly core-hours, one trace per department (largest first).

    ``rows`` are ``usage_monthly_by_department`` rows: month, department__code,
    department__name, core_hours.  Months missing for a department are drawn as zero so
    the stack never dips to another department's line.
    """
    rows = list(rows)
    months: list[date] = sorted({r["month"] for r in rows})
    totals: dict[str, float] = {}
    names: dict[str, str] = {}
    series: dict[str, dict[date, float]] = {}
    for r in rows:
        code = r["department__code"]
        names[code] = r["department__name"]
        series.setdefault(code, {})[r["month"]] = float(r["core_hours"] or 0)
        totals[code] = totals.get(code, 0.0) + float(r["core_hours"] or 0)
    order = sorted(series, key=lambda c: (c == "unassigned", -totals[c]))
    # Short series on a category axis labelled "Jan 2024" (a date axis labels the first month
    # only); longer ones on a date axis that thins its ticks.
    short = len(months) <= 12
    x = [m.strftime("%b %Y") if short else m.isoformat()[:7] for m in months]
    data = []
    for i, code in enumerate(order):
        colour = UNASSIGNED_COLOUR if code == "unassigned" else PALETTE[i % len(PALETTE)]
        data.append({
            "type": "scatter", "mode": "lines", "stackgroup": "usage", "name": names[code],
            "x": x, "y": [round(series[code].get(m, 0.0), 2) for m in months],
            "line": {"width": 0.5, "color": colour}, "fillcolor": colour,
            "hovertemplate": "%{x}: %{y:,.0f} core-hours<extra>" + names[code] + "</extra>",
        })
    return {
        "data": data,
        "layout": {
            "title": {"text": title, "x": 0, "font": {"size": 16}},
            "xaxis": {"title": {"text": "month (UTC, by job end)"},
                      **({"type": "category"} if short else {"type": "date", "tickformat": "%b %Y",
                                                              **_month_ticks(len(x))})},
            "yaxis": {"title": {"text": "core-hours"}, "rangemode": "tozero", "tickformat": ",.0f"},
            "hovermode": "x unified",
            "showlegend": True,  # even with one department: a viewer must see whose usage it is
            "legend": {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0},
            "margin": {"l": 70, "r": 40, "t": 50, "b": 40},
        },
    }


def _month_ticks(n_months: int) -> dict[str, str]:
    """A tick per quarter up to three years; Plotly's own choice beyond."""
    if n_months <= 36:
        return {"dtick": "M3"}
    return {}


@rollup_cached
def usage_figure(*, title: str = "Core-hours per month by department", before: date | None = None,
                 **filters: Any) -> dict[str, Any]:
    """``usage_area_figure`` of the person's ``usage_monthly_by_department(**filters)`` (months before
    ``before`` only, when given), cached with the rows it is drawn from: until the rollups change."""
    rows = usage_monthly_by_department(**filters)
    if before is not None:
        rows = [r for r in rows if r["month"] < before]
    return usage_area_figure(rows, title=title)
