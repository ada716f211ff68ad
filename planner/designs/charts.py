"""Plotly figure dicts for designs: capacity vs demand, cost by kind, genomes/day, cost per genome, tornado.

Each function takes evaluation results as stored (``DesignEvaluation.result``, the core's to_dict())
and returns a plain dict the template ships with ``json_script``; static/js/charts.js draws it.
"""

from __future__ import annotations

from typing import Any

PALETTE = ["#2d5f8b", "#c8702a", "#2f7d4f", "#8b3d8b"]
DEMAND = "#1d2733"
LAYOUT: dict[str, Any] = {
    "margin": {"l": 70, "r": 20, "t": 40, "b": 40}, "legend": {"orientation": "h", "y": -0.12, "yanchor": "top"},
    "font": {"family": "-apple-system, Segoe UI, Roboto, Arial, sans-serif", "size": 13},
    "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff", "hovermode": "x unified",
}

Series = list[tuple[str, dict[str, Any]]]  # (label, evaluation result)


def _layout(title: str, ytitle: str, **extra: Any) -> dict[str, Any]:
    out = LAYOUT | {"title": {"text": title, "x": 0}, "yaxis": {"title": {"text": ytitle}, "rangemode": "tozero",
                                                                "gridcolor": "#eef1f4"},
                    "xaxis": {"dtick": 1}} | extra
    if out["xaxis"].get("title"):  # the axis title sits where the legend would: the legend goes below it
        out["legend"] = LAYOUT["legend"] | {"y": -0.28}
        out["margin"] = LAYOUT["margin"] | {"b": 70}
    return out


def _years(result: dict[str, Any]) -> list[int]:
    return [y["year"] for y in result["years"]]


def capacity_vs_demand(series: Series, band: dict[str, Any] | None = None) -> dict[str, Any]:
    """Core-hours at the utilisation target (reference core) per design against demand, with a band."""
    data: list[dict[str, Any]] = []
    if band and band.get("years"):
        data.append({"type": "scatter", "x": band["years"] + band["years"][::-1],
                     "y": [v / 1e6 for v in band["high"]] + [v / 1e6 for v in band["low"][::-1]],
                     "fill": "toself", "fillcolor": "rgba(29,39,51,0.10)", "line": {"width": 0},
                     "name": band.get("label", "forecast band"), "hoverinfo": "skip"})
    for i, (label, res) in enumerate(series):
        data.append({"type": "bar", "x": _years(res), "name": label,
                     "y": [y["normalised_core_hours_at_target"] / 1e6 for y in res["years"]],
                     "marker": {"color": PALETTE[i % len(PALETTE)]},
                     "hovertemplate": "%{y:.1f} M core-hours"})
    checked = bool(series) and core_hours_checked(series[0][1])
    if checked:
        res = series[0][1]
        data.append({"type": "scatter", "mode": "lines+markers", "x": _years(res), "name": "demand",
                     "y": [y["demand_core_hours"] / 1e6 for y in res["years"]],
                     "line": {"color": DEMAND, "width": 3, "dash": "dash"}, "hovertemplate": "%{y:.1f} M demand"})
        return {"data": data, "layout": _layout("Compute at the utilisation target vs demand (reference core)",
                                                "M core-hours / year", barmode="group")}
    # a demand line at 0 read as "no core-hours asked" and every bar as spare capacity: none, and the title says why
    title = ("Compute at the utilisation target (reference core)<br><sub>core-hours check off (constraints.off): "
             "no demand line</sub>")
    return {"data": data, "layout": _layout(title, "M core-hours / year", barmode="group",
                                            margin=LAYOUT["margin"] | {"t": 75})}


def core_hours_checked(result: dict[str, Any]) -> bool:
    """Whether the evaluation checks core-hours demand (not listed under constraints.off): a result without a
    single year is taken as checked, as before."""
    years = result.get("years") or []
    return not years or any(c.get("name") == "core_hours" for y in years for c in y.get("checks") or [])


def cost_by_kind(series: Series) -> dict[str, Any]:
    """Capex, power and support per year, stacked; one stack per design (grouped by year)."""
    kinds = [("capex_usd", "capex", 0.95), ("power_usd", "power", 0.65), ("support_usd", "support", 0.40)]
    data: list[dict[str, Any]] = []
    multi = len(series) > 1
    for i, (label, res) in enumerate(series):
        years = [str(y) for y in _years(res)]
        x: Any = [years, [f"D{i + 1}"] * len(years)] if multi else years
        for key, name, alpha in kinds:
            # one legend entry per kind (the shade; the design is the x label under its bar): with four designs,
            # twelve entries wrapped into rows over the year labels
            data.append({"type": "bar", "x": x, "y": [y[key] / 1e6 for y in res["years"]],
                         "name": name, "legendgroup": name, "showlegend": i == 0,
                         "marker": {"color": _rgba(PALETTE[i % len(PALETTE)], alpha)},
                         "hovertemplate": f"{label}<br>{name}: $%{{y:.2f}} M<extra></extra>"})
    names = ", ".join(f"D{i + 1}" for i in range(len(series)))  # the designs compared, not always four
    layout = _layout("Cost by kind per year" + (f" ({names} = designs in table order)" if multi else ""),
                     "million USD", barmode="stack")
    layout["xaxis"] = {"type": "multicategory" if multi else "category"}
    if multi:  # the two rows of x labels (year, design) keep the bottom: the legend goes to the right of the plot
        layout["legend"] = {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"}
        layout["margin"] = LAYOUT["margin"] | {"b": 60}
    layout["hovermode"] = "closest"
    return {"data": data, "layout": layout}


def genomes_per_day(series: Series) -> dict[str, Any]:
    data: list[dict[str, Any]] = []
    for i, (label, res) in enumerate(series):
        data.append({"type": "scatter", "mode": "lines+markers", "x": _years(res), "name": label,
                     "y": [y["genomes_per_day_capacity"] for y in res["years"]],
                     "line": {"color": PALETTE[i % len(PALETTE)], "width": 3}})
    if series:
        res = series[0][1]
        data.append({"type": "scatter", "mode": "lines", "x": _years(res), "name": "sequencer plan peak",
                     "y": [y["genomes_per_day_demand"] for y in res["years"]],
                     "line": {"color": DEMAND, "dash": "dash", "width": 2}})
    return {"data": data, "layout": _layout("Genomes per day the design can analyse", "genomes / day")}


def cost_per_genome(series: Series) -> dict[str, Any]:
    data = []
    for i, (label, res) in enumerate(series):
        data.append({"type": "bar", "x": _years(res), "name": label,
                     "y": [y["cost_per_genome_usd"] for y in res["years"]],
                     "marker": {"color": PALETTE[i % len(PALETTE)]}, "hovertemplate": "$%{y:,.0f}"})
    return {"data": data, "layout": _layout("Cost per genome (annualised cost / genomes per year at capacity)",
                                            "USD per genome", barmode="group")}


def storage(series: Series) -> dict[str, Any]:
    data = []
    for i, (label, res) in enumerate(series):
        data.append({"type": "bar", "x": _years(res), "name": f"{label}: plannable TB",
                     "y": [y["plannable_tb"] for y in res["years"]], "marker": {"color": PALETTE[i % len(PALETTE)]}})
    if series:
        res = series[0][1]
        data.append({"type": "scatter", "mode": "lines+markers", "x": _years(res), "name": "demand (cumulative TB)",
                     "y": [y["demand_tb"] for y in res["years"]], "line": {"color": DEMAND, "dash": "dash"}})
    return {"data": data, "layout": _layout("Online storage at the fullness limit vs demand", "TB", barmode="group")}


def tornado(sens: dict[str, Any], title: str) -> dict[str, Any]:
    """Horizontal bars from the base cost: the -20 % and +20 % settings of each input."""
    base = sens.get("base_usd") or 0.0
    bars = list(reversed(sens.get("bars", [])))  # largest swing on top
    labels = [b["label"] for b in bars]

    def delta(v: float | None) -> float | None:
        return None if v is None else (v - base) / 1e6

    pct = round(100 * sens.get("delta", 0.2))
    forecast = any("forecast P10" in b["label"] for b in bars)  # forecast prices move to their P10 / P90
    data = [
        {"type": "bar", "orientation": "h", "y": labels, "x": [delta(b["low_usd"]) for b in bars],
         "name": f"input -{pct}%" + (" (forecast prices: P10)" if forecast else ""),
         "marker": {"color": "#2f7d4f"}, "base": 0,
         "customdata": [(b["low_usd"] or 0) / 1e6 for b in bars],
         "hovertemplate": "-" + str(pct) + "%: total $%{customdata:.2f} M (%{x:+.2f} M)<extra></extra>"},
        {"type": "bar", "orientation": "h", "y": labels, "x": [delta(b["high_usd"]) for b in bars],
         "name": f"input +{pct}%" + (" (forecast prices: P90)" if forecast else ""),
         "marker": {"color": "#b3261e"}, "base": 0,
         "customdata": [(b["high_usd"] or 0) / 1e6 for b in bars],
         "hovertemplate": "+" + str(pct) + "%: total $%{customdata:.2f} M (%{x:+.2f} M)<extra></extra>"},
    ]
    layout = LAYOUT | {
        "title": {"text": f"{_short(title)}<br><sup>base ${base / 1e6:.2f} M: {sens.get('measure', '')}</sup>", "x": 0},
        "barmode": "overlay", "hovermode": "closest",
        "xaxis": {"title": {"text": "change in total cost, million USD"}, "zeroline": True, "zerolinewidth": 2},
        "yaxis": {"automargin": True}, "margin": {"l": 230, "r": 20, "t": 70, "b": 110},
        "legend": {"orientation": "h", "y": -0.4, "yanchor": "top"},
    }
    return {"data": data, "layout": layout}


def _short(title: str, most: int = 60) -> str:
    """A chart title that fits a half-width card (the full name is in the table above)."""
    return title if len(title) <= most else title[: most - 1].rstrip() + "…"


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"
