"""python manage.py import_catalog PATH [PATH...]   (catalog .yaml, or .csv of node types / storage / benchmarks)"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from planner.hardware.services import CatalogImportError, catalog_counts, catalog_import_path


class Command(BaseCommand):
    help = ("Load a hardware catalog YAML (node_types, storage_systems, benchmarks) or a CSV of one kind, as "
            "exported from the Hardware page, into the database. Idempotent: rows are matched by name "
            "(benchmarks by pipeline, node type, storage system and samples) and updated.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("paths", nargs="+", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        files = []
        for path in options["paths"]:
            try:
                stats = catalog_import_path(path)
            except CatalogImportError as exc:
                raise CommandError(str(exc)) from exc
            print(f"  {path}: {stats}", file=sys.stderr)
            files.append(stats)
        self.stdout.write(json.dumps({"status": "ok", "files": files, "catalog": catalog_counts()}))
