"""Usage fixtures for the chargeback tests, loaded through the real ingest path (COPY + rollups)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def sacct_line(job_id: int, *, user: str, account: str, group: str, partition: str = "general",
               qos: str = "normal", start: str = "2024-03-01T08:00:00", end: str = "2024-03-01T10:00:00",
               cores: int = 4, nodes: int = 1, mem_mb: int = 4000, gpus: int = 0, cluster: str = "demo") -> str:
    """One sacct --parsable2 line (XDMoD's 26 fields); elapsed is computed from start/end."""
    s, e = datetime.fromisoformat(start), datetime.fromisoformat(end)
    secs = int((e - s).total_seconds())
    d, rest = divmod(secs, 86400)
    elapsed = f"{d}-" if d else ""
    elapsed += f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    tres = f"billing={cores},cpu={cores},mem={mem_mb}M,node={nodes}"
    alloc = tres + (f",gres/gpu={gpus}" if gpus else "")
    return (f"{job_id}|{job_id}|{cluster}|{partition}|{qos}|{account}|{group}|5000|{user}|7000|{start}|{start}|"
            f"{start}|{end}|{elapsed}|0:0|COMPLETED|{nodes}|{cores}|{cores}|{mem_mb}Mn|{tres}|{alloc}|"
            f"2-00:00:00|n001|job{job_id}\n")


def ingest_lines(lines: list[str], tmp_path: Path, *, cluster: str = "demo", name: str = "sacct.txt") -> Any:
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute

    path = tmp_path / name
    path.write_text("".join(lines))
    run = ingest_run_create(cluster_name=cluster, fmt="slurm", paths=[path], tz="UTC")
    return ingest_run_execute(run.pk)


def map_accounts(rows: list[tuple[str, str, str | None]]) -> None:
    """(account, department code, project name or None) mappings, then re-attribution."""
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import Department, IdentityMapping, Project

    for account, code, project in rows:
        dept = Department.objects.get(code=code)
        proj = Project.objects.get_or_create(name=project, defaults={"department": dept, "pi": f"Dr. {project}"})[0] \
            if project else None
        IdentityMapping.objects.update_or_create(kind="account", name=account, valid_from="1970-01-01",
                                                 defaults={"department": dept, "project": proj})
    usage_reattribute()


def minerva_plan(**overrides: Any) -> Any:
    """$0.02/core-hour, GPU $0.50/GPU-hour on gpu, memory on bigmem, high 1.5x, scavenger (QOS or queue) free."""
    from forecasts.models import ComputeRate, QosMultiplier, RatePlan, StorageRate

    plan = RatePlan.objects.create(name=overrides.get("name", "Test plan"),
                                   effective_from=overrides.get("effective_from", "2020-01-01"))
    ComputeRate.objects.create(plan=plan, cluster="*", queue="*", core_hour_usd=Decimal("0.02"))
    ComputeRate.objects.create(plan=plan, cluster="*", queue="gpu", core_hour_usd=Decimal("0.02"),
                               gpu_hour_usd=Decimal("0.50"))
    ComputeRate.objects.create(plan=plan, cluster="*", queue="scavenger", core_hour_usd=Decimal("0"))
    ComputeRate.objects.create(plan=plan, cluster="*", queue="bigmem", core_hour_usd=Decimal("0.02"),
                               mem_gb_hour_usd=Decimal("0.01"))
    QosMultiplier.objects.create(plan=plan, qos="high", multiplier=Decimal("1.5"))
    QosMultiplier.objects.create(plan=plan, qos="scavenger", multiplier=Decimal("0"))
    StorageRate.objects.create(plan=plan, filesystem="*", tier="*", tb_month_usd=Decimal("5"))
    return plan


def small_site(tmp_path: Path) -> dict[str, Any]:
    """Two departments (ggs, scb) in March 2024 with normal, high, scavenger, GPU and big-memory jobs.

    Expected charges (by hand):
      ggs  job 1: 4 cores x 2 h normal          = 8 core-h   -> $0.16
      ggs  job 2: 4 cores x 2 h high            = 8 core-h   -> $0.24 (1.5x)
      ggs  job 3: 8 cores x 10 h scavenger QOS  = 80 core-h  -> $0.00
      ggs  job 4: gpu, 8 cores x 3 h, 2 GPUs    = 24 core-h ($0.48) vs 6 GPU-h ($3.00) -> $3.00
      scb  job 5: 16 cores x 1 h normal         = 16 core-h  -> $0.32
      scb  job 6: bigmem 2 cores x 5 h, 512 GB  = 10 core-h ($0.20) vs 2560 GB-h ($25.60) -> $25.60
    """
    lines = [
        sacct_line(101, user="gina", account="autism-wgs", group="ggs", cores=4),
        sacct_line(102, user="gina", account="autism-wgs", group="ggs", cores=4, qos="high"),
        sacct_line(103, user="hank", account="rare-disease", group="ggs", cores=8, qos="scavenger",
                   end="2024-03-01T18:00:00"),
        sacct_line(104, user="hank", account="rare-disease", group="ggs", partition="gpu", cores=8, gpus=2,
                   end="2024-03-01T11:00:00"),
        sacct_line(105, user="chris", account="md-sim", group="scb", cores=16, end="2024-03-01T09:00:00"),
        sacct_line(106, user="chris", account="md-sim", group="scb", partition="bigmem", cores=2,
                   mem_mb=512 * 1024, end="2024-03-01T13:00:00"),
    ]
    run = ingest_lines(lines, tmp_path)
    map_accounts([("autism-wgs", "ggs", "autism-wgs"), ("rare-disease", "ggs", "rare-disease"),
                  ("md-sim", "scb", "md-sim")])
    return {"run": run, "month": datetime(2024, 3, 1, tzinfo=UTC).date()}


def logs_cover_march(tmp_path: Path) -> None:
    """One more job, ending on 31 March 2024 (an unmapped account): the logs then cover March 2024 whole,
    so its storage is billed for the whole month (in the month the logs end inside it is prorated)."""
    ingest_lines([sacct_line(199, user="late", account="nobody", group="nobody", start="2024-03-31T20:00:00",
                             end="2024-03-31T23:00:00")], tmp_path, name="sacct-late.txt")


def scb_statement_with_scan_carried_forward(departments: dict[str, Any], tmp_path: Path) -> Any:
    """The small site's March 2024 statement of department scb, computed with gpfs-work's only scan taken on
    2024-01-15, so its storage line is carried forward and the statement has a note saying so."""
    from datetime import date

    from forecasts.chargeback.services import statements_compute
    from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage

    site = small_site(tmp_path)
    logs_cover_march(tmp_path)
    minerva_plan()
    fs = FileSystem.objects.create(name="gpfs-work", tier="disk")
    snap = StorageSnapshot.objects.create(filesystem=fs, taken_on=date(2024, 1, 15), format="tsv", scan_name="s",
                                          status=StorageSnapshot.Status.COMPLETED)
    StorageUsage.objects.create(snapshot=snap, kind="owner", name="chris", department=departments["chemistry"],
                                bytes=10 * 10**12)
    return next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "scb")
