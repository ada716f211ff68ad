"""Plotly figure dicts for usage pages (built in Python, drawn by static/js/charts.js).

Only plain dicts and lists: the templates ship them with ``json_script`` and the
``.json`` endpoints return them as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import date, datetime, timedelta
from typing import Any

from forecasts.usage.cache import rollup_cached
from forecasts.usage.selectors import usage_monthly_by_department

# A qualitative palette readable on white; the Unassigned bucket is always grey.
PALETTE = ["#1f6feb", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#d6336c", "#5c940d",
           "#7048e8", "#c2255c", "#1098ad", "#a61e4d"]
UNASSIGNED_COLOUR = "#adb5bd"


def usage_area_figure(rows: Iterable[dict[str, Any]], *, title: str = "Core-hours per month by department",
                      leave_out: Collection[date] = ()) -> dict[str, Any]:
    """Stacked area of monthly core-hours, one trace per department (largest first).

    ``rows`` are ``usage_monthly_by_department`` rows: month, department__code,
    department__name, core_hours.  Months missing for a department are drawn as zero so
    the stack never dips to another department's line; ``leave_out``: months drawn apart (partial ones), not
    zero-filled into the area.
    """
    rows = list(rows)
    months: list[date] = [m for m in month_range({r["month"] for r in rows}) if m not in leave_out]
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


def month_range(months: Collection[date]) -> list[date]:
    """Every month from the first to the last: a month inside the range without rows had no jobs loaded and is
    drawn as zero (as the usage forecasts count it), not left out for Plotly to bridge with invented values."""
    if not months:
        return []
    first, last = min(months), max(months)
    out = [first]
    while out[-1] < last:
        m = out[-1]
        out.append(date(m.year + m.month // 12, m.month % 12 + 1, 1))
    return out


def _month_ticks(n_months: int) -> dict[str, str]:
    """A tick per quarter up to three years; Plotly's own choice beyond."""
    if n_months <= 36:
        return {"dtick": "M3"}
    return {}


@rollup_cached
def usage_figure(*, title: str = "Core-hours per month by department", before: date | None = None,
                 partial: tuple[date, datetime] | None = None,
                 partials: tuple[tuple[date, datetime], ...] = (), **filters: Any) -> dict[str, Any]:
    """``usage_area_figure`` of the person's ``usage_monthly_by_department(**filters)`` (months before
    ``before`` only, when given), cached with the rows it is drawn from: until the rollups change.

    ``partial``: (month, logs' end) when the accounting logs end inside that month: it is left out of the
    stacked area (a month of a few days would draw a cliff) and drawn apart as faded stacked bars, per
    department, its usage so far (hover and legend say "partial").  ``partials``: more such months, one per
    cluster whose logs end in another month than the latest's (the all-clusters view), each drawn apart too."""
    rows = usage_monthly_by_department(**filters)
    apart = sorted({p[0]: p for p in (*partials, *((partial,) if partial is not None else ()))}.values())
    cut = apart[-1][0] if apart else before
    months_apart = {p[0] for p in apart}
    whole = [r for r in rows if r["month"] < cut and r["month"] not in months_apart] if cut is not None else rows
    figure = usage_area_figure(whole, title=title, leave_out=months_apart)
    whole_months = len(set(month_range({r["month"] for r in whole})) - months_apart)
    for p in apart:
        _partial_bars(figure, [r for r in rows if r["month"] == p[0]], p, whole_months=whole_months)
    xaxis = figure["layout"]["xaxis"]
    if len(apart) > 1 and xaxis.get("type") == "date":
        # bars in two months far apart: Plotly pads a date axis by half their distance (the partial months
        # of 2020-01 and 2024-05 stretched it to mid 2026); the range is the data's, half a month each side
        first = min([r["month"] for r in whole] + [p[0] for p in apart])
        xaxis["range"] = [(first - timedelta(days=16)).isoformat(), (apart[-1][0] + timedelta(days=16)).isoformat()]
    return figure


def _partial_bars(figure: dict[str, Any], rows: list[dict[str, Any]], partial: tuple[date, datetime],
                  whole_months: int) -> None:
    """The usage figure's partial month (``rows``: its ``usage_monthly_by_department`` rows), per department."""
    by_code: dict[str, float] = {}
    names: dict[str, str] = {}
    for r in rows:
        by_code[r["department__code"]] = by_code.get(r["department__code"], 0.0) + float(r["core_hours"] or 0)
        names[r["department__code"]] = r["department__name"]
    order = sorted(by_code, key=lambda c: (c == "unassigned", -by_code[c]))
    short = whole_months <= 12
    partial_month_bars(
        figure, [(names[c], round(by_code[c], 2), UNASSIGNED_COLOUR if c == "unassigned" else PALETTE[i % len(PALETTE)])
                 for i, c in enumerate(order)],
        x=partial[0].strftime("%b %Y") if short else partial[0].isoformat()[:7],
        label=f"{partial[0]:%b %Y} so far (logs end {partial[1]:%-d %b})", date_axis=not short, unit="core-hours ")


def partial_month_bars(figure: dict[str, Any], so_far: list[tuple[str, float, str]], *, x: str, label: str,
                       date_axis: bool, unit: str = "") -> None:
    """A month the logs end inside, drawn apart from a stacked-area figure: faded bars stacked per series of its
    value so far, each in its area's legend group and colour (``so_far``: name, value, colour when the name has
    no area), and a "partial" note above it. Nothing when no value is positive."""
    if not any(v > 0 for _, v, _ in so_far):
        return
    # the areas' colours; bars of an earlier partial month (the all-clusters view has one per cluster) keep theirs
    colours = {t["name"]: t["line"]["color"] if "line" in t else t["marker"]["color"] for t in figure["data"]}
    for t in figure["data"]:
        t["legendgroup"] = t["name"]
    for name, value, colour in so_far:
        figure["data"].append({
            "type": "bar", "x": [x], "y": [value], "name": name, "legendgroup": name,
            "showlegend": name not in colours, "marker": {"color": colours.get(name, colour), "opacity": 0.4},
            "width": 20 * 86_400_000 if date_axis else 0.6,  # 20 days on a date axis, or a category's share
            "hovertemplate": "%{y:,.0f} " + unit + "so far<extra>" + name + ", partial month</extra>",
        })
    layout = figure["layout"]
    layout["barmode"] = "stack"
    # the note ends at the partial month (xanchor right): centred on it, Plotly's autorange stretched the axis about
    # four months past the data to fit the note's right half
    layout["annotations"] = [*layout.get("annotations", []),
                             {"x": x, "y": 1.0, "yref": "paper", "yanchor": "bottom", "xanchor": "right",
                              "showarrow": False, "text": f"partial: {label}",
                              "font": {"size": 11, "color": "#495057"}}]
