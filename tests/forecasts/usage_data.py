"""A small, exact usage history for the usage-page, mapping and API tests (loaded by the real ingest path).

genomics (group ggs):  gina  Jan 2024 10 cores x 2 h = 20, Feb 8 cores x 1 h = 8  -> 28 core-hours
chemistry (group scb): chris Jan 2024 64 cores x 3 h = 192                       -> 192 core-hours
nobody (group labx):   nobody Feb 2024 4 cores x 5 h = 20, no mapping            -> Unassigned
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

GENOMICS_CORE_HOURS = 28.0
CHEMISTRY_CORE_HOURS = 192.0
UNASSIGNED_CORE_HOURS = 20.0


def sacct(job_id: int, *, user: str, group: str, account: str, partition: str, start: str, hours: int,
          cores: int) -> str:
    s = datetime.fromisoformat(start)
    end = s.replace(hour=s.hour + hours).isoformat()
    tres = f"billing={cores},cpu={cores},mem=4000M,node=1"
    return (f"{job_id}|{job_id}|minerva|{partition}|normal|{account}|{group}|5000|{user}|7000|{start}|{start}|"
            f"{start}|{end}|{hours:02d}:00:00|0:0|COMPLETED|1|{cores}|{cores}|4000Mn|{tres}|{tres}|"
            f"2-00:00:00|n001|job{job_id}\n")


LINES = [
    sacct(1, user="gina", group="ggs", account="autism-wgs", partition="express", start="2024-01-10T08:00:00",
          hours=2, cores=10),
    sacct(2, user="gina", group="ggs", account="autism-wgs", partition="express", start="2024-02-10T08:00:00",
          hours=1, cores=8),
    sacct(3, user="chris", group="scb", account="md-membrane", partition="premium", start="2024-01-12T08:00:00",
          hours=3, cores=64),
    sacct(4, user="nobody", group="labx", account="orphan", partition="express", start="2024-02-20T08:00:00",
          hours=5, cores=4),
]


def load_usage(tmp_path: Path, departments: dict[str, Any]) -> Any:
    """Ingest the four jobs and map groups ggs and scb to the two test departments."""
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import IdentityMapping

    path = tmp_path / "usage.txt"
    path.write_text("".join(LINES))
    run = ingest_run_create(cluster_name="minerva", fmt="slurm", paths=[path], tz="UTC")
    run = ingest_run_execute(run.pk)
    assert run.jobs_ingested == 4, run.summary()
    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    usage_reattribute()
    return run


def figure_totals(figure: dict[str, Any]) -> dict[str, float]:
    """Core-hours per department over every trace of a usage figure: the stacked whole months and the partial
    month's bars (these logs end on 20 February 2024, inside the month)."""
    totals: dict[str, float] = {}
    for t in figure["data"]:
        totals[t["name"]] = totals.get(t["name"], 0.0) + sum(t["y"])
    return totals
