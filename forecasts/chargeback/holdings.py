"""Storage held per department in a month, from the scans that stand for it (forecasts/chargeback/months.py).

Every month is billed: a month with scans of a file system uses the mean of those scans, a
month without one uses the last scan before it (or the scans either side, interpolated,
when the rate plan says ``linear``).  Bytes count once per snapshot: its owner rows when it
has them, else its group rows; a department absent from a scan held 0 there.  Decimal TB.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from forecasts.chargeback.months import CARRY, month_end, month_scan_weights
from forecasts.units import bytes_to_tb


@dataclass(frozen=True)
class StorageHolding:
    filesystem: str
    tier: str
    project_id: int | None
    tb: float  # decimal TB held over the month


@dataclass
class MonthHoldings:
    by_department: dict[int, list[StorageHolding]]
    notes: dict[str, str]  # file system -> how its month was filled ("" not kept: scanned in the month)


def storage_holdings(month: date, mode: str = CARRY) -> MonthHoldings:
    """Every file system's holdings for ``month`` per department; empty when nothing was ever scanned."""
    from forecasts.storage.models import StorageSnapshot, StorageUsage

    done = StorageSnapshot.objects.filter(status=StorageSnapshot.Status.COMPLETED, taken_on__lt=month_end(
        month) if mode == CARRY else date.max).select_related("filesystem")
    per_fs: dict[int, list[tuple[int, date]]] = {}
    filesystems = {}
    for snap in done:
        per_fs.setdefault(snap.filesystem_id, []).append((snap.pk, snap.taken_on))
        filesystems[snap.filesystem_id] = snap.filesystem
    chosen: dict[int, tuple[int, float]] = {}  # snapshot -> (file system, weight)
    notes = {}
    for fs_id, scans in per_fs.items():
        found = month_scan_weights(month, scans, mode)
        if found is None:
            continue
        for snap_id, weight in found.weights:
            chosen[snap_id] = (fs_id, weight)
        if found.basis:
            notes[filesystems[fs_id].name] = found.basis
    owner_scans = set(StorageUsage.objects.filter(snapshot__in=chosen, kind=StorageUsage.Kind.OWNER)
                      .values_list("snapshot_id", flat=True).distinct())
    sums: dict[tuple[int, int, int | None], float] = {}
    rows = StorageUsage.objects.filter(snapshot__in=chosen).values_list(
        "snapshot_id", "kind", "department_id", "project_id", "bytes")
    for snap_id, kind, dept, project, n_bytes in rows:
        if kind != (StorageUsage.Kind.OWNER if snap_id in owner_scans else StorageUsage.Kind.GROUP):
            continue
        fs_id, weight = chosen[snap_id]
        key = (fs_id, dept, project)
        sums[key] = sums.get(key, 0.0) + weight * n_bytes
    out: dict[int, list[StorageHolding]] = {}
    for (fs_id, dept, project), total in sorted(sums.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)):
        fs = filesystems[fs_id]
        out.setdefault(dept, []).append(
            StorageHolding(fs.name, getattr(fs, "tier", "") or "*", project, bytes_to_tb(total)))
    return MonthHoldings(out, notes)
