"""python manage.py bench_replay [--jobs N] [--repeat K] [--swf-dir DIR]: docs/performance.md figures (issue 18)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from planner.replay import bench


class Command(BaseCommand):
    help = ("Measure the replay kernel: numba compile time (cold and from the disk cache), jobs/s on the archive "
            "traces at the golden sizes and on KTH-SP2 at 0.6x (saturated), and N synthetic jobs (default 10 M) "
            "with peak memory. Targets: >= 1 M jobs/s short queues, >= 200 k jobs/s saturated, 10 M jobs < 1 GB. "
            "Last stdout line: JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--jobs", type=int, default=10_000_000)
        parser.add_argument("--repeat", type=int, default=5)
        parser.add_argument("--swf-dir", type=Path, default=bench.DEFAULT_SWF)

    def handle(self, *args: Any, **options: Any) -> None:
        print(f"  {platform.python_version()} on {platform.platform()}", file=sys.stderr)
        bench.main(["--jobs", str(options["jobs"]), "--repeat", str(options["repeat"]),
                    "--swf-dir", str(options["swf_dir"])])
