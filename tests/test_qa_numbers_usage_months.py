"""Monthly core-hours per department on the real KTH SP2 trace, recomputed from the raw file and compared with
what the product exports.

The independent reading below follows the Standard Workload Format's own definition (fields 2-5, 13;
times are seconds after the header's UnixStartTime) and shares no code with the product's parser.  The
product assigns a job wholly to the UTC calendar month it ended in (docs, the usage page and the API say
so); so does this reading.  The KTH logs end on 29 August 1997, inside the month: the page draws August
apart as "so far", and the CSV and the API, which a director downloads and averages, must say so too
(they listed it as a whole month).
"""

from __future__ import annotations

import csv
import gzip
import io
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import pytest
from django.urls import reverse

from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

KTH = SHARED_DATA / "swf" / "cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz"

pytestmark = [pytest.mark.django_db, requires_shared]


def independent_monthly(path: Any, department_of_group: dict[str, str]) -> dict[tuple[str, str], tuple[float, int]]:
    """(month, department) -> (core-hours, jobs) straight from the SWF text."""
    start = None
    out: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    with gzip.open(path, "rt") as text:
        lines = text.readlines()
    for line in lines:
        if line.startswith(";"):
            if "UnixStartTime:" in line:
                start = int(line.split(":")[1])
            continue
        f = [float(x) for x in line.split()]
        if not f:
            continue
        assert start is not None
        wait, run, procs = max(f[2], 0), max(f[3], 0), max(f[4], 0)  # -1 = unknown
        end = start + f[1] + wait + run
        month = datetime.fromtimestamp(end, UTC).strftime("%Y-%m")
        key = (month, department_of_group.get(str(int(f[12])), "unassigned"))
        out[key][0] += procs * run / 3600
        out[key][1] += 1
    return {k: (v[0], int(v[1])) for k, v in out.items()}


@pytest.fixture
def kth(departments: dict[str, Any]) -> Any:
    from django.core.management import call_command

    from forecasts.models import IdentityMapping

    call_command("ingest_accounting", "--format", "swf", "--cluster", "kth", str(KTH), stdout=io.StringIO(),
                 stderr=io.StringIO())
    IdentityMapping.objects.create(kind="group", name="g6", department=departments["genomics"])
    from forecasts.accounting.org import usage_reattribute

    usage_reattribute()


def test_the_usage_csv_and_api_give_the_independent_monthly_core_hours_and_mark_the_partial_month(
        client: Any, planner_user: Any, kth: Any) -> None:
    expected = independent_monthly(KTH, {"6": "ggs"})
    login(client, planner_user)
    rows = list(csv.DictReader(io.StringIO(client.get(reverse("usage-csv"), {"cluster": "kth"}).content.decode())))
    got = {(r["month"], r["department_code"]): (float(r["core_hours"]), int(r["jobs"])) for r in rows}
    assert got.keys() == expected.keys()
    for key, (core_hours, jobs) in expected.items():
        assert got[key][0] == pytest.approx(core_hours, abs=0.006), key  # the CSV rounds to 2 decimals
        assert got[key][1] == jobs, key
    # the logs end on 1997-08-29: August is usage so far, and the CSV says so on its rows; whole months do not
    partial = {r["month"]: r["partial"] for r in rows}
    assert partial["1997-08"] == "logs end 1997-08-29: usage so far"
    assert partial["1997-07"] == "" and partial["1996-10"] == ""

    api = client.get("/api/v1/usage/monthly/", {"cluster": "kth"}).json()
    assert {(r["month"], r["department"]) for r in api} == set(expected)
    for r in api:
        assert r["core_hours"] == pytest.approx(expected[(r["month"], r["department"])][0], abs=1e-4)
        assert r["partial"] is (r["month"] in ("1996-09", "1997-08"))  # the logs begin and end inside these
        assert r["logs_end"] == ("1997-08-29T08:55:01+00:00" if r["month"] == "1997-08" else None)


def test_the_month_the_logs_begin_inside_is_named_a_part_month_on_the_page_csv_and_api(
        client: Any, planner_user: Any, kth: Any) -> None:
    """KTH's first job started on 30 September 1996 (the cleaned trace dropped its first 14 jobs): September
    holds 100 core-hours against ~50,000 in a whole month, and read as a whole month it looked like a ramp."""
    login(client, planner_user)
    page = client.get(reverse("usage"), {"cluster": "kth"}).content.decode()
    assert "September 1996 is a part month: the logs begin on 30 September 1996" in page
    rows = list(csv.DictReader(io.StringIO(client.get(reverse("usage-csv"), {"cluster": "kth"}).content.decode())))
    assert {r["partial"] for r in rows if r["month"] == "1996-09"} == {"logs begin 1996-09-30: part month"}
    api = client.get("/api/v1/usage/monthly/", {"cluster": "kth"}).json()
    september = [r for r in api if r["month"] == "1996-09"]
    assert september and all(r["partial"] and r["logs_start"] == "1996-09-30T12:10:27+00:00" for r in september)
    assert all(r["logs_start"] is None for r in api if r["month"] != "1996-09")


def test_the_workload_growth_csv_marks_the_same_part_months(client: Any, planner_user: Any, kth: Any) -> None:
    """The workload page's growth chart downloads the same monthly core-hours per department; its CSV listed
    September 1996 and August 1997 as whole months."""
    expected = independent_monthly(KTH, {"6": "ggs"})
    login(client, planner_user)
    text = client.get(reverse("workload-csv", args=["growth"]), {"cluster": "kth"}).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {(r["month"][:7], r["department"]): pytest.approx(float(r["core_hours"]), abs=1e-6)
            for r in rows} == {k: v[0] for k, v in expected.items()}
    partial = {r["month"][:7]: r["partial"] for r in rows}
    assert partial["1996-09"] == "logs begin 1996-09-30: part month"
    assert partial["1997-08"] == "logs end 1997-08-29: usage so far"
    assert partial["1997-07"] == ""
