"""File-size deciles in the grant report and on the Storage page (QA, session 26, on the demo's nexus-gpfs
scan). The page writes them in binary units, the bins' own edges ("80%: 16.9 KiB", "100%: 64 GiB"), the
report converted them to decimal ("17.3 KB", "68.7 GB", and "Maximum file size 68.7 GB"): the same figure
in two units, not findable on the page it came from. The report now writes them as the page does, and says
1 KiB = 1,024 bytes; totals and means stay decimal (TB, MB) on both."""

from __future__ import annotations

import re
from datetime import date
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs

pytestmark = pytest.mark.django_db


def test_the_reports_deciles_and_largest_file_read_as_on_the_storage_page(tmp_path: Path, planner_user: Any,
                                                                            departments: dict[str, Any]) -> None:
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    sizes = [3, 38, 329, 2_048, 3_788, 17_300, 84_500, 1_000_000, 500_000_000, 68_719_476_736] * 3
    scan = tmp_path / "scan.tsv"
    scan.write_text("".join(f"{n}\tgina\tggs\t1650000000\tf\t/p/f{i}\n" for i, n in enumerate(sizes)))
    call_command("ingest_storage_scan", "--filesystem", "proj", "--format", "tsv", "--date", "2022-06-01",
                 str(scan), stdout=StringIO(), stderr=StringIO())
    facts = gather_facts(design=load_catalog_and_designs()["narrow"], start=date(2022, 1, 1), end=date(2022, 12, 1))
    html = login(Client(), planner_user).get("/usage/storage/?filesystem=proj").content.decode()
    table = html[html.index('id="deciles"'):]
    page = dict(re.findall(r"<td>(\d+)%</td><td class=\"num\">([^<]+)</td>", table[:table.index("</table>")]))
    report = {r["decile"].rstrip("%"): r["max_size"] for r in facts["storage"]["deciles"]}
    assert report == page and page["100"] == "64 GiB"
    rows = {r["label"]: r["value"] for r in facts["storage"]["rows"]}
    assert rows["Maximum file size (proj)"] == "64 GiB"
    assert rows["80% of files smaller than (proj)"] == page["80"]
    caption = next(b["caption"] for s in build_document(facts).to_dict()["sections"] for b in s["blocks"]
                   if b.get("key") == "storage_deciles" and b["type"] == "table")
    assert "1 KiB = 1,024 bytes" in caption
