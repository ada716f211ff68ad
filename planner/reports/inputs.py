"""What a report is written from: the forecast and plan its design links, and a usage period with data.

A report's forecast and sequencer plan default to the ones the DESIGN links (its scenario's
``uncertainty.forecast.core_fit`` and ``.sequencer_plan``, as ``planner.designs.uncertainty`` stores
them), never to "the latest of the cluster": another cluster's forecast beside a design sized on typed-in
figures gave three demand numbers that contradicted each other. The form, the API and the service refuse
a period in which the chosen cluster has no usage, naming the months that have some.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Max, Min

from forecasts.accounting.models import Cluster
from forecasts.usage.selectors import usage_filtered
from planner.designs.uncertainty import parse_uncertainty


def design_links(design: Any) -> dict[str, int]:
    """The stored forecasts the design's scenario links ({} when it links none), read as the scenario's own
    validation reads them (planner.designs.uncertainty.parse_uncertainty)."""
    spec = parse_uncertainty((design.scenario or {}).get("uncertainty"), [])
    return dict(spec.forecast) if spec is not None else {}


def _month(d: date) -> str:
    return f"{d:%Y-%m}"


def period_problem(cluster: Cluster | None, start: date | None, end: date | None) -> str | None:
    """Why a report cannot be written on this period (one line), or None: the cluster must have usage in it."""
    if start is None or end is None:
        return None
    where = cluster.name if cluster else "any cluster"
    name = cluster.name if cluster else None
    if usage_filtered(cluster=name, start=start, end=end).exists():
        return None
    span = usage_filtered(cluster=name).aggregate(lo=Min("month"), hi=Max("month"))
    if span["lo"] is None:
        return (f"No usage of {where} is loaded, so {_month(start)} to {_month(end)} has none: load accounting "
                "logs first.")
    return (f"No usage of {where} in {_month(start)} to {_month(end)}: its usage covers {_month(span['lo'])} to "
            f"{_month(span['hi'])}.")
