"""Queue-wait facts for the grant report (planner.reports.gather reads them; the section is pure)."""

from __future__ import annotations

from typing import Any

from planner.replay.services import design_replay_latest


def queue_wait_facts(design: Any, refs: list[dict[str, str]]) -> dict[str, Any] | None:
    """The design's latest replay as report rows (hours), with its reference; None when not replayed."""
    job = design_replay_latest(design)
    if job is None or not job.result:
        return None
    res = job.result
    key = f"replay-{job.pk}"
    if not any(r["key"] == key for r in refs):
        refs.append({"key": key, "kind": "queue-wait replay",
                     "label": f"Replay #{job.pk} of {res['base_jobs']:,} {res['cluster']} jobs "
                              f"submitted {res['base_period'][0]} to {res['base_period'][1]}",
                     "detail": "EASY backfilling on the design's nodes each year (docs/replay.md)"})

    def h(seconds: float | None) -> float | None:
        return None if seconds is None else seconds / 3600

    rows = [{"label": f"today's {res['cluster']}", "machine": res["today"]["machine"], "load": 1.0,
             "mean_h": h(res["today"]["mean_wait"]), "p95_h": h(res["today"]["p95_wait"]), "p95_lo_h": None,
             "p95_hi_h": None, "utilisation": res["today"]["utilisation"]}]
    for y in res["years"]:
        if "median" not in y:
            continue
        rows.append({"label": str(y["year"]), "machine": y["machine"], "load": y["load_scale"]["median"],
                     "mean_h": h(y["median"]["mean_wait"]), "p95_h": h(y["median"]["p95_wait"]),
                     "p95_lo_h": h(y["p10"]["p95_wait"]), "p95_hi_h": h(y["p90"]["p95_wait"]),
                     "utilisation": y["median"]["utilisation"]})
    return {"ref": key, "cluster": res["cluster"], "base_period": res["base_period"], "jobs": res["base_jobs"],
            "base_note": res.get("base_note") or "", "rows": rows}
