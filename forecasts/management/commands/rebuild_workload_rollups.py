"""python manage.py rebuild_workload_rollups [--cluster NAME | --missing]"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.accounting.models import Cluster
from forecasts.workload.services import clusters_needing_rebuild, rebuild_cluster


class Command(BaseCommand):
    help = ("Recompute the workload shape rollups from the jobs (for data loaded before the rollup "
            "table existed). Ingest keeps them current otherwise. Last stdout line: a JSON summary.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", default=None, help="one cluster (default: every cluster)")
        parser.add_argument("--missing", action="store_true", help="only clusters with jobs but no rollups")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        if options["cluster"]:
            try:
                clusters = [Cluster.objects.get(name=options["cluster"])]
            except Cluster.DoesNotExist as exc:
                raise CommandError(f"--cluster: no cluster named {options['cluster']!r}") from exc
        elif options["missing"]:
            clusters = clusters_needing_rebuild()
        else:
            clusters = list(Cluster.objects.all())
        results = [rebuild_cluster(c, log=self.stderr.write) for c in clusters]
        self.stdout.write(json.dumps({"clusters": results, "seconds": round(time.monotonic() - started, 3)}))
