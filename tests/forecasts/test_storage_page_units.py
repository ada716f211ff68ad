"""The storage page writes holdings in decimal TB, one unit per column, so its rows add up to its headline
and match the CSV; sizes are decimal (MB, GB) and block sizes exact binary (KiB)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from forecasts.models import IdentityMapping
from forecasts.storage.display import binary_size, column_unit, decimal_size, in_unit
from tests.helpers import login

# Terabyte-sized files (a scan lists sizes; nothing is written): genetics holds 27.25 TB, which
# Django's binary filesizeformat would have shown as "24.8 TB", chemistry 37.11 TB, and a few small files.
GENETICS_BYTES = [20_000_000_000_000, 7_250_000_000_000]
CHEMISTRY_BYTES = [37_110_000_000_000]
SMALL = [(512, "ggs"), (3_000, "scb"), (700_000, "ggs")]


def test_decimal_sizes_and_one_unit_per_column() -> None:
    assert decimal_size(485_206_147) == "485.2 MB"
    assert decimal_size(812) == "812 B" and decimal_size(None) == ""
    assert decimal_size(27_250_000_000_000, 2) == "27.25 TB"
    assert column_unit([3_000, 2_500_000_000]) == ("GB", 10**9) and column_unit([]) == ("B", 1)
    assert in_unit(27_250_000_000_000, 10**12) == "27.25" and in_unit(812, 1) == "812"
    assert binary_size(8192) == "8 KiB" and binary_size(1536) == "1.5 KiB" and binary_size(100) == "100 B"


@pytest.fixture
def scan(tmp_path: Path, capsys: Any, departments: dict[str, Any]) -> dict[str, Any]:
    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    lines = [f"{b}\tgina\tggs\t1700000000\tf\t/g/big{i}\n" for i, b in enumerate(GENETICS_BYTES)]
    lines += [f"{b}\tchris\tscb\t1700000000\tf\t/c/big{i}\n" for i, b in enumerate(CHEMISTRY_BYTES)]
    lines += [f"{b}\tuser\t{g}\t1700000000\tf\t/s/f{i}\n" for i, (b, g) in enumerate(SMALL)]
    path = tmp_path / "scan.tsv"
    path.write_text("".join(lines))
    call_command("ingest_storage_scan", "--filesystem", "proj", "--format", "tsv", "--date", "2024-03-01", str(path))
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _department_rows(html: str) -> dict[str, float]:
    table = html.split('id="by-department"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tfoot>", 1)[0]
    return {name: float(tb.replace(",", "")) for name, tb in
            re.findall(r'<tr><td>([^<]+)</td><td class="num"[^>]*>([\d.,]+)</td>', body)}


@pytest.mark.django_db
def test_a_planners_department_rows_are_decimal_tb_adding_up_to_the_headline_and_the_csv(
        client: Any, planner_user: Any, scan: dict[str, Any]) -> None:
    login(client, planner_user)
    html = client.get(reverse("storage")).content.decode()
    rows = _department_rows(html)
    assert rows == {"Structural and Chemical Biology": 37.11, "Genetics and Genomic Sciences": 27.25}
    headline = float(re.search(r'id="kpi-tb">([\d.,]+)<', html).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert headline == pytest.approx(64.36)
    assert sum(rows.values()) == pytest.approx(headline, abs=0.01 * len(rows))
    total = re.search(r'id="by-department-total">([\d.,]+)<', html).group(1)  # type: ignore[union-attr]
    assert float(total) == pytest.approx(headline)
    exported = list(csv.DictReader(io.StringIO(client.get(reverse("storage-csv")).content.decode())))
    assert {r["department"]: round(int(r["bytes"]) / 1e12, 2) for r in exported} == rows
    assert "24.8" not in html and "filesizeformat" not in html


@pytest.mark.django_db
def test_small_files_and_mean_size_are_decimal_in_one_unit(client: Any, planner_user: Any,
                                                           scan: dict[str, Any]) -> None:
    login(client, planner_user)
    response = client.get(reverse("storage"))
    html = response.content.decode()
    sizes = response.context["sizes"]
    mean = sum(GENETICS_BYTES + CHEMISTRY_BYTES + [b for b, _ in SMALL]) / 6
    assert sizes["mean"] == decimal_size(mean) and sizes["mean"].endswith(" TB")
    assert re.search(r'id="kpi-mean"[^>]*>[\d.,]+ TB<', html)
    # the small-file column is in one unit (kB here: the biggest is 700 kB under 1 MiB), fixed decimals
    assert sizes["small_files_unit"] == "kB" and "kB they hold" in html
    under_1mib = next(s for s in sizes["small_files"] if s["under_bytes"] == 1048576)
    assert under_1mib["label"] == "< 1 MiB" and under_1mib["amount"] == "703.51"
    assert "KiB sub-block" in html and "4 KiB inode" in html


@pytest.mark.django_db
def test_a_viewers_rows_are_decimal_tb_and_match_their_csv(client: Any, genomics_viewer: Any,
                                                            scan: dict[str, Any]) -> None:
    login(client, genomics_viewer)
    rows = _department_rows(client.get(reverse("storage")).content.decode())
    exported = list(csv.DictReader(io.StringIO(client.get(reverse("storage-csv")).content.decode())))
    assert rows == {"Genetics and Genomic Sciences": 27.25}
    assert {r["department"]: round(int(r["bytes"]) / 1e12, 2) for r in exported} == rows
