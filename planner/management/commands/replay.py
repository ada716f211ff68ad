"""python manage.py replay --cluster NAME [--start YYYY-MM --end YYYY-MM] (--processors P | --design ID --year Y)
[--policy fcfs|easy] [--mode pool|nodes] [--load-scale F] [--json]"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from planner.replay.services import MODES, ReplayError, run_replay

COMPACT = ("cluster", "period", "design", "year", "policy", "mode", "machine", "processors", "load_scale",
           "jobs_simulated", "jobs_not_simulated", "not_simulated_reasons", "mean_wait", "median_wait", "p95_wait",
           "max_wait", "mean_bounded_slowdown", "utilisation", "makespan", "jobs_per_second")


def _hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:,.2f} h"


class Command(BaseCommand):
    help = ("Replay a cluster's ingested jobs on a machine (FCFS or EASY backfilling, docs/replay.md): per-job "
            "waits reduced to mean / median / p95 / max wait, bounded slowdown, utilisation. The period defaults "
            "to the last whole year. Last stdout line: the JSON summary (--json: with waits by queue, department "
            "and job size).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", required=True, help="cluster name (as ingested)")
        parser.add_argument("--start", help="first month, YYYY-MM (with --end; default: the last whole year)")
        parser.add_argument("--end", help="last month, YYYY-MM (inclusive)")
        machine = parser.add_mutually_exclusive_group(required=True)
        machine.add_argument("--processors", type=int, help="a pool of P processors")
        machine.add_argument("--design", type=int, help="a design's id: its nodes in --year")
        parser.add_argument("--year", type=int, help="the design's year (with --design)")
        parser.add_argument("--policy", choices=["fcfs", "easy"], default="easy")
        parser.add_argument("--mode", choices=list(MODES), default=None,
                            help="pool (processors anywhere) or nodes (the design's node types; default with "
                                 "--design)")
        parser.add_argument("--load-scale", type=float, default=1.0,
                            help="arrival rate x F (inter-arrival times / F; docs/replay.md)")
        parser.add_argument("--json", action="store_true", help="the full summary with breakdowns as the JSON line")
        parser.add_argument("--queue-priority", metavar="Q1,Q2,...",
                            help="the cluster's queues from most to least urgent: waiting jobs are ordered by "
                                 "(priority, submit); queues not named come last (default: one FCFS queue)")

    def handle(self, *args: Any, **options: Any) -> None:
        design = None
        if options["design"] is not None:
            from planner.designs.models import Design

            design = Design.objects.filter(pk=options["design"]).first()
            if design is None:
                raise CommandError(f"--design {options['design']}: no such design")
            if options["year"] is None:
                raise CommandError("--design needs --year Y")
        elif options["year"] is not None:
            raise CommandError("--year goes with --design")
        mode = options["mode"] or ("nodes" if design is not None else "pool")
        try:
            summary = run_replay(cluster=options["cluster"], start=options["start"], end=options["end"],
                                 processors=options["processors"], design=design, year=options["year"],
                                 policy=options["policy"], mode=mode, load_scale=options["load_scale"],
                                 queue_priority=[q.strip() for q in (options["queue_priority"] or "").split(",")
                                                 if q.strip()] or None)
        except ReplayError as exc:
            raise CommandError(str(exc)) from None
        err = sys.stderr
        print(f"  {summary['cluster']} jobs submitted {summary['period'][0]} to {summary['period'][1]} (exclusive), "
              f"{summary['policy'].upper()} on {summary['machine']} ({summary['mode']} mode), load x"
              f"{summary['load_scale']:g}", file=err)
        print(f"  {summary['jobs_simulated']:,} jobs simulated, {summary['jobs_not_simulated']:,} not"
              + "".join(f"; {n:,} {why}" for why, n in summary["not_simulated_reasons"].items()), file=err)
        print(f"  wait: mean {_hours(summary['mean_wait'])}, median {_hours(summary['median_wait'])}, "
              f"p95 {_hours(summary['p95_wait'])}, max {_hours(summary['max_wait'])}; bounded slowdown "
              f"{summary['mean_bounded_slowdown'] or 0:,.2f}; utilisation {summary['utilisation'] or 0:.1%}", file=err)
        for name, s in summary["by_queue"].items():
            print(f"    queue {name}: {s['jobs']:,} jobs, mean {_hours(s['mean_wait'])}, p95 {_hours(s['p95_wait'])}",
                  file=err)
        if summary["jobs_per_second"]:
            print(f"  {summary['jobs_per_second']:,.0f} jobs/s", file=err)
        out = summary if options["json"] else {k: summary[k] for k in COMPACT}
        self.stdout.write(json.dumps(out, allow_nan=False))
