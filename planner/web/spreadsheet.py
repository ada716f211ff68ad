"""Text cells of exported CSV files that a spreadsheet opens as text, never as a formula."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: str) -> str:
    """A cell a spreadsheet opens as text: one starting like a formula gets a leading apostrophe.

    Exports carry text people typed (design names, narratives, project and PI names of the identity
    mappings); '=HYPERLINK(...)' or '=WEBSERVICE(...)' written as is runs when finance or an admin opens
    the file. Numbers (-12.5) are left as they are. OWASP's advice for CSV injection.
    """
    if not cell.startswith(FORMULA_STARTS):
        return cell
    try:
        float(cell)
    except ValueError:
        return "'" + cell
    return cell


class SafeWriter:
    """csv.writer whose text cells are ``spreadsheet_safe``: for exports whose text comes from accounting logs
    (job names, users, queues, rejected raw lines), which any user of a cluster can choose."""

    def __init__(self, target: Any, **options: Any) -> None:
        self._writer = csv.writer(target, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([spreadsheet_safe(c) if isinstance(c, str) else c for c in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def safe_writer(target: Any, **options: Any) -> SafeWriter:
    """``csv.writer(target, **options)`` with every text cell opened as text (``spreadsheet_safe``)."""
    return SafeWriter(target, **options)
