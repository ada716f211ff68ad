"""Storage reads: snapshots and per-department holdings, scoped through planner.roles.

File-system-wide statistics (deciles, histograms, facts) describe the whole file system and
are shown to planners; a department viewer sees only their departments' bytes and files.
Per-department totals use the owner rows of the scans, or the group rows when those attribute more bytes.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Max, Sum

from forecasts.storage.display import binary_size, column_unit, decimal_size, in_unit
from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage
from forecasts.units import bytes_to_tb
from planner.roles import scope_by_department, sees_everything


def _basis(snapshot_ids: list[int]) -> str:
    """Owner or group rows: whichever attributes more bytes to departments (owners on a tie)."""
    attributed = dict(StorageUsage.objects.filter(snapshot_id__in=snapshot_ids)
                      .exclude(department__code="unassigned").values("kind").annotate(b=Sum("bytes"))
                      .values_list("kind", "b"))
    return "group" if (attributed.get("group") or 0) > (attributed.get("owner") or 0) else "owner"


def storage_overview(*, user: Any, filesystem: str | None = None) -> dict[str, Any]:
    systems = list(FileSystem.objects.filter(snapshots__status="completed")
                   .annotate(latest=Max("snapshots__taken_on")).order_by("-latest", "name"))
    fs = next((f for f in systems if f.name == filesystem), systems[0] if systems else None)
    if fs is None:
        return {"filesystem": None, "filesystems": systems, "snapshot": None, "stats": {}, "by_department": [],
                "scan_dates": [],
                "snapshots": [], "latest_departments": [], "latest_departments_tb": 0.0, "sizes": {}}
    snaps = list(StorageSnapshot.objects.filter(filesystem=fs, status="completed").order_by("taken_on"))
    latest = snaps[-1]
    basis = _basis([s.pk for s in snaps])
    usage = scope_by_department(StorageUsage.objects.filter(snapshot__in=snaps, kind=basis), user)
    by_dept = [{"taken_on": r["snapshot__taken_on"].isoformat(), "department": r["department__name"],
                "bytes": int(r["b"]), "files": int(r["f"])}
               for r in usage.values("snapshot__taken_on", "department__name")
               .annotate(b=Sum("bytes"), f=Sum("files")).order_by("snapshot__taken_on", "department__name")]
    # the page's table is in decimal TB (the headline's and the CSV's unit), so its rows add up to the total
    latest_on = latest.taken_on.isoformat()
    latest_depts = [{**r, "tb": bytes_to_tb(r["bytes"])} for r in by_dept if r["taken_on"] == latest_on]
    everything = sees_everything(user)
    return {"filesystem": fs, "filesystems": systems, "snapshot": latest if everything else None,
            "viewer_snapshot": latest, "stats": latest.stats if everything else {},
            "snapshots": snaps if everything else [], "by_department": by_dept,
            "latest_departments": sorted(latest_depts, key=lambda r: -r["bytes"]),
            "latest_departments_tb": bytes_to_tb(sum(r["bytes"] for r in latest_depts)), "basis": basis,
            # one scan date is not a time series: the page says so instead of drawing a one-point area chart
            "scan_dates": sorted({r["taken_on"] for r in by_dept}),
            "sizes": snapshot_sizes(latest) if everything else {}}


def snapshot_sizes(snapshot: StorageSnapshot) -> dict[str, Any]:
    """The snapshot's sizes as the page writes them: decimal means and holdings, binary block sizes."""
    small = snapshot.stats.get("small_files") or []
    unit, factor = column_unit(s["bytes"] for s in small)
    facts = snapshot.facts or {}
    return {
        "mean": decimal_size(snapshot.mean_size_bytes), "median": decimal_size(snapshot.median_size_bytes),
        # a histogram without byte sums bounds the total only (scans loaded before the flag: by their note)
        "bytes_estimated": bool(snapshot.stats.get("histogram_bytes_estimated")
                                or any("no byte sums" in n for n in snapshot.stats.get("notes") or [])),
        "notes": snapshot.stats.get("notes") or [],
        "small_files_unit": unit,
        "small_files": [{**s, "label": f"< {binary_size(s['under_bytes'])}", "amount": in_unit(s["bytes"], factor)}
                        for s in small],
        "deciles": [{**d, "max_size": binary_size(d.get("max_size_bytes"))}
                    for d in snapshot.stats.get("deciles") or []],
        "inode_fit": [{**f, "sub_block": binary_size(f["sub_block_bytes"])} for f in facts.get("inode_fit") or []],
        "sub_block_waste": [{**w, "sub_block": binary_size(w["sub_block_bytes"])}
                            for w in facts.get("sub_block_waste") or []],
    }
