"""Demo data for the demand side: five years of a growing genomics-heavy cluster.

Cluster "nexus" grows from 1,536 to 3,584 cores; its jobs come from the deterministic
generator (forecasts/accounting/parsers/synth.py) through the real ingest path, so the demo shows
exactly what a site's own logs would.  A few external collaborators' accounts are left
unmapped on purpose: they land in "Unassigned" for the admin to map.  A second, small load is the
logs' last days sent again with three damaged lines, as happens when an export is re-run: the
ingest page shows its jobs counted as duplicates (nothing stored twice) and the damaged lines
rejected with their line numbers and reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path

from django.conf import settings

from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from forecasts.accounting.models import Cluster, ClusterCapacity, IngestRun
from forecasts.accounting.org import mappings_import_csv
from forecasts.accounting.parsers.synth import Person, default_people, slurm_lines

CLUSTER = "nexus"
DEMO_JOBS = 600_000
# The years of the Minerva designs, sequencer plan and grant report (SC15): one story, 2014-2019.
START = datetime(2014, 1, 1, tzinfo=UTC)
END = datetime(2020, 1, 1, tzinfo=UTC)
CAPACITY = [(date(2014, 1, 1), 1536, 24, "initial purchase: 24 x 64-core nodes"),
            (date(2015, 7, 1), 2560, 40, "expansion: 16 x 64-core nodes"),
            (date(2017, 3, 1), 3584, 56, "expansion: 16 x 64-core nodes")]
EXTERNAL = [Person("ext01", "external", "collab-external", "mixed"),
            Person("ext02", "external", "collab-external", "genomics"),
            Person("ext03", "visitors", "startup-alloc", "mixed")]


def demo_log_path() -> Path:
    """The generated demo log (made on the first load, kept in the data folder)."""
    return Path(settings.DATA_DIR) / f"demo_{CLUSTER}_{START:%Y}-{END:%Y}_sacct.txt"


def demo_slurm_lines() -> Iterator[str]:
    """The demo cluster's sacct lines (deterministic: the same on every machine)."""
    return slurm_lines(DEMO_JOBS, start=START, end=END, cluster=CLUSTER, people=default_people() + EXTERNAL,
                       growth_per_year=0.35, seed=2021)


def load_jobs(log: Callable[[str], None]) -> None:
    # Its Slurm writes UTC times (the logs are loaded as UTC), so a re-upload with the zone left blank reads the
    # same submit times and counts the same jobs as duplicates.
    cluster, _ = Cluster.objects.get_or_create(
        name=CLUSTER, defaults={"description": "Shared HPC cluster (demo)", "timezone": "UTC"}
    )
    for effective_from, cores, nodes, note in CAPACITY:
        ClusterCapacity.objects.update_or_create(
            cluster=cluster, effective_from=effective_from, defaults={"cores": cores, "nodes": nodes, "note": note}
        )
    mapping_text = (Path(settings.BASE_DIR) / "fixtures" / "demo_mappings.csv").read_text()
    if IngestRun.objects.filter(cluster=cluster, status=IngestRun.Status.COMPLETED).exists():
        mappings_import_csv(mapping_text, filename="demo_mappings.csv")
        log(f"  {CLUSTER}: jobs already loaded")
        return
    path = demo_log_path()
    if not path.exists():
        log(f"  generating {DEMO_JOBS:,} demo jobs (first run only, about a minute)...")
        tmp = path.with_suffix(".tmp")
        with tmp.open("w") as out:
            out.writelines(demo_slurm_lines())
        tmp.rename(path)
    mappings_import_csv(mapping_text, filename="demo_mappings.csv")
    run = ingest_run_create(cluster_name=CLUSTER, fmt="slurm", paths=[path], tz="UTC", source="demo")
    run = ingest_run_execute(run.pk)
    log(f"  {CLUSTER}: {run.jobs_ingested:,} jobs, {run.core_hours:,.0f} core-hours in {run.seconds:.1f} s")


RESENT_FROM = "2019-12-30"  # the re-sent extract: jobs submitted from this day on


def damaged(line: str) -> list[str]:
    """Three ways an export line gets damaged: cut short, an impossible end time, a non-numeric CPU count."""
    fields = line.rstrip("\n").split("|")
    bad_time = fields.copy()
    bad_time[13] = "2019-13-45T99:00:00"
    bad_cpus = fields.copy()
    bad_cpus[18] = "x32"
    return [line[:70] + "\n", "|".join(bad_time) + "\n", "|".join(bad_cpus) + "\n"]


def load_resent_extract(log: Callable[[str], None]) -> None:
    """The logs' last days again, with three damaged lines: duplicates and rejections on the ingest page."""
    source = demo_log_path()
    if IngestRun.objects.filter(source="demo-resent").exists() or not source.exists():
        return
    with source.open() as f:
        tail = [line for line in f if line.split("|", 11)[10] >= RESENT_FROM]
    if len(tail) < 41:
        return
    lines = tail[:41] + damaged(tail[40]) + tail[41:]  # line 41 whole, then three damaged copies of it
    path = Path(settings.DATA_DIR) / f"demo_{CLUSTER}_2019-12-30_resent_sacct.txt"
    path.write_text("".join(lines))
    run = ingest_run_create(cluster_name=CLUSTER, fmt="slurm", paths=[path], tz="UTC", source="demo-resent")
    run = ingest_run_execute(run.pk)
    log(f"  {CLUSTER}: re-sent extract, {run.records_read:,} records read, {run.jobs_ingested:,} stored, "
        f"{run.duplicates:,} duplicates, {run.rejected:,} rejected")
