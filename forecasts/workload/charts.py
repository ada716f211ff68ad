"""Plotly figure dicts and CSV tables for the workload and storage pages (plain dicts and lists)."""

from __future__ import annotations

from datetime import date
from typing import Any

from forecasts.usage.charts import PALETTE, UNASSIGNED_COLOUR, partial_month_bars
from forecasts.usage.charts import month_range as month_range_of

BLUE, ORANGE = PALETTE[0], PALETTE[1]


def _layout(title: str, x: str, y: str, **extra: Any) -> dict[str, Any]:
    layout = {"title": {"text": title, "x": 0, "font": {"size": 15}},
              "xaxis": {"title": {"text": x}}, "yaxis": {"title": {"text": y}, "rangemode": "tozero"},
              "margin": {"l": 60, "r": 20, "t": 50, "b": 60}, "legend": {"orientation": "h", "y": -0.25},
              "bargap": 0.1}
    layout.update(extra)
    return layout


def _two_bars(title: str, xtitle: str, labels: list[str], jobs: list[float], ch: list[float]) -> dict[str, Any]:
    return {"data": [
        {"type": "bar", "name": "share of jobs", "x": labels, "y": jobs, "marker": {"color": BLUE},
         "hovertemplate": "%{x}: %{y:.1%} of jobs<extra></extra>"},
        {"type": "bar", "name": "share of core-hours", "x": labels, "y": ch, "marker": {"color": ORANGE},
         "hovertemplate": "%{x}: %{y:.1%} of core-hours<extra></extra>"}],
        "layout": _layout(title, xtitle, "share", yaxis={"tickformat": ".0%", "rangemode": "tozero"},
                          xaxis={"title": {"text": xtitle}, "type": "category"})}


def figures(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    size = report["job_size"]
    rt = report["run_time"]
    figs = {
        "size": _two_bars("Job size (cores): share of jobs and of core-hours", "cores per job",
                          [r["label"] for r in size], [r["jobs_share"] or 0 for r in size],
                          [r["core_hours_share"] or 0 for r in size]),
        "runtime": {"data": [
            {"type": "bar", "name": "jobs", "x": [r["label"] for r in rt], "y": [r["jobs"] for r in rt],
             "marker": {"color": BLUE}},
            {"type": "scatter", "mode": "lines+markers", "name": "cumulative share of jobs", "yaxis": "y2",
             "x": [r["label"] for r in rt], "y": [r["jobs_cdf"] for r in rt], "line": {"color": BLUE}},
            {"type": "scatter", "mode": "lines+markers", "name": "cumulative share of core-hours", "yaxis": "y2",
             "x": [r["label"] for r in rt], "y": [r["core_hours_cdf"] for r in rt], "line": {"color": ORANGE}}],
            "layout": _layout("Run time: jobs per bucket and cumulative shares (CDF)", "run time", "jobs",
                              xaxis={"type": "category", "title": {"text": "run time"}},
                              yaxis2={"overlaying": "y", "side": "right", "tickformat": ".0%", "range": [0, 1.02]})},
        "request": {"data": [
            {"type": "bar", "name": "ran under a day", "x": [r["label"] for r in report["over_request"]["requested"]],
             "y": [r["ran_under_day"] for r in report["over_request"]["requested"]], "marker": {"color": BLUE}},
            {"type": "bar", "name": "ran a day or more", "x": [r["label"] for r in report["over_request"]["requested"]],
             "y": [r["ran_day_or_more"] for r in report["over_request"]["requested"]], "marker": {"color": ORANGE}}],
            "layout": _layout("Requested wall time, by what the jobs actually ran", "requested wall time", "jobs",
                              barmode="stack", xaxis={"type": "category", "title": {"text": "requested wall time"}})},
        "ratio": {"data": [{"type": "bar", "name": "jobs", "x": [r["label"] for r in report["over_request"]["ratio"]],
                            "y": [r["jobs"] for r in report["over_request"]["ratio"]], "marker": {"color": BLUE}}],
                  "layout": _layout("Over-request: requested ÷ actual wall time", "ratio", "jobs",
                                    xaxis={"type": "category", "title": {"text": "requested ÷ actual"}})},
        "wait": {"data": [{"type": "bar", "name": "mean wait (h)",
                           "x": [r["queue"] for r in report["queue_wait"]["by_queue"]],
                           "y": [r["mean_wait_hours"] for r in report["queue_wait"]["by_queue"]],
                           "marker": {"color": BLUE}},
                          {"type": "bar", "name": "median wait (h)",
                           "x": [r["queue"] for r in report["queue_wait"]["by_queue"]],
                           "y": [r["median_wait_hours"] for r in report["queue_wait"]["by_queue"]],
                           "marker": {"color": ORANGE}}],
                 "layout": _layout("Queue wait by queue" + (": every wait reads 0 s, most likely not recorded"
                                                            if report["queue_wait"].get("all_zero") else ""),
                                   "queue", "hours", xaxis={"type": "category"})},
    }
    util = report["utilisation"]["monthly"]
    partial = report.get("partial_month")
    if util:
        whole = [r for r in util if not r.get("partial")]
        data = [{"type": "scatter", "mode": "lines", "name": "utilisation", "x": [r["month"] for r in whole],
                 "y": [r["utilisation"] for r in whole], "line": {"color": BLUE}}]
        data += [{"type": "scatter", "mode": "markers", "x": [r["month"]], "y": [r["utilisation"]],
                  "name": f"{r['month']} to the logs' end {(partial or {}).get('logs_end', '')[:10]} (partial month)",
                  "marker": {"symbol": "circle-open", "size": 10, "color": BLUE}} for r in util if r.get("partial")]
        figs["utilisation"] = {"data": data,
                               "layout": _layout("Utilisation: core-hours used ÷ cores × hours available", "month",
                                                 "utilisation", yaxis={"tickformat": ".0%", "rangemode": "tozero"})}
    figs["growth"] = growth_figure(report["growth"], partial_month=partial["month"] if partial else None)
    return figs


def month_range(rows: list[dict[str, Any]]) -> list[str]:
    """Every month ("2017-03") from the first row's to the last row's, the months without jobs included:
    a stacked area joins its points, so a missing month would be drawn as a ramp between its neighbours
    instead of as a month of no use (forecasts.usage.charts.month_range, on the workload rows' labels)."""
    months = month_range_of({date.fromisoformat(f"{r['month']}-01") for r in rows})
    return [f"{m:%Y-%m}" for m in months]


def growth_figure(rows: list[dict[str, Any]], metric: str = "core_hours",
                  partial_month: str | None = None) -> dict[str, Any]:
    """Stacked monthly ``metric`` per department; a ``partial_month`` (the logs end inside it: "2020-01") is
    left out of the stack and drawn apart as faded bars of its usage so far."""
    part = [r for r in rows if r["month"] == partial_month]
    rows = [r for r in rows if r["month"] != partial_month]
    months = month_range(rows)
    totals: dict[str, float] = {}
    series: dict[str, dict[str, float]] = {}
    names: dict[str, str] = {}
    for r in rows:
        series.setdefault(r["department"], {})[r["month"]] = r[metric]
        names[r["department"]] = r["department_name"]
        totals[r["department"]] = totals.get(r["department"], 0) + r[metric]
    order = sorted(series, key=lambda c: (c == "unassigned", -totals[c]))
    data = []
    for i, code in enumerate(order):
        colour = UNASSIGNED_COLOUR if code == "unassigned" else PALETTE[i % len(PALETTE)]
        data.append({"type": "scatter", "mode": "lines", "stackgroup": "g", "name": names[code], "x": months,
                     "y": [series[code].get(m, 0) for m in months], "line": {"width": 0.5, "color": colour},
                     "fillcolor": colour})
    figure = {"data": data, "layout": _layout("Growth: core-hours per month by department (all history)",
                                              "month (UTC, by job end)", "core-hours", hovermode="x unified")}
    if partial_month is not None:
        ordered = sorted(part, key=lambda r: -r[metric])
        partial_month_bars(figure, [(r["department_name"], r[metric], PALETTE[i % len(PALETTE)])
                                    for i, r in enumerate(ordered)],
                           x=partial_month, label=f"{partial_month} so far", date_axis=True)
    return figure


def csv_rows(report: dict[str, Any], chart: str) -> tuple[list[str], list[list[Any]]] | None:
    """The data behind one chart as (header, rows)."""
    def table(rows: list[dict[str, Any]], keys: list[str]) -> tuple[list[str], list[list[Any]]]:
        return keys, [[r.get(k) for k in keys] for r in rows]

    if chart == "size":
        return table(report["job_size"], ["label", "cores_min", "cores_max", "jobs", "core_hours", "jobs_share",
                                          "core_hours_share", "mean_wait_hours"])
    if chart == "runtime":
        return table(report["run_time"], ["label", "seconds_min", "seconds_max", "jobs", "core_hours", "jobs_cdf",
                                          "core_hours_cdf"])
    if chart == "request":
        return table(report["over_request"]["requested"], ["label", "jobs", "ran_under_day", "ran_day_or_more"])
    if chart == "ratio":
        return table(report["over_request"]["ratio"], ["label", "jobs"])
    if chart == "wait":
        return table(report["queue_wait"]["by_queue"], ["queue", "jobs", "core_hours", "wait_hours",
                                                        "mean_wait_hours", "median_wait_hours"])
    if chart == "utilisation":
        return table(report["utilisation"]["monthly"], ["month", "core_hours", "capacity_core_hours", "utilisation"])
    if chart == "growth":  # with the part months named: where the logs begin or end inside a month
        keys, rows = table(report["growth"], ["month", "department", "department_name", "core_hours", "jobs", "users"])
        notes = {p["month"]: f"logs begin {p['logs_start'][:10]}: part month"
                 for p in report.get("first_part_months", [])}
        end = report.get("partial_month")
        if end:
            notes[end["month"]] = "; ".join(filter(None, [notes.get(end["month"]),
                                                          f"logs end {end['logs_end'][:10]}: usage so far"]))
        return [*keys, "partial"], [[*r, notes.get(str(r[0])[:7], "")] for r in rows]
    return None


def storage_figures(snapshot_stats: dict[str, Any], by_department: list[dict[str, Any]]) -> dict[str, Any]:
    hist = snapshot_stats.get("size_histogram_log2", [])
    labels = [_size_label(r["size_min_bytes"]) for r in hist]
    figs: dict[str, Any] = {
        "sizes": {"data": [{"type": "bar", "name": "files", "x": labels, "y": [r["files"] for r in hist],
                            "marker": {"color": BLUE}}],
                  "layout": _layout("Files by size (power-of-two bins, log scale)", "file size (bin start)", "files",
                                    yaxis={"type": "log", "title": {"text": "files"}},
                                    xaxis={"type": "category", "title": {"text": "file size (bin start)"}})},
        "bytes": {"data": [{"type": "bar", "name": "TB", "x": labels, "y": [r["bytes"] / 1e12 for r in hist],
                            "marker": {"color": ORANGE}}],
                  "layout": _layout("Where the bytes are: TB by file size (power-of-two bins)", "file size (bin start)",
                                    "TB (decimal)", xaxis={"type": "category",
                                                           "title": {"text": "file size (bin start)"}})},
    }
    if not hist:  # a department viewer: file-system-wide statistics are not shown
        figs = {}
    dirs = (snapshot_stats.get("directories") or {}).get("files_per_directory") or []
    if dirs:
        figs["dirs"] = {"data": [{"type": "bar", "x": [f"{d['min_files']}-{d['max_files']}" for d in dirs],
                                  "y": [d["directories"] for d in dirs],
                                  "marker": {"color": BLUE}, "name": "directories"}],
                        "layout": _layout("Files per directory", "files in the directory", "directories",
                                          xaxis={"type": "category"})}
    age = (snapshot_stats.get("age") or {}).get("buckets") or []
    if age:
        figs["age"] = {"data": [{"type": "bar", "x": [a["label"] for a in age], "y": [a["bytes"] / 1e12 for a in age],
                                 "marker": {"color": BLUE}, "name": "TB"}],
                       "layout": _layout("Age profile: TB by time since last modification", "age", "TB",
                                         xaxis={"type": "category"})}
    if by_department:
        dates = sorted({r["taken_on"] for r in by_department})
        depts: dict[str, dict[str, float]] = {}
        for r in by_department:
            depts.setdefault(r["department"], {})[r["taken_on"]] = r["bytes"] / 1e12
        order = sorted(depts, key=lambda c: (c == "Unassigned", -sum(depts[c].values())))
        figs["departments"] = {"data": [
            {"type": "scatter", "mode": "lines", "stackgroup": "s", "name": d, "x": dates,
             "y": [depts[d].get(t, 0) for t in dates],
             "line": {"width": 0.5, "color": UNASSIGNED_COLOUR if d == "Unassigned" else PALETTE[i % len(PALETTE)]}}
            for i, d in enumerate(order)],
            "layout": _layout("TB held per department over time (stacked)", "scan date", "TB (decimal)",
                              hovermode="x unified")}
    return figs


def _size_label(n: int) -> str:
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= div:
            return f"{n / div:g} {unit}"
    return f"{n} B"
