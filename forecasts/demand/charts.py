"""Plotly figure dicts for the forecast pages (built here, shipped with json_script, drawn by
static/js/charts.js).  Every axis names its units; core-hour axes name the reference core."""

from __future__ import annotations

from datetime import date
from typing import Any

from forecasts.demand.engine.timestamps import TimestampError, period_name
from forecasts.demand.growth import add_months
from forecasts.units import TB_PER_PB, period_word

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


# An overlay (plan, capacity) this many times the series' own top would flatten the series to a line at zero:
# it starts hidden, one click on its legend entry away (hidden traces do not stretch the axis)
DWARFS = 3.0


def series_top(result: dict[str, Any]) -> float:
    """The fit's own largest value on the chart: history, and the forecast's 80% band."""
    values = [v for v in result["history"] if v is not None] + [s["p90"] for s in result["steps"]]
    return max(values, default=0.0)


def dwarfs(overlay_top: float, result: dict[str, Any]) -> bool:
    """Whether an overlay peaking at ``overlay_top`` would flatten the fit's own series."""
    top = series_top(result)
    return top > 0 and overlay_top > DWARFS * top


def plan_stack_top(plan_stack: dict[str, Any]) -> float:
    """The stacked plan's peak month (its assays summed)."""
    return max((sum(month) for month in zip(*plan_stack["core_hours_ref"].values(), strict=True)), default=0.0)


def overlays_drawn(fan: dict[str, Any]) -> dict[str, bool]:
    """What ``fan_chart`` drew besides the series, and which overlays it hid (the caption says only that)."""
    capacity = [t for t in fan["data"] if t.get("name", "").startswith("capacity")]
    plan = [t for t in fan["data"] if t.get("legendgroup") == "plan"]
    return {"capacity": bool(capacity),
            "capacity_hidden": any(t.get("visible") == "legendonly" for t in capacity),
            "plan_hidden": any(t.get("visible") == "legendonly" for t in plan)}


def origin_label(origin: str, frequency: str) -> str:
    """A backtest origin (an ISO date) as the series names its periods: 2021-Q4, 2023-H2, 2021, 2021-10."""
    try:
        return period_name(origin[:10], frequency)
    except TimestampError:
        return origin[:7]


def fan_chart(result: dict[str, Any], *, units: str, title: str, convention: str = "",
              capacity: list[tuple[date, float]] | None = None,
              plan_stack: dict[str, Any] | None = None, frequency: str = "M") -> dict[str, Any]:
    """History as points, every family's fit as thin lines, the chosen one with 80/95% bands,
    optionally the sequencer-driven demand stacked by assay (its own stack, never onto the series) and
    today's capacity as a line; an overlay that would flatten the series starts hidden (``dwarfs``)."""
    hx = result["history_dates"]
    fx = [s["date"] for s in result["steps"]]
    steps = result["steps"]
    data: list[dict[str, Any]] = []
    if any(s["p97_5"] != s["p2_5"] for s in steps):  # an entered growth rate has no interval: no empty bands
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
        hide = dwarfs(plan_stack_top(plan_stack), result)
        for i, (assay, ys) in enumerate(plan_stack["core_hours_ref"].items()):
            data.append({"x": plan_stack["months"], "y": ys, "type": "scatter", "mode": "lines",
                         "stackgroup": "plan", "name": f"sequencer plan: {assay}", "legendgroup": "plan",
                         "line": {"width": 0.5, "color": ASSAY_COLOURS[i % len(ASSAY_COLOURS)]}, "opacity": 0.5,
                         **({"visible": "legendonly"} if hide else {})})
    if capacity:
        end = fx[-1] if fx else hx[-1]
        xs: list[str] = []
        ys: list[float] = []
        for i, (since, ch) in enumerate(capacity):
            until = capacity[i + 1][0].isoformat() if i + 1 < len(capacity) else end
            xs += [max(since.isoformat(), hx[0]), until]
            ys += [ch, ch]
        data.append({"x": xs, "y": ys, "type": "scatter", "mode": "lines", "name": "capacity (cores x 730 h)",
                     "line": {"color": "#d62728", "width": 2},
                     **({"visible": "legendonly"} if dwarfs(max(ys), result) else {})})
    y_title = units + (f" — {convention}" if convention else "")
    return {"data": data, "layout": _layout(title, y_title, period_word(frequency))}


def backtest_chart(bt: dict[str, Any], *, history: dict[str, Any], units: str, title: str,
                   frequency: str = "M") -> dict[str, Any]:
    """What we would have predicted from the origin, and what happened."""
    data = []
    data += _band(bt["dates"], bt["p2_5"], bt["p97_5"], BAND95, "95% interval (then)")
    data += _band(bt["dates"], bt["p10"], bt["p90"], BAND80, "80% interval (then)")
    data.append({"x": bt["dates"], "y": bt["median"], "type": "scatter", "mode": "lines",
                 "name": f"predicted from {origin_label(bt['origin'], frequency)}",
                 "line": {"color": BLUE, "dash": "dash"}})
    data.append({"x": history["dates"], "y": history["values"], "type": "scatter", "mode": "markers+lines",
                 "name": "what happened", "line": {"color": "#222", "width": 1}, "marker": {"size": 5}})
    return {"data": data, "layout": _layout(title, units, period_word(frequency), height=380)}


def history_window(result: dict[str, Any], periods: int) -> dict[str, Any]:
    return {"dates": result["history_dates"][-periods:], "values": result["history"][-periods:]}


def plan_chart(months: list[str], by_assay: dict[str, list[float]], stored_pb: list[float],
               reference: str) -> dict[str, Any]:
    """Monthly reference core-hours stacked by assay, and storage held (right axis): in PB, or in TB while the
    plan holds less than 1 PB (0.0112 PB read as ticks of 0.01115, 0.0223, ...)."""
    data: list[dict[str, Any]] = [
        {"x": months, "y": ys, "type": "scatter", "mode": "lines", "stackgroup": "ch", "name": assay,
         "line": {"width": 0.5, "color": ASSAY_COLOURS[i % len(ASSAY_COLOURS)]}}
        for i, (assay, ys) in enumerate(by_assay.items())
    ]
    in_tb = max(stored_pb, default=0.0) < 1.0
    unit = "TB" if in_tb else "PB"
    held = [v * TB_PER_PB for v in stored_pb] if in_tb else stored_pb
    data.append({"x": months, "y": held, "type": "scatter", "mode": "lines", "name": f"{unit} held (right axis)",
                 "yaxis": "y2", "line": {"color": "#d62728", "width": 2},
                 "hovertemplate": f"%{{y:,.3~r}} {unit}"})
    layout = _layout("Sequencer-driven demand by assay", f"core-hours/month on {reference} (reference core)")
    layout["margin"] = {"l": 80, "r": 80, "t": 50, "b": 40}
    layout["yaxis2"] = {"title": {"text": f"{unit} held (decimal)"}, "overlaying": "y", "side": "right",
                        "rangemode": "tozero", "tickformat": ",~r",
                        # its own round ticks (an overlaying axis syncs to the left one's: 1.30931, 2.61881...)
                        "tickmode": "auto", "showgrid": False}
    return {"data": data, "layout": layout}


def year_span(years: list[int]) -> str:
    """2020, or 2020–2022 (the years are consecutive in a projection)."""
    return str(years[0]) if len(years) == 1 else f"{years[0]}–{years[-1]}"


def combined_chart(projection: dict[str, Any]) -> dict[str, Any]:
    """Yearly combined core-hours: plan part + trend part with the trend's p10-p90 as error bars.

    Years of plan + trend that have the trend alone (outside the plan's years) are their own hatched,
    paler trace, marked on the chart: their bars leave the plan's sequencing out, and a drop at the
    plan's end is that, not a fall in demand."""
    rows = projection["years"]
    years = [str(r["year"]) for r in rows]
    part = {r["year"] for r in rows if r.get("partial") and r["trend_core_hours_ref"]}
    only = {r["year"] for r in rows if r.get("trend_only")} - part

    def trend(r: dict[str, Any], key: str) -> float:
        return float((r["trend_core_hours_ref"] or {}).get(key, 0))

    def trend_trace(part: list[dict[str, Any]], name: str, marker: dict[str, Any]) -> dict[str, Any]:
        return {"x": [str(r["year"]) for r in part], "y": [trend(r, "median") for r in part], "type": "bar",
                "name": name, "marker": marker,
                "error_y": {"type": "data", "symmetric": False,
                            "array": [trend(r, "p90") - trend(r, "median") for r in part],
                            "arrayminus": [trend(r, "median") - trend(r, "p10") for r in part]}}

    data: list[dict[str, Any]] = [
        {"x": years, "y": [r["plan_core_hours_ref"] for r in rows], "type": "bar",
         "name": "sequencer plan (genomics)", "marker": {"color": "#2ca02c"}},
        trend_trace([r for r in rows if r["year"] not in only | part and r["trend_core_hours_ref"]],
                    "usage trend (median)", {"color": BLUE}),
    ]
    if part:  # a year with months neither observed nor forecast: its low bar is the missing months, not a fall
        data.append({**trend_trace([r for r in rows if r["year"] in part],
                                   "part year: not every month observed or forecast, not a year's figure",
                                   {"color": "rgba(31, 119, 180, 0.2)", "line": {"color": BLUE, "width": 1},
                                    "pattern": {"shape": "x", "fgcolor": BLUE}}),
                     "text": ["part year"] * len(part), "textposition": "outside"})
    layout = _layout("Combined projection per year (p10-p90 of the trend as bars)",
                     "core-hours / year (reference core: see the convention)", x_title="year",
                     barmode="stack")
    if only:
        dept = projection.get("plan_department")
        left_out = f"department {dept}'s sequencing" if dept else "the plan's sequencing"
        data.append(trend_trace([r for r in rows if r["year"] in only],
                                f"usage trend only: {left_out} not included (outside the plan)",
                                {"color": "rgba(31, 119, 180, 0.35)", "line": {"color": BLUE, "width": 1},
                                 "pattern": {"shape": "/", "fgcolor": BLUE}}))
        span = year_span(sorted(only))
        plan_years = projection.get("plan_years")
        covers = f"plan covers {year_span(list(plan_years))}" if plan_years else "outside the plan"
        layout["annotations"] = [{
            "x": 1, "y": 1.0, "xref": "paper", "yref": "paper", "xanchor": "right", "yanchor": "bottom",
            "showarrow": False, "font": {"size": 11, "color": "#8a5a00"},
            "text": f"{covers}; {span}: trend only, without {left_out}",
        }]
        # a dashed line where the plan starts or ends inside the chart (the years are numbers on the axis)
        layout["shapes"] = [
            {"type": "line", "xref": "x", "yref": "paper", "x0": a["year"] + 0.5, "x1": a["year"] + 0.5,
             "y0": 0, "y1": 1, "line": {"color": "#8a5a00", "width": 1.5, "dash": "dash"}}
            for a, b in zip(rows, rows[1:], strict=False) if bool(a.get("trend_only")) != bool(b.get("trend_only"))
        ]
        layout["margin"] = {**layout["margin"], "t": 70}
    layout["xaxis"] = {**layout["xaxis"], "type": "linear", "dtick": 1}
    return {"data": data, "layout": layout}


def future_months(start: date, n: int) -> list[str]:
    return [add_months(start, i).isoformat() for i in range(n)]
