"""Plotly figure dicts for chargeback pages (drawn by static/js/charts.js)."""

from __future__ import annotations

from typing import Any

COMPUTE = "#2f6db5"
STORAGE = "#e39b2d"
ADJUST = "#8c8c8c"


def ytd_figure(rows: list[dict[str, Any]], department: str, year: int) -> dict[str, Any]:
    """Monthly charges stacked compute + storage, with subsidies/caps below zero and the net as a line."""
    months = [f"{r['month']:%Y-%m}" for r in rows]
    compute = [float(r["compute_usd"]) for r in rows]
    storage = [float(r["storage_usd"]) for r in rows]
    adjust = [float(r["adjustments_usd"]) for r in rows]
    net = [float(r["total_usd"]) for r in rows]
    money = "$%{y:,.2f}"
    data: list[dict[str, Any]] = [
        {"type": "bar", "name": "Compute", "x": months, "y": compute, "marker": {"color": COMPUTE},
         "hovertemplate": "%{x} compute " + money + "<extra></extra>"},
        {"type": "bar", "name": "Storage", "x": months, "y": storage, "marker": {"color": STORAGE},
         "hovertemplate": "%{x} storage " + money + "<extra></extra>"},
    ]
    if any(adjust):
        data.append({"type": "bar", "name": "Subsidy / cap", "x": months, "y": adjust, "marker": {"color": ADJUST},
                     "hovertemplate": "%{x} adjustments " + money + "<extra></extra>"})
    data.append({"type": "scatter", "mode": "lines+markers", "name": "Charged (net)", "x": months, "y": net,
                 "line": {"color": "#222", "width": 2}, "hovertemplate": "%{x} charged " + money + "<extra></extra>"})
    return {
        "data": data,
        "layout": {
            "title": {"text": f"{department}: monthly charges, {year}"},
            "barmode": "relative",
            "yaxis": {"title": {"text": "US dollars"}, "tickprefix": "$", "separatethousands": True},
            "xaxis": {"title": {"text": "month (UTC, by job end)"}, "type": "category"},
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50, "r": 20, "b": 80, "l": 70},
        },
    }
