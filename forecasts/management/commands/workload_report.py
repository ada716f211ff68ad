"""python manage.py workload_report --cluster NAME [--start D] [--end D] [--department CODE] ... --json"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.accounting.models import Cluster, Department, Project
from forecasts.workload.selectors import workload_report


def _date(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value + "-01" if len(value) == 7 else value)
    except ValueError as exc:
        raise CommandError(f"--{name}: {value!r} is not a date (YYYY-MM or YYYY-MM-DD)") from exc


class Command(BaseCommand):
    help = ("Workload characterisation (Table 1, shape shares, histograms, over-request, queue wait, "
            "utilisation, growth) from the rollups; keys in docs/workload-report.md.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", default=None, help="cluster name (default: all clusters)")
        parser.add_argument("--start", default=None, help="first month (YYYY-MM or a date in it)")
        parser.add_argument("--end", default=None, help="last month, inclusive (YYYY-MM or a date in it)")
        parser.add_argument("--department", default=None, help="department code")
        parser.add_argument("--project", default=None, help="project name")
        parser.add_argument("--queue", default=None, help="queue / partition")
        parser.add_argument("--json", action="store_true", help="print the whole report as one JSON line")

    def handle(self, *args: Any, **options: Any) -> None:
        cluster = options["cluster"]
        if cluster and not Cluster.objects.filter(name=cluster).exists():
            known = ", ".join(Cluster.objects.values_list("name", flat=True)) or "none loaded yet"
            raise CommandError(f"--cluster: no cluster named {cluster!r} (known: {known})")
        if options["department"] and not Department.objects.filter(code=options["department"]).exists():
            raise CommandError(f"--department: no department with code {options['department']!r}")
        if options["project"] and not Project.objects.filter(name=options["project"]).exists():
            raise CommandError(f"--project: no project named {options['project']!r}")
        start, end = _date(options["start"], "start"), _date(options["end"], "end")
        if start and end and end < start:
            raise CommandError("--end is before --start")
        report = workload_report(cluster=cluster, start=start, end=end, department=options["department"],
                                 project=options["project"], queue=options["queue"])
        if not options["json"]:
            t = report["table1"]
            self.stderr.write(f"jobs {t['jobs']:,}  core-hours {t['core_hours'] or 0:,.1f}  "
                              f"users {t['users']}  projects {t['projects']}  departments {t['departments']}")
            for key, v in report["shape"].items():
                if key == "unknown_width":
                    if v["jobs"]:
                        self.stderr.write(f"  unknown width (no core count in the log): {v['jobs']:,} jobs, "
                                          "left out of job size; 0 core-hours")
                    continue
                if key == "unknown_nodes":
                    if v["jobs"]:
                        self.stderr.write(f"  unknown node count (not in the log): {v['jobs']:,} jobs, "
                                          "left out of single_node")
                    continue
                self.stderr.write(f"  {key}: {100 * (v['jobs_share'] or 0):.1f}% of jobs, "
                                  f"{100 * (v['core_hours_share'] or 0):.1f}% of core-hours")
        self.stdout.write(json.dumps(report, default=str))
