"""python manage.py bench_workload [--cluster NAME] [--jobs N] [--repeat R]: time the workload overview."""

from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.test import Client

from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from forecasts.accounting.models import Job
from forecasts.accounting.parsers.synth import default_people, slurm_lines
from forecasts.workload.models import WorkloadShapeMonthly
from forecasts.workload.selectors import workload_report

SCRATCH = "bench-workload"


class Command(BaseCommand):
    help = ("Time the workload overview's queries (and the rendered page) on the current data; with --jobs N "
            "first load N synthetic jobs into the scratch cluster 'bench-workload' through the real ingest path.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", default=None, help="cluster to time (default: all, or the scratch one)")
        parser.add_argument("--jobs", type=int, default=0, help="synthetic jobs to load first (scratch cluster)")
        parser.add_argument("--repeat", type=int, default=5)

    def handle(self, *args: Any, **options: Any) -> None:
        cluster = options["cluster"]
        load_s = None
        if options["jobs"]:
            cluster = SCRATCH
            have = Job.objects.filter(cluster__name=SCRATCH).count()
            if have < options["jobs"]:
                path = Path(settings.DATA_DIR) / f"bench_workload_{options['jobs']}.txt"
                self.stderr.write(f"generating {options['jobs']:,} jobs -> {path}")
                with path.open("w") as out:
                    out.writelines(slurm_lines(options["jobs"], start=datetime(2021, 1, 1, tzinfo=UTC),
                                               end=datetime(2026, 1, 1, tzinfo=UTC), cluster=SCRATCH,
                                               people=default_people(), growth_per_year=0.35, seed=99))
                started = time.monotonic()
                run = ingest_run_create(cluster_name=SCRATCH, fmt="slurm", paths=[path], tz="UTC", source="bench")
                ingest_run_execute(run.pk, progress=lambda done, total: self.stderr.write(f"  {done:,} records"))
                load_s = round(time.monotonic() - started, 1)
                path.unlink()
        workload_report(cluster=cluster)  # warm up (and settle any attribution change)
        times = []
        for _ in range(options["repeat"]):
            t = time.perf_counter()
            report = workload_report(cluster=cluster)
            times.append(time.perf_counter() - t)
        client = Client()
        from django.contrib.auth.models import User

        admin = User.objects.filter(is_superuser=True).first()
        page_times = []
        if admin is not None:
            client.force_login(admin)
            url = "/usage/workload/" + (f"?cluster={cluster}" if cluster else "")
            client.get(url, HTTP_HOST="localhost")
            for _ in range(options["repeat"]):
                t = time.perf_counter()
                client.get(url, HTTP_HOST="localhost")
                page_times.append(time.perf_counter() - t)
        rows = WorkloadShapeMonthly.objects.filter(**({"cluster__name": cluster} if cluster else {})).count()
        jobs = (Job.objects.filter(cluster__name=cluster) if cluster else Job.objects).count()
        self.stdout.write(json.dumps({
            "cluster": cluster or "(all)", "jobs": jobs, "rollup_rows": rows, "load_s": load_s,
            "report_median_s": round(statistics.median(times), 4), "report_max_s": round(max(times), 4),
            "page_median_s": round(statistics.median(page_times), 4) if page_times else None,
            "table1_jobs": report["table1"]["jobs"],
        }))
