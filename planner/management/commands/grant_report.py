"""python manage.py grant_report --design ID --format pdf|docx|html|zip --out FILE [--cluster NAME]
[--start YYYY-MM --end YYYY-MM] [--forecast ID]: one report version, rendered now; JSON summary last."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.accounting.models import Cluster
from forecasts.demand.models import ForecastFit, SequencerPlan
from planner.designs.models import Design


def _month(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        parts = [int(x) for x in value.split("-")]
        return date(parts[0], parts[1], 1)
    except (ValueError, IndexError):
        raise CommandError(f"--{name}: expected YYYY-MM or YYYY-MM-DD, got {value!r}") from None


class Command(BaseCommand):
    help = "Generate a grant justification report (PDF, DOCX, HTML or ZIP of figures and tables)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--design", type=int, required=True, help="design id (the proposed configuration)")
        parser.add_argument("--format", choices=["pdf", "docx", "html", "zip"], default="pdf")
        parser.add_argument("--out", required=True, help="file to write")
        parser.add_argument("--cluster", help="cluster name (default: all clusters)")
        parser.add_argument("--start", help="first month of the usage period (YYYY-MM)")
        parser.add_argument("--end", help="last month of the usage period (YYYY-MM)")
        parser.add_argument("--forecast", type=int, help="forecast fit id (default: the design's own, if it links one)")
        parser.add_argument("--plan", type=int, help="sequencer plan id (default: the design's own, if it links one)")

    def handle(self, *args: Any, **o: Any) -> None:
        from planner.reports.services import report_create, report_generate, report_summary

        design = Design.objects.filter(pk=o["design"]).first()
        if design is None:
            raise CommandError(f"--design: no design #{o['design']} (see /designs/ or evaluate_design)")
        cluster = None
        if o.get("cluster"):
            cluster = Cluster.objects.filter(name=o["cluster"]).first()
            if cluster is None:
                raise CommandError(f"--cluster: no cluster named {o['cluster']!r}")
        forecast = None
        if o.get("forecast"):
            forecast = ForecastFit.objects.filter(pk=o["forecast"]).first()
            if forecast is None:
                raise CommandError(f"--forecast: no forecast fit #{o['forecast']}")
        plan = None
        if o.get("plan"):
            plan = SequencerPlan.objects.filter(pk=o["plan"]).first()
            if plan is None:
                raise CommandError(f"--plan: no sequencer plan #{o['plan']}")
        start, end = _month(o.get("start"), "start"), _month(o.get("end"), "end")
        try:
            report = report_create(design=design, cluster=cluster, start=start, end=end, forecast=forecast,
                                   plan=plan, enqueue=False)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        report = report_generate(report.pk, formats=(o["format"],),
                                 log=lambda m: print(f"report #{report.pk}: {m}", file=sys.stderr))
        path = report.file_path(o["format"])
        assert path is not None
        shutil.copyfile(path, o["out"])
        summary = report_summary(report)
        summary["out"] = o["out"]
        self.stdout.write(json.dumps(summary))
