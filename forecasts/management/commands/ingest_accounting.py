"""python manage.py ingest_accounting --format F --cluster NAME [--timezone TZ] PATH..."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from forecasts.accounting.load import IngestError, ingest_run_create, ingest_run_execute
from forecasts.accounting.models import IngestRun
from forecasts.accounting.parsers.formats import FORMATS, UnknownFormat


class Command(BaseCommand):
    help = ("Load batch-scheduler accounting files (optionally gzip/bzip2) into the jobs table. "
            "Idempotent: loading a file twice adds nothing. Last stdout line: a JSON summary.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--format", required=True, help=f"one of: {', '.join(FORMATS)}")
        parser.add_argument("--cluster", required=True, help="cluster name (created if new)")
        parser.add_argument("--timezone", default=None, help="IANA zone of local times in the files")
        parser.add_argument("--resume", type=int, default=None, metavar="RUN",
                            help="resume an interrupted run by id instead of starting a new one")
        parser.add_argument("paths", nargs="*", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        last = [0.0]

        def progress(done: int, total: int | None) -> None:
            now = time.monotonic()
            if now - last[0] >= 1.0:
                last[0] = now
                rate = done / max(now - started, 1e-9)
                of = f" of ~{total:,}" if total else ""
                print(f"  {done:,}{of} records  ({rate:,.0f}/s)", file=sys.stderr)

        try:
            if options["resume"]:
                run_id = options["resume"]
                if not IngestRun.objects.filter(pk=run_id).exists():
                    raise CommandError(f"no ingest run {run_id} to resume")
            else:
                if not options["paths"]:
                    raise CommandError("give at least one PATH")
                run_id = ingest_run_create(cluster_name=options["cluster"], fmt=options["format"],
                                           paths=options["paths"], tz=options["timezone"]).pk
            run = ingest_run_execute(run_id, progress=progress)
        except (UnknownFormat, IngestError) as exc:
            raise CommandError(str(exc)) from exc
        except DatabaseError as exc:
            raise CommandError(f"database error: {str(exc).strip().splitlines()[0]}") from exc
        self.stdout.write(json.dumps(run.summary()))
        if run.status == IngestRun.Status.NOTHING_LOADED:  # every record refused: say where and why, exit 1
            first = run.rejections.select_related("file").order_by("file__position", "line").first()
            where = f"{first.file.name}, line {first.line}: {first.reason}; " if first else ""
            raise CommandError(f"{where}{run.error}")
