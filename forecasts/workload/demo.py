"""Demo step for workload and storage characterisation (idempotent, quick on a second run).

1. Workload shape rollups for clusters whose jobs were loaded before the rollup existed, and
   months whose attribution changed since (the demo re-imports its mappings every run).
2. Quarterly synthetic scans of the demo GPFS file system over two years, growing, generated
   deterministically (forecasts/storage/synth.py) and loaded through the real scan path.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

from django.conf import settings

from forecasts.accounting.models import Cluster
from forecasts.accounting.parsers.synth import default_people
from forecasts.storage.models import FileSystem, StorageSnapshot
from forecasts.storage.services import ingest_scan
from forecasts.storage.synth import scan_lines
from forecasts.workload.services import clusters_needing_rebuild, rebuild_cluster, stale_months

FILESYSTEM = "nexus-gpfs"
# quarterly scans over the demo's last two years of usage (accounting/demo.py: 2014-2019); the
# months between scans are billed from the last scan (forecasts/chargeback/months.py)
SCAN_DATES = [date(2018, 1, 1), date(2018, 4, 1), date(2018, 7, 1), date(2018, 10, 1), date(2019, 1, 1),
              date(2019, 4, 1), date(2019, 7, 1), date(2019, 10, 1)]
FIRST_FILES, GROWTH_PER_QUARTER = 60_000, 0.12


def load(log: Callable[[str], None]) -> None:
    for cluster in clusters_needing_rebuild():
        log(f"  {cluster.name}: building workload rollups from its jobs...")
        rebuild_cluster(cluster)
    for cluster in Cluster.objects.all():
        months = stale_months(cluster)
        if months:
            log(f"  {cluster.name}: re-attributing workload rollups for {len(months)} month(s)")
            rebuild_cluster(cluster, months=months)
    load_storage(log)


def load_storage(log: Callable[[str], None]) -> None:
    fs, _ = FileSystem.objects.get_or_create(
        name=FILESYSTEM, defaults={"kind": FileSystem.Kind.GPFS, "capacity_tb": 2000.0, "tier": "disk",
                                   "description": "Project and scratch GPFS of the nexus cluster (demo)"})
    have = set(StorageSnapshot.objects.filter(filesystem=fs, status=StorageSnapshot.Status.COMPLETED)
               .values_list("taken_on", flat=True))
    owners = [(p.user, p.group) for p in default_people()[:120]]
    for i, day in enumerate(SCAN_DATES):
        if day in have:
            continue
        files = int(FIRST_FILES * (1 + GROWTH_PER_QUARTER) ** i)
        path = Path(settings.DATA_DIR) / f"demo_{FILESYSTEM}_{day:%Y%m%d}.tsv"
        epoch = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
        with path.open("w") as out:
            out.writelines(scan_lines(files, owners=owners, seed=2024 + i, as_of_epoch=epoch))
        snap = ingest_scan(filesystem=FILESYSTEM, fmt="tsv", path=path, taken_on=day)
        path.unlink()
        log(f"  {FILESYSTEM} {day}: {snap.files:,} files, {snap.bytes_total / 1e12:,.2f} TB")
    if have:
        log(f"  {FILESYSTEM}: {len(have)} scans already loaded")
