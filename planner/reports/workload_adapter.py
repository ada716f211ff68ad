"""The workload section's facts, from ``forecasts.workload.selectors.workload_report`` (Table 1 style).

Only reformats what that selector computes (nothing is recomputed here); when its rollups hold no
jobs for the cluster and period the report says so plainly instead of inventing numbers.
"""

from __future__ import annotations

from datetime import date
from typing import Any


def workload_report_for(*, cluster: Any, start: date, end: date) -> dict[str, Any] | None:
    try:
        from forecasts.workload.selectors import workload_report
    except ImportError:
        return None
    return workload_report(cluster=cluster.name if cluster else None, start=start, end=end)


def _h(v: float | None, digits: int = 2) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def workload_facts(*, report: dict[str, Any] | None, refs: list[str]) -> dict[str, Any] | None:
    if not report or not (report.get("table1") or {}).get("jobs"):
        return None
    t1 = report["table1"]
    ch, rt = t1["core_hours_per_job"], t1["run_time_hours"]
    ow = report.get("over_request") or {}
    qw = report.get("queue_wait") or {}
    rows = [
        {"label": "# of jobs", "value": f"{t1['jobs']:,}"},
        {"label": "Core-hours", "value": f"{t1['core_hours']:,.0f}"},
        {"label": "Maximum # of core hours used/job", "value": _h(ch["max"], 1)},
        {"label": "Minimum # of core hours used/job",  # the page's 0.0003, not "0.000"
         "value": _h(ch["min"], 3) if not ch["min"] or ch["min"] >= 0.001 else f"{ch['min']:.3g}"},
        {"label": "Average # of core hours used/job", "value": _h(ch["mean"], 1)},
        {"label": "Median # of core hours used/job", "value": _h(ch["median"], 2)},
        {"label": "Maximum job run time (hours)", "value": _h(rt["max"], 1)},
        {"label": "Average job run time (hours)", "value": _h(rt["mean"], 2)},
        {"label": "Median job run time (hours)", "value": _h(rt["median"], 2)},
        {"label": "Mean queue wait (hours)",
         "value": "not recorded (every wait reads 0 s)" if qw.get("all_zero") else _h(qw.get("mean_wait_hours"), 2)},
    ]
    under = (ow.get("ran_under_day_requested_over_day") or {})
    if ow.get("jobs_with_request"):
        rows.append({"label": "Jobs that ran under a day but requested a day or more",
                     "value": f"{under.get('jobs', 0):,} ({(under.get('share') or 0) * 100:.0f}%)"})
        rows.append({"label": "Share of requested wall time used",
                     "value": f"{(ow.get('used_share_of_requested') or 0) * 100:.0f}%"})
    labels = {"single_node": "on one node", "single_core": "on one core", "under_10_minutes": "under 10 minutes",
              "under_24_hours": "under 24 hours"}
    shape = [{"label": labels[k], "jobs_share": v.get("jobs_share") or 0.0,
              "core_hours_share": v.get("core_hours_share") or 0.0}
             for k, v in (report.get("shape") or {}).items() if k in labels]
    unknown_nodes = ((report.get("shape") or {}).get("unknown_nodes") or {}).get("jobs_share") or 0.0
    if unknown_nodes:  # the log gives no node count for these: the one-node share is a lower bound
        shape = [dict(s, label=f"{s['label']} (node count unknown for {unknown_nodes * 100:.0f}% of jobs)")
                 if s["label"] == labels["single_node"] else s for s in shape]
    parts = [f"{s['jobs_share'] * 100:.0f}% of jobs ran {s['label']} ({s['core_hours_share'] * 100:.0f}% of "
             f"core-hours)" for s in shape]
    narrative = (f"Over the period {t1['jobs']:,} jobs used {t1['core_hours']:,.0f} core-hours: a mean of "
                 f"{_h(ch['mean'], 1)} core-hours and {_h(rt['mean'], 2)} hours per job (median "
                 f"{_h(rt['median'], 2)} h). " + ("; ".join(parts) + "." if parts else ""))
    if ow.get("jobs_with_request"):
        narrative += (f" {(under.get('share') or 0) * 100:.0f}% of the jobs with a wall-time request asked for a "
                      f"day or more yet ran under a day, which delays the scheduling of longer jobs.")
    return {"rows": rows, "shape": shape, "narrative": narrative, "refs": refs,
            "note": "; ".join(report.get("notes") or [])}
