"""Plotly figure dicts for the forecast pages (built here, shipped with json_script, drawn by
static/js/charts.js).  Every axis names its units; core-hour axes name the reference core."""

from __future__ import annotations

from datetime import date
from typing import Any

from forecasts.demand.growth import add_months

BAND95 = "rgba(31, 119, 180, 0.12)"
BAND80 = "rgba(31, 119, 180, 0.25)"
BLUE = "#1f77b4"
ASSAY_COLOURS = ("#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
FAMILY_COLOURS = {
    "linear": "#7f7f7f", "exponential": "#bcbd22", "logistic": "#17becf", "gompertz": "#e377c2",
    "piecewise": "#8c564b", "damped": "#9467bd",
    "ets": "#ff7f0e", "ets_damped": "#d62728", "theta": "#2ca02c", "dotm": "#98df8a", "arima": "#c5b0d5",
    "rwd": "#c49c94",
}


def _layout(title: str, y_title: str, x_title: str = "month", **extra: Any) -> dict[str, Any]:
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.2},
        "margin": {"l": 80, "r": 20, "t": 50, "b": 40},
        "height": 460,
        "hovermode": "x unified",
    }
    layout.update(extra)
    return layout


def _band(x: list[str], lo: list[float], hi: list[float], colour: str, name: str) -> list[dict[str, Any]]:
    return [
        {"x": x, "y": hi, "type": "scatter", "mode": "lines", "line": {"width": 0}, "showlegend": False,
         "hoverinfo": "skip", "name": name + " upper"},
        {"x": x, "y": lo, "type": "scatter", "mode": "lines", "line": {"width": 0}, "fill": "tonexty",
         "fillcolor": colour, "name": name},
    ]


def fan_chart(result: dict[str, Any], *, units: str, title: str, convention: str = "",
              capacity: list[tuple[date, float]] | None = None,
              plan_stack: dict[str, Any] | None = None) -> dict[str, Any]:
    """History as points, every family's fit as thin lines, the chosen one with 80/95% bands,
    optionally the sequencer-driven demand stacked by assay and today's capacity as a line."""
    hx = result["history_dates"]
    fx = [s["date"] for s in result["steps"]]
    steps = result["steps"]
    data: list[dict[str, Any]] = []
    data += _band(fx, [s["p2_5"] for s in steps], [s["p97_5"] for s in steps], BAND95, "95% interval")
    data += _band(fx, [s["p10"] for s in steps], [s["p90"] for s in steps], BAND80, "80% interval")
    for f in result["fits"]:
        chosen = f["family"] == result["family"]
        data.append({
            "x": hx + fx, "y": f["fitted"] + f["point_forecast"], "type": "scatter", "mode": "lines",
            "name": f"{f['family']} (chosen)" if chosen else f["family"],
            "line": {"width": 2.5 if chosen else 1, "color": BLUE if chosen else FAMILY_COLOURS.get(f["family"]),
                     "dash": "solid" if chosen else "dot"},
            "opacity": 1 if chosen else 0.7,
            "visible": True if chosen else "legendonly" if len(result["fits"]) > 4 else True,
        })
    data.append({"x": fx, "y": [s["median"] for s in steps], "type": "scatter", "mode": "lines",
                 "name": "median forecast", "line": {"color": BLUE, "width": 2.5, "dash": "dash"}})
    data.append({"x": hx, "y": result["history"], "type": "scatter", "mode": "markers", "name": "observed",
                 "marker": {"color": "#222", "size": 5}})
    partial = result.get("partial_period")
    if partial:
        data.append({"x": [partial["month"]], "y": [partial["value"]], "type": "scatter", "mode": "markers",
                     "name": f"partial month (logs end {str(partial.get('logs_end') or '')[:10]}): not fitted",
                     "marker": {"color": "#999", "size": 8, "symbol": "circle-open"}})
    if plan_stack:
        for i, (assay, ys) in enumerate(plan_stack["core_hours_ref"].items()):
            data.append({"x": plan_stack["months"], "y": ys, "type": "scatter", "mode": "lines",
                         "stackgroup": "plan", "name": f"sequencer plan: {assay}",
                         "line": {"width": 0.5, "color": ASSAY_COLOURS[i % len(ASSAY_COLOURS)]}, "opacity": 0.5})
    if capacity:
        end = fx[-1] if fx else hx[-1]
        xs: list[str] = []
        ys: list[float] = []
        for i, (since, ch) in enumerate(capacity):
            until = capacity[i + 1][0].isoformat() if i + 1 < len(capacity) else end
            xs += [max(since.isoformat(), hx[0]), until]
            ys += [ch, ch]
        data.append({"x": xs, "y": ys, "type": "scatter", "mode": "lines", "name": "capacity (cores x 730 h)",
                     "line": {"color": "#d62728", "width": 2}})
    y_title = units + (f" — {convention}" if convention else "")
    return {"data": data, "layout": _layout(title, y_title)}


def backtest_chart(bt: dict[str, Any], *, history: dict[str, Any], units: str, title: str) -> dict[str, Any]:
    """What we would have predicted from the origin, and what happened."""
    data = []
    data += _band(bt["dates"], bt["p2_5"], bt["p97_5"], BAND95, "95% interval (then)")
    data += _band(bt["dates"], bt["p10"], bt["p90"], BAND80, "80% interval (then)")
    data.append({"x": bt["dates"], "y": bt["median"], "type": "scatter", "mode": "lines",
                 "name": f"predicted from {bt['origin'][:7]}", "line": {"color": BLUE, "dash": "dash"}})
    data.append({"x": history["dates"], "y": history["values"], "type": "scatter", "mode": "markers+lines",
                 "name": "what happened", "line": {"color": "#222", "width": 1}, "marker": {"size": 5}})
    return {"data": data, "layout": _layout(title, units, height=380)}


def history_window(result: dict[str, Any], periods: int) -> dict[str, Any]:
    return {"dates": result["history_dates"][-periods:], "values": result["history"][-periods:]}


def plan_chart(months: list[str], by_assay: dict[str, list[float]], stored_pb: list[float],
               reference: str) -> dict[str, Any]:
    """Monthly reference core-hours stacked by assay, and PB held (right axis)."""
    data: list[dict[str, Any]] = [
        {"x": months, "y": ys, "type": "scatter", "mode": "lines", "stackgroup": "ch", "name": assay,
         "line": {"width": 0.5, "color": ASSAY_COLOURS[i % len(ASSAY_COLOURS)]}}
        for i, (assay, ys) in enumerate(by_assay.items())
    ]
    data.append({"x": months, "y": stored_pb, "type": "scatter", "mode": "lines", "name": "PB held (right axis)",
                 "yaxis": "y2", "line": {"color": "#d62728", "width": 2}})
    layout = _layout("Sequencer-driven demand by assay", f"core-hours/month on {reference} (reference core)")
    layout["margin"] = {"l": 80, "r": 80, "t": 50, "b": 40}
    layout["yaxis2"] = {"title": {"text": "PB held (decimal)"}, "overlaying": "y", "side": "right",
                        "rangemode": "tozero"}
    return {"data": data, "layout": layout}


def combined_chart(projection: dict[str, Any]) -> dict[str, Any]:
    """Yearly combined core-hours: plan part + trend part with the trend's p10-p90 as error bars."""
    years = [str(r["year"]) for r in projection["years"]]
    data: list[dict[str, Any]] = [
        {"x": years, "y": [r["plan_core_hours_ref"] for r in projection["years"]], "type": "bar",
         "name": "sequencer plan (genomics)", "marker": {"color": "#2ca02c"}},
        {"x": years, "y": [(r["trend_core_hours_ref"] or {}).get("median", 0) for r in projection["years"]],
         "type": "bar", "name": "usage trend (median)", "marker": {"color": BLUE},
         "error_y": {"type": "data", "symmetric": False,
                     "array": [((r["trend_core_hours_ref"] or {}).get("p90", 0)
                                - (r["trend_core_hours_ref"] or {}).get("median", 0)) for r in projection["years"]],
                     "arrayminus": [((r["trend_core_hours_ref"] or {}).get("median", 0)
                                     - (r["trend_core_hours_ref"] or {}).get("p10", 0))
                                    for r in projection["years"]]}},
    ]
    layout = _layout("Combined projection per year (p10-p90 of the trend as bars)",
                     "core-hours / year (reference core: see the convention)", x_title="year",
                     barmode="stack")
    return {"data": data, "layout": layout}


def future_months(start: date, n: int) -> list[str]:
    return [add_months(start, i).isoformat() for i in range(n)]
