"""Reads about what the accounting logs cover (Django selectors; used by usage series, the dashboard and chargeback)."""

from __future__ import annotations

from datetime import date, datetime

from django.db.models import Max

from forecasts.accounting.models import Cluster, IngestRun


def _next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def logs_partial_month(cluster: Cluster | None = None) -> tuple[date, datetime] | None:
    """The month the accounting logs end inside (e.g. exported on the 6th), with the logs' end,
    or None when the latest completed load reaches its month's last day. Its figures are usage so
    far, not comparable with whole months: forecasts leave it out, the dashboard and chargeback say so."""
    runs = IngestRun.objects.filter(status=IngestRun.Status.COMPLETED)
    if cluster is not None:
        runs = runs.filter(cluster=cluster)
    latest_end = runs.aggregate(m=Max("last_end"))["m"]
    if latest_end is None:
        return None
    month = latest_end.date().replace(day=1)
    if (_next_month(month) - latest_end.date()).days <= 1:
        return None
    return month, latest_end
