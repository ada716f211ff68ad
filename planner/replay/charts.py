"""Plotly figure dicts for queue waits (the design page and the comparison); static/js/charts.js draws them.

Each function takes design replay results as stored (``services.design_queue_waits``) and returns a
plain dict the template ships with ``json_script``.
"""

from __future__ import annotations

from typing import Any

from planner.designs.charts import LAYOUT, PALETTE

TODAY = "#1d2733"


def _layout(title: str, xtitle: str, ytitle: str, **extra: Any) -> dict[str, Any]:
    return LAYOUT | {"title": {"text": title, "x": 0}, "hovermode": "closest",
                     "xaxis": {"title": {"text": xtitle}, "gridcolor": "#eef1f4"},
                     "yaxis": {"title": {"text": ytitle}, "gridcolor": "#eef1f4", "rangemode": "tozero"}} | extra


MINUTE_H = 1 / 60  # a log axis has no 0: waits under a minute are drawn at one minute
LEGEND_BELOW = {"legend": {"orientation": "h", "y": -0.38, "yanchor": "top"},
                "margin": {"l": 70, "r": 20, "t": 40, "b": 120}}


def _cdf_trace(entry: dict[str, Any], name: str, color: str, dash: str = "solid") -> dict[str, Any]:
    x = [max(h, MINUTE_H) for h in entry.get("cdf_hours", [])]
    return {"type": "scatter", "mode": "lines", "name": name, "x": x,
            "y": [100 * f for f in entry.get("cdf_fraction", [])], "line": {"color": color, "width": 2.5, "dash": dash},
            "hovertemplate": "%{y:.1f} % of jobs wait at most %{x:.2f} h<extra>" + name + "</extra>"}


def wait_cdf(results: list[tuple[str, dict[str, Any]]], year: int | None = None) -> dict[str, Any]:
    """Share of jobs waiting at most x hours: today's cluster, then each design in ``year`` (default: its last)."""
    data: list[dict[str, Any]] = []
    if results:
        data.append(_cdf_trace(results[0][1]["today"], f"today's {results[0][1]['cluster']}", TODAY, "dash"))
    for i, (label, res) in enumerate(results):
        rows = [r for r in res["years"] if "median" in r and (year is None or r["year"] == year)]
        if not rows:
            continue
        row = rows[-1]
        data.append(_cdf_trace(row["median"], f"{label} {row['year']}", PALETTE[i % len(PALETTE)]))
    title = "Queue waits: share of jobs that wait at most x hours (median growth)"
    xtitle = "wait, hours (log scale; under a minute drawn at 1 min)"
    return {"data": data, "layout": _layout(title, xtitle, "% of jobs", **LEGEND_BELOW,
                                            xaxis={"type": "log", "title": {"text": xtitle},
                                                   "gridcolor": "#eef1f4"},
                                            yaxis={"range": [0, 100.5], "title": {"text": "% of jobs"},
                                                   "gridcolor": "#eef1f4"})}


YEAR_COLOURS = ["#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"]


def wait_cdf_by_year(res: dict[str, Any]) -> dict[str, Any]:
    """One design's wait distribution each year (median growth), today's cluster dashed."""
    data = [_cdf_trace(res["today"], f"today's {res['cluster']}", TODAY, "dash")]
    rows = [r for r in res["years"] if "median" in r]
    for i, row in enumerate(rows):
        colour = YEAR_COLOURS[min(len(YEAR_COLOURS) - 1, round(i * (len(YEAR_COLOURS) - 1) / max(len(rows) - 1, 1)))]
        data.append(_cdf_trace(row["median"], str(row["year"]), colour))
    xtitle = "wait, hours (log scale; under a minute drawn at 1 min)"
    return {"data": data, "layout": _layout("Queue waits each year: share of jobs that wait at most x hours",
                                            xtitle, "% of jobs", **LEGEND_BELOW,
                                            xaxis={"type": "log", "title": {"text": xtitle}, "gridcolor": "#eef1f4"},
                                            yaxis={"range": [0, 100.5], "title": {"text": "% of jobs"},
                                                   "gridcolor": "#eef1f4"})}


def p95_by_year(results: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """95th-percentile wait per year for each design (P10-P90 growth as error bars), today's as a line."""
    data: list[dict[str, Any]] = []
    years: list[int] = []
    for i, (label, res) in enumerate(results):
        rows = [r for r in res["years"] if "median" in r]
        years = sorted(set(years) | {r["year"] for r in rows})
        mid = [r["median"]["p95_wait"] / 3600 for r in rows]
        lo = [r["p10"]["p95_wait"] / 3600 for r in rows]
        hi = [r["p90"]["p95_wait"] / 3600 for r in rows]
        data.append({"type": "scatter", "mode": "lines+markers", "name": label, "x": [r["year"] for r in rows],
                     "y": mid, "line": {"color": PALETTE[i % len(PALETTE)], "width": 3},
                     "error_y": {"type": "data", "symmetric": False,
                                 "array": [h - m for h, m in zip(hi, mid, strict=True)],
                                 "arrayminus": [m - low for m, low in zip(mid, lo, strict=True)]},
                     "hovertemplate": "%{x}: p95 wait %{y:.2f} h<extra>" + label + "</extra>"})
    if results and years:
        today = results[0][1]["today"]["p95_wait"] / 3600
        data.append({"type": "scatter", "mode": "lines", "name": f"today's {results[0][1]['cluster']}",
                     "x": [years[0], years[-1]], "y": [today, today], "line": {"color": TODAY, "dash": "dash"}})
    return {"data": data, "layout": _layout("95th-percentile queue wait per year (bars: P10-P90 growth)", "year",
                                            "hours", xaxis={"dtick": 1}, **LEGEND_BELOW)}
