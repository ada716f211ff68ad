"""The workload table of a report, from the workload-characterisation capability when installed.

Kept apart so the report follows that capability's selectors as they land; without them the
section says plainly that no workload characterisation is available (never invented numbers).
"""

from __future__ import annotations

from datetime import date
from typing import Any


def workload_facts(*, cluster: Any, start: date, end: date, refs: list[str]) -> dict[str, Any] | None:
    try:
        from forecasts import selectors_workload  # noqa: F401
    except ImportError:
        return None
    return None
