"""python manage.py import_mappings PATH: scheduler user/group/account -> project and department."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.accounting.org import mappings_import_csv


class Command(BaseCommand):
    help = ("Load identity mappings from CSV (kind,name,department,project,valid_from,valid_to) and "
            "re-attribute usage at once. Bad rows are reported by line; the good ones load.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise CommandError(f"{path}: cannot be read ({exc.strerror})") from exc
        try:
            result = mappings_import_csv(text, filename=path.name)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        for error in result.errors:
            self.stderr.write(error)
        self.stdout.write(json.dumps(result.summary()))
