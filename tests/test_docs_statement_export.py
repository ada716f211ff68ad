"""docs/commands.md describes a chargeback statement's CSV and XLSX header rows, including the '# note' rows that
b288712 added (a finance office reads the docs to know what the rows above the columns are): every header key
the CSV writes is named there, and the XLSX has the same keys."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login

DOCS = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


@pytest.mark.django_db
def test_every_header_row_of_a_statement_export_is_documented(
        departments: dict[str, Any], tmp_path: Any, admin_user: Any) -> None:
    import openpyxl

    from tests.forecasts.chargeback_data import scb_statement_with_scan_carried_forward

    scb = scb_statement_with_scan_carried_forward(departments, tmp_path)
    assert scb.notes  # the storage carried forward: a '# note' row is written
    client = login(Client(), admin_user)
    rows = list(csv.reader(io.StringIO(client.get(f"/chargeback/statements/{scb.pk}.csv").content.decode())))
    keys = [r[0] for r in rows if r and r[0].startswith("# ")]
    assert "# note" in keys
    docs = " ".join(DOCS.read_text().split())
    for key in dict.fromkeys(keys):
        assert f"`{key}`" in docs, f"docs/commands.md does not name the statement CSV's header row {key!r}"
    wb = openpyxl.load_workbook(io.BytesIO(client.get(f"/chargeback/statements/{scb.pk}.xlsx").content))
    xlsx_keys = [r[0] for r in wb.active.iter_rows(values_only=True)][:len(keys)]
    assert xlsx_keys == [k[2:] for k in keys]  # "keys without the #", as the docs say
