"""The all-file-system storage series (pure: no Django): PB held per month from the file systems' scans.

Each file system's last scan of a month counts for that month and is carried forward through months without a
scan; the series is their sum, from the month **every file system with a scan has had its first**. Before that
month the sum leaves a file system out, and its first scan would enter the series as a step from 0 that is not
growth (its data was there, only not scanned yet): a fit would read the step as demand. The months left out,
and the file systems scanned later than the first, are returned so the fit can say so.

``carried_months`` counts the series' months in which no file system was scanned: their value is the last scans'
carried forward, so a series scanned quarterly moves in steps; the fit says how many.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from forecasts.demand.growth.calendar import add_months
from forecasts.units import BYTES_PER_TB, TB_PER_PB


def storage_points(scans: Iterable[tuple[str, date, float]]) -> tuple[dict[date, float], dict[str, Any] | None]:
    """``scans``: (file system, scan day, bytes held) in scan order (the month's last scan wins). Returns PB
    held per month from the month every file system has been scanned, and what was left out before it
    (``{"from", "start", "filesystems": [{"name", "first_scan_month"}]}``; None when nothing was)."""
    per_fs: dict[str, dict[date, float]] = {}
    for fs, day, total in scans:
        per_fs.setdefault(fs, {})[day.replace(day=1)] = float(total)
    if not per_fs:
        return {}, None
    firsts = {fs: min(months) for fs, months in per_fs.items()}
    earliest, start = min(firsts.values()), max(firsts.values())
    last = max(max(months) for months in per_fs.values())
    points: dict[date, float] = {}
    held = dict.fromkeys(per_fs, 0.0)
    month = earliest
    while month <= last:
        for fs, months in per_fs.items():
            held[fs] = months.get(month, held[fs])
        if month >= start:
            points[month] = sum(held.values()) / BYTES_PER_TB / TB_PER_PB
        month = add_months(month, 1)
    if start == earliest:
        return points, None
    later = sorted((m, fs) for fs, m in firsts.items() if m > earliest)
    return points, {"from": earliest.isoformat(), "start": start.isoformat(),
                    "filesystems": [{"name": fs, "first_scan_month": m.isoformat()} for m, fs in later]}


def carried_months(scanned: Iterable[date], months: Iterable[date]) -> dict[str, int] | None:
    """``{"months", "carried"}``: of the series' ``months``, how many no file system was scanned in (``scanned``:
    the days of the scans; those months' values are earlier scans carried forward); None when every month had one."""
    seen = {day.replace(day=1) for day in scanned}
    months = list(months)
    carried = sum(1 for m in months if m not in seen)
    return {"months": len(months), "carried": carried} if carried else None
