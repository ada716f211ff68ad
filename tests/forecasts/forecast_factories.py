"""Usage history for forecast tests: a few departments' monthly rollups with known totals."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

from forecasts.demand.growth import add_months


def usage_history(departments: dict[str, Any], *, months: int = 48, cluster: str = "minerva",
                  start: date = date(2020, 1, 1)) -> dict[str, Any]:
    """Genomics grows 3% a month from 100k core-hours, chemistry linearly from 50k (+1k/month);
    each has two users (one of them in both months' rows twice, to test distinct counting)."""
    from forecasts.models import Cluster, Identity, UsageMonthly

    c, _ = Cluster.objects.get_or_create(name=cluster)
    ids = {
        "g1": Identity.objects.get_or_create(user="gina", group="ggs", account="")[0],
        "g2": Identity.objects.get_or_create(user="gus", group="ggs", account="")[0],
        "g1b": Identity.objects.get_or_create(user="gina", group="ggs", account="big")[0],
        "c1": Identity.objects.get_or_create(user="chris", group="scb", account="")[0],
    }
    rows = []
    for i in range(months):
        m = add_months(start, i)
        g = 100_000 * math.exp(0.03 * i) * (1 + 0.02 * math.sin(i))
        ch = 50_000 + 1_000 * i + 500 * math.cos(i)
        rows += [
            UsageMonthly(cluster=c, month=m, identity=ids["g1"], department=departments["genomics"],
                         jobs=100 + i, core_hours=g * 0.6),
            UsageMonthly(cluster=c, month=m, identity=ids["g1b"], department=departments["genomics"],
                         jobs=10, core_hours=g * 0.1),
            UsageMonthly(cluster=c, month=m, identity=ids["g2"], department=departments["genomics"],
                         jobs=50, core_hours=g * 0.3),
            UsageMonthly(cluster=c, month=m, identity=ids["c1"], department=departments["chemistry"],
                         jobs=20 + i, core_hours=ch),
        ]
    UsageMonthly.objects.bulk_create(rows)
    return {"cluster": c, "start": start, "months": months}
