"""python manage.py bench_storage_scan [--lines N]: scan ingest throughput, parse to database."""

from __future__ import annotations

import json
import resource
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from forecasts.storage.bench import generate_blocks
from forecasts.storage.models import FileSystem
from forecasts.storage.services import ingest_scan

SCRATCH = "bench-scan"


class Command(BaseCommand):
    help = ("Write a deterministic find/TSV scan of N lines (forecasts/storage/bench.py's generator) to a "
            "temporary file, then time the whole ingest (stream, accumulate, write the snapshot) and report "
            "lines/s and the peak resident memory. The scratch file system 'bench-scan' is removed after.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--lines", type=int, default=10_000_000)

    def handle(self, *args: Any, **options: Any) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scan.tsv"
            with path.open("wb") as out:
                for block in generate_blocks(options["lines"]):
                    out.write(block)
            size_mb = path.stat().st_size / 1e6
            self.stderr.write(f"scan file: {size_mb:,.0f} MB")
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            started, cpu = time.perf_counter(), time.process_time()
            snap = ingest_scan(filesystem=SCRATCH, fmt="tsv", path=path, taken_on=date(2013, 9, 1))
            seconds, cpu_s = time.perf_counter() - started, time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        result = {"lines": snap.lines_read, "files": snap.files, "file_mb": round(size_mb, 1),
                  "seconds": round(seconds, 2), "lines_per_s": round(snap.lines_read / seconds),
                  "cpu_s": round(cpu_s, 2), "lines_per_cpu_s": round(snap.lines_read / cpu_s),
                  "peak_rss_mb": round(peak, 1), "rss_before_ingest_mb": round(rss_before, 1),
                  "median_size_bytes": snap.median_size_bytes, "rejected": snap.lines_rejected}
        FileSystem.objects.filter(name=SCRATCH).delete()
        self.stdout.write(json.dumps(result))
