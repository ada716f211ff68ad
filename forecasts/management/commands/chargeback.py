"""python manage.py chargeback --month YYYY-MM [--department CODE] [--json]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from forecasts.chargeback.services import ChargebackError, parse_month, statements_compute


class Command(BaseCommand):
    help = ("Compute (or re-compute) the month's chargeback statements at the rate plan in force. "
            "Unchanged statements are kept; changed ones get a new version and the old one is kept. "
            "Last stdout line: a JSON summary with totals per department.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--month", required=True, help="calendar month (UTC, by job end), e.g. 2025-03")
        parser.add_argument("--department", default=None, help="only this department (its code, e.g. ggs)")
        parser.add_argument("--reason", default="", help="why this re-computation (kept on new versions)")
        parser.add_argument("--json", action="store_true", help="print the JSON summary (always the last line)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            month = parse_month(options["month"])
            result = statements_compute(month=month, department=options["department"], reason=options["reason"],
                                        progress=self.stderr.write)
        except ChargebackError as exc:
            raise CommandError(str(exc)) from exc
        except DatabaseError as exc:
            raise CommandError(f"database error: {str(exc).strip().splitlines()[0]}") from exc
        summary = result.summary()
        for d in summary["departments"]:  # type: ignore[attr-defined]
            self.stderr.write(f"  {d['department']:<12} v{d['version']:<3} {d['core_hours']:>14,.1f} core-h  "
                              f"${d['total_usd']:>12}")
        self.stderr.write(f"{summary['statements']} statements, {summary['new_versions']} new versions, "
                          f"total ${summary['total_usd']}")
        self.stdout.write(json.dumps(summary))
