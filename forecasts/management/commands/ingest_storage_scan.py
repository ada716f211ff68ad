"""python manage.py ingest_storage_scan --filesystem NAME --format tsv|gpfs|histogram PATH [--date D]"""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.storage.services import FORMATS, StorageScanError, ingest_scan, snapshot_summary


class Command(BaseCommand):
    help = ("Load a file-system scan (find/GUFI TSV, GPFS policy LIST, or a size histogram) as a snapshot, "
            "streaming in bounded memory. Last stdout line: a JSON summary.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--filesystem", required=True, help="file system name (created if new)")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--date", default=None, help="scan date YYYY-MM-DD (default: the file's mtime)")
        parser.add_argument("path", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        taken_on = None
        if options["date"]:
            try:
                taken_on = date.fromisoformat(options["date"])
            except ValueError as exc:
                raise CommandError(f"--date: {options['date']!r} is not YYYY-MM-DD") from exc
        started = time.monotonic()

        def progress(done: int, total: int) -> None:
            rate = done / max(time.monotonic() - started, 1e-9) / 1e6
            self.stderr.write(f"  {done / 1e6:,.0f} of {total / 1e6:,.0f} MB ({rate:,.0f} MB/s)")

        try:
            snap = ingest_scan(filesystem=options["filesystem"], fmt=options["format"], path=options["path"],
                               taken_on=taken_on, progress=progress)
        except StorageScanError as exc:
            raise CommandError(str(exc)) from exc
        summary = snapshot_summary(snap)
        for r in summary["rejections"]:
            self.stderr.write(f"  rejected line {r['line']}: {r['reason']}")
        self.stdout.write(json.dumps(summary))
