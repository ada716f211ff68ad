"""python manage.py import_sequencer_plan PATH [--plan NAME]"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.demand.plans import PlanError, plan_import_file, plan_summary


class Command(BaseCommand):
    help = ("Import a sequencer rollout plan (YAML, schema in docs/forecasting.md) as a new version, or a "
            "model,date,count CSV that replaces the instrument counts of the plan named by --plan. "
            "Last stdout line: a JSON summary with the yearly derived figures.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        parser.add_argument("--plan", default=None, help="for a counts CSV: the name of the plan it updates")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            row, created = plan_import_file(options["path"], base=options["plan"])
        except PlanError as exc:
            raise CommandError(str(exc)) from exc
        what = "stored as" if created else "unchanged, already"
        whose = f", department {row.department.code}'s sequencing" if row.department_id else ""
        print(f"{row.name}: {what} version {row.version}{whose}", file=sys.stderr)
        summary = plan_summary(row)
        summary["created"] = created
        for y in summary["years"]:
            print(f"  {y['year']}: {y['instruments_end']:.1f} instruments, {y['samples']:,.0f} samples, "
                  f"{y['core_hours_ref'] / 1e6:.2f} M core-hours (reference), {y['stored_pb']:.2f} PB held",
                  file=sys.stderr)
        self.stdout.write(json.dumps(summary))
