"""Plotly figure dicts for a design under uncertain demand: the demand fan over the capacity bars,
and the cost of confidence. Plain dicts shipped with ``json_script``; static/js/charts.js draws them."""

from __future__ import annotations

from typing import Any

from planner.designs.charts import DEMAND, PALETTE, _layout

# constraint -> (quantity in the paths' quantiles, capacity field of a year's evaluation, scale, axis title)
FANS = {
    "core_hours": ("core_hours", "normalised_core_hours_at_target", 1e-6, "M core-hours / year"),
    "storage_tb": ("storage_tb", "plannable_tb", 1.0, "TB (plannable)"),
    "genomes_per_day": ("genomes_per_day", "genomes_per_day_capacity", 1.0, "genomes/day"),
}


def demand_fan(result: dict[str, Any], quantiles: dict[str, dict[Any, list[float]]], constraint: str) -> dict[str, Any]:
    """Capacity bars per year with the demand paths' 90% and 80% bands and median (joint paths)."""
    quantity, field, scale, title = FANS[constraint]
    q = {int(y): v for y, v in quantiles.get(quantity, {}).items()}
    years = [y["year"] for y in result["years"] if y["year"] in q]
    cap = {y["year"]: y.get(field, 0.0) for y in result["years"]}
    data: list[dict[str, Any]] = [
        {"type": "bar", "x": years, "y": [cap[y] * scale for y in years], "name": "capacity",
         "marker": {"color": PALETTE[0]}, "opacity": 0.85, "hovertemplate": "%{y:,.1f} capacity"},
        {"type": "scatter", "x": years + years[::-1], "y": [q[y][4] * scale for y in years]
         + [q[y][0] * scale for y in years[::-1]],
         "mode": "lines", "fill": "toself", "fillcolor": "rgba(200,112,42,0.15)",
         "line": {"width": 0}, "name": "demand 5–95%", "hoverinfo": "skip"},
        {"type": "scatter", "x": years + years[::-1], "y": [q[y][3] * scale for y in years]
         + [q[y][1] * scale for y in years[::-1]],
         "mode": "lines", "fill": "toself", "fillcolor": "rgba(200,112,42,0.30)",
         "line": {"width": 0}, "name": "demand 10–90%", "hoverinfo": "skip"},
        {"type": "scatter", "mode": "lines+markers", "x": years, "y": [q[y][2] * scale for y in years],
         "name": "demand median", "line": {"color": DEMAND, "width": 3, "dash": "dash"},
         "hovertemplate": "%{y:,.1f} median demand"},
    ]
    if years and all(q[y][0] == q[y][4] for y in years):  # one path (an entered growth rate): no band to draw
        data = [data[0], data[3] | {"name": "demand (one path, no uncertainty)"}]
    label = {"core_hours": "Compute (reference core)", "storage_tb": "Storage",
             "genomes_per_day": "Genomes/day"}[constraint]
    return {"data": data, "layout": _layout(f"{label}: capacity against the demand fan", title)}


def worst_year(shares: dict[str, float] | None) -> float | None:
    """The least of a plan's per-year shares (None when it has none)."""
    return min(shares.values()) if shares else None


def cost_of_confidence(levels: list[dict[str, Any]]) -> dict[str, Any]:
    """Plan cost against the service level it was bought for, with its two out-of-sample shares: the worst
    single year's (what the service level promises) and every year together's."""
    ok = [lv for lv in levels if lv.get("npv_usd") is not None]
    x = [round(100 * lv["alpha"]) for lv in ok]

    def share(v: float | None) -> float | None:
        return None if v is None else 100 * v

    data = [
        {"type": "scatter", "mode": "lines+markers", "x": x, "y": [lv["npv_usd"] / 1e6 for lv in ok],
         "name": "plan cost", "line": {"color": PALETTE[0], "width": 3}, "hovertemplate": "$%{y:,.2f} M"},
        {"type": "scatter", "mode": "markers", "x": x, "y": [share(worst_year(lv.get("out_of_sample"))) for lv in ok],
         "yaxis": "y2", "name": "worst single year, independent paths (%)",
         "marker": {"color": PALETTE[1], "size": 10, "symbol": "diamond"},
         "hovertemplate": "%{y:.1f}% of independent paths: the worst single year"},
        {"type": "scatter", "mode": "markers", "x": x, "y": [share(lv.get("out_of_sample_every_year")) for lv in ok],
         "yaxis": "y2", "name": "all years together, independent paths (%)",
         "marker": {"color": PALETTE[2], "size": 9, "symbol": "circle-open", "line": {"width": 2}},
         "hovertemplate": "%{y:.1f}% of independent paths: every year at once"},
    ]
    layout = _layout("The cost of confidence", "net present cost, $M",
                     xaxis={"title": {"text": "service level bought (% of demand paths, in each year)"},
                            "ticksuffix": "%"},
                     yaxis2={"title": {"text": "% of independent paths enough"}, "overlaying": "y",
                             "side": "right", "range": [0, 100], "tickmode": "linear", "dtick": 20,
                             "ticksuffix": "%", "showgrid": False})
    layout["yaxis"] = layout["yaxis"] | {"rangemode": "normal", "tickprefix": "$"}  # the differences, not zero
    layout["margin"] = layout["margin"] | {"r": 80}
    return {"data": data, "layout": layout}
