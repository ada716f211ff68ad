"""python manage.py import_group_mappings FILE [--replace]: groups to roles and departments (YAML or CSV)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from planner.access.rules import RuleError
from planner.access.services import mappings_import
from planner.web.textfiles import UploadTextError, upload_text


class Command(BaseCommand):
    help = ("Create or update the mappings from identity-provider/directory groups to roles and departments "
            "(format: planner/access/rules.py). Applied at each user's next sign-on.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", help="YAML (mappings: [...]) or CSV (group,role,departments,source)")
        parser.add_argument("--replace", action="store_true", help="remove mappings that are not in the file")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        try:  # as the upload page: not UTF-8, or a NUL byte, is refused with its line
            text = upload_text(path.read_bytes(), path.name)
        except OSError as exc:
            raise CommandError(f"{path}: cannot read ({exc.strerror})") from None
        except UploadTextError as exc:
            raise CommandError(str(exc)) from None
        try:
            result = mappings_import(text=text, filename=path.name, replace=options["replace"])
        except RuleError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{path.name}: {result.created} created, {result.updated} changed, {result.removed} removed")
