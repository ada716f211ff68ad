"""A grant report on a new cluster (QA, session 26: the KTH SP2 trace uploaded as kth-sp2, a few of its groups
mapped to a new department). The report read "191 users in 0 projects across 1 departments", named
Unassigned ("a bucket, not a department", as the dashboard says) the largest department, and its default
period began with September 1996, a month the logs begin inside (one day of usage) whose capacity counted
whole, so utilisation was understated. Now: "no projects across 1 department", the largest real department
with Unassigned's share said apart, and the period starts with the first whole month."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db


@pytest.fixture
def sp2(departments: dict[str, Any]) -> Any:
    from forecasts.models import (
        Cluster,
        ClusterCapacity,
        Department,
        Identity,
        IngestRun,
        UsageMonthly,
    )

    cluster = Cluster.objects.create(name="sp2")
    ClusterCapacity.objects.create(cluster=cluster, effective_from=date(1996, 9, 1), cores=100, nodes=100)
    unassigned, _ = Department.objects.get_or_create(code=Department.UNASSIGNED_CODE,
                                                     defaults={"name": "Unassigned"})
    mapped = Identity.objects.create(user="u6", group="g6", account="")
    loose = Identity.objects.create(user="u7", group="g7", account="")
    rows = [UsageMonthly(cluster=cluster, month=date(1996, 9, 1), identity=loose, department=unassigned,
                         jobs=3, core_hours=100.0)]  # the logs begin on 30 September
    for i in range(10):  # October 1996 .. July 1997
        month = date(1996 + (i + 9) // 12, (i + 9) % 12 + 1, 1)
        rows += [UsageMonthly(cluster=cluster, month=month, identity=mapped, department=departments["genomics"],
                              jobs=10, core_hours=20_000.0),
                 UsageMonthly(cluster=cluster, month=month, identity=loose, department=unassigned,
                              jobs=30, core_hours=30_000.0)]
    UsageMonthly.objects.bulk_create(rows)
    IngestRun.objects.create(cluster=cluster, format="swf", status=IngestRun.Status.COMPLETED, records_read=403,
                             jobs_ingested=403,
                             first_start=datetime(1996, 9, 30, 12, 10, tzinfo=UTC),
                             last_end=datetime(1997, 7, 31, 23, 0, tzinfo=UTC))
    return cluster


def test_the_report_counts_in_words_names_a_real_department_and_starts_with_a_whole_month(sp2: Any) -> None:
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    facts = gather_facts(design=load_catalog_and_designs()["narrow"], cluster=sp2)
    assert facts["period"] == {"start": "1996-10-01", "end": "1997-07-01"}
    usage = facts["usage"]
    assert usage["core_hours"] == pytest.approx(500_000.0) and usage["months"] == 10
    assert usage["capacity_core_hours"] == pytest.approx(100 * 24 * 304)  # 1 October 1996 to 1 August 1997
    doc = build_document(facts).to_dict()
    summary, institution = (doc["sections"][i]["blocks"][0]["text"] for i in (0, 1))
    assert "to 2 users in no projects across 1 department, at 69% utilisation" in summary
    assert "2 users in no projects and 1 department." in institution
    assert "The largest department, Genetics and Genomic Sciences, used 40% of the core-hours." in institution
    assert "60% of the core-hours ran under identities no mapping attributes to a department (Unassigned)." \
        in institution
    assert "largest department, Unassigned" not in institution and "departments" not in summary
