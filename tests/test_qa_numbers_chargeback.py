"""Chargeback totals on the real UB CCR Slurm log (phillips, December 2016 - January 2017), recomputed from the
raw sacct file and compared with the statements.

The independent reading follows the sacct field list of Open XDMoD's layout (docs of the format: JobID,
..., Start (12), End (13), State (16), NCPUS (18), NodeList (24)), skips what XDMoD skips (never ran:
``None assigned``) and prices allocated cores x wall hours at the plan's rate; it shares no code with the
product.  Job 165381 ran from 27 December 2016 to 1 January 2017: the product bills a job whole in the UTC
calendar month it ended in, so it is January's.  The PDF said so; the statement page and its CSV, where a
department head reads the figure, did not.
"""

from __future__ import annotations

import io
from collections import defaultdict
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

PHILLIPS = SHARED_DATA / "slurm" / "xdmod_referencedata_phillips.log"
RATE = Decimal("0.02")

pytestmark = [pytest.mark.django_db, requires_shared]


def independent_charges(month: str, department_of_account: dict[str, str]) -> dict[str, tuple[float, Decimal]]:
    """department -> (core-hours, charge in dollars) of the jobs that ended in ``month`` (UTC)."""
    core_hours: dict[str, float] = defaultdict(float)
    with PHILLIPS.open(encoding="utf-8") as text:
        for line in text:
            f = line.rstrip("\n").split("|", 25)
            if f[24] == "None assigned":
                continue
            start, end = (datetime.fromisoformat(f[i]).replace(tzinfo=UTC) for i in (12, 13))
            if f"{end:%Y-%m}" != month:
                continue
            department = department_of_account.get(f[5], "unassigned")
            core_hours[department] += int(f[18]) * (end - start).total_seconds() / 3600
    return {d: (ch, (Decimal(repr(ch)) * RATE).quantize(Decimal("0.01"), ROUND_HALF_UP))
            for d, ch in core_hours.items()}


@pytest.fixture
def january(departments: dict[str, Any]) -> Any:
    from django.core.management import call_command

    from forecasts.accounting.org import usage_reattribute
    from forecasts.chargeback.demo import rate_plan_load_yaml
    from forecasts.models import IdentityMapping

    call_command("ingest_accounting", "--format", "slurm", "--cluster", "phillips", str(PHILLIPS),
                 stdout=io.StringIO(), stderr=io.StringIO())
    IdentityMapping.objects.create(kind="account", name="chaff", department=departments["genomics"])
    usage_reattribute()
    rate_plan_load_yaml("name: QA\neffective_from: 2016-01-01\n"
                        'compute:\n  - {cluster: "*", queue: "*", core_hour_usd: 0.02}\n')
    out = io.StringIO()
    call_command("chargeback", "--month", "2017-01", "--json", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_statement_totals_match_the_raw_log_and_the_page_and_csv_say_which_jobs_a_month_holds(
        client: Any, planner_user: Any, january: Any) -> None:
    from forecasts.chargeback.models import Statement

    expected = independent_charges("2017-01", {"chaff": "ggs"})
    statements = {s.department.code: s for s in Statement.objects.filter(is_current=True)}
    assert set(statements) == set(expected)
    for code, (core_hours, usd) in expected.items():
        assert statements[code].core_hours == pytest.approx(core_hours, rel=1e-12)
        assert statements[code].total_usd == usd
    assert expected["ggs"][1] == Decimal("217.53")  # 10,876.67 core-hours, most of it job 165381 (27 Dec - 1 Jan)

    login(client, planner_user)
    ggs = statements["ggs"]
    page = client.get(f"/chargeback/statements/{ggs.pk}/").content.decode()
    assert "billed whole in the UTC calendar month it ended in" in page
    csv_text = client.get(f"/chargeback/statements/{ggs.pk}.csv").content.decode()
    assert "# months,UTC calendar months by job end: a job is billed whole in the month it ended in" in csv_text


def test_the_year_csv_names_a_month_with_usage_but_no_statement_instead_of_leaving_it_out(
        client: Any, planner_user: Any, january: Any) -> None:
    """Only January 2017 was priced; December 2016 has genomics usage (3.6 core-hours, independent) but no
    statement.  The year page says so; the year CSV, summed in a ledger, silently left December out."""
    assert independent_charges("2016-12", {"chaff": "ggs"})["ggs"][0] == pytest.approx(3.6067, abs=1e-4)
    login(client, planner_user)
    rows = client.get("/chargeback/departments/ggs/ytd.csv", {"year": "2016"}).content.decode().splitlines()
    assert rows[1:] == ["2016-12,not computed: usage loaded (python manage.py chargeback --month 2016-12),,,,,,"]
    rows = client.get("/chargeback/departments/ggs/ytd.csv", {"year": "2017"}).content.decode().splitlines()
    assert [r.split(",")[:2] for r in rows[1:]] == [["2017-01", "provisional"]]  # the logs end on 1 January
