"""evaluate_design, optimize_design, import_catalog and bench_design from the shell: JSON last, clear failures."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from planner.models import Design, NodeType
from tests.planner.designs_data import ROOT, SCENARIOS


def _run(*args: str) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_evaluate_design_prints_the_evaluation_as_json() -> None:
    out = _run("evaluate_design", str(SCENARIOS / "minerva_narrow_flash.yaml"), "--json")
    y2015 = next(y for y in out["evaluation"]["years"] if y["year"] == 2015)
    assert y2015["nodes"] == 536  # Table 3
    # the design targeted 3-4 years: with the performance model its genomes outgrow it in 2018
    assert out["feasible"] is False and out["failures"][0]["year"] == 2018


def test_an_invalid_scenario_exits_non_zero_naming_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((SCENARIOS / "minerva_narrow_flash.yaml").read_text().replace("count: 209", "count: -3")
                   .replace("catalog: ../catalog.yaml", f"catalog: {ROOT / 'fixtures' / 'catalog.yaml'}"))
    for command in ("evaluate_design", "optimize_design"):
        with pytest.raises(CommandError, match=r"purchases\[0\]\.count: must be > 0"):
            call_command(command, str(bad), "--json", stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="file not found"):
        call_command("evaluate_design", str(tmp_path / "missing.yaml"), stdout=io.StringIO())


def test_a_scenario_that_is_not_utf8_or_holds_a_nul_is_refused_with_its_line(tmp_path: Path) -> None:
    text = (SCENARIOS / "minerva_narrow_flash.yaml").read_text().replace(
        "catalog: ../catalog.yaml", f"catalog: {ROOT / 'fixtures' / 'catalog.yaml'}")
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(text.encode() + "# Universit\u00e9 de Gen\u00e8ve\n".encode("latin-1"))
    line = text.count("\n") + 1
    with pytest.raises(CommandError) as got:  # was Python's "'utf-8' codec can't decode byte 0xe9 in position ..."
        call_command("evaluate_design", str(latin1), "--json", stdout=io.StringIO(), stderr=io.StringIO())
    assert str(got.value).endswith(f"{latin1} line {line}: not UTF-8 text (byte {len(text.encode()) + 11}); save it as "
                              "UTF-8 (or CSV UTF-8 from a spreadsheet)") and "\n" not in str(got.value)
    nul = tmp_path / "nul.yaml"
    nul.write_text(text.replace("horizon:", "hori\x00zon:", 1))
    line = text[:text.index("horizon:")].count("\n") + 1
    with pytest.raises(CommandError, match=rf"nul.yaml line {line}: a NUL byte \(a binary or damaged file\)$"):
        call_command("optimize_design", str(nul), "--json", stdout=io.StringIO(), stderr=io.StringIO())
    # a byte-order mark (a spreadsheet's or Notepad's UTF-8) is read, as an upload's is
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert _run("evaluate_design", str(bom), "--json")["evaluation"]["years"]


def test_optimize_design_reports_an_optimal_plan() -> None:
    out = _run("optimize_design", str(SCENARIOS / "minerva_optimised.yaml"), "--json", "--time-limit", "20")
    assert out["status"] in ("optimal", "gap") and out["mip_gap"] <= 1e-3
    assert out["evaluation"]["feasible"] is True and out["purchases"]


@pytest.mark.django_db
def test_import_catalog_and_evaluate_with_save_store_a_design(tmp_path: Path) -> None:
    out = _run("import_catalog", str(ROOT / "fixtures" / "catalog.yaml"))
    assert out["catalog"] == {"node_types": 4, "storage_systems": 8, "benchmarks": 15}
    csv_file = tmp_path / "nodes.csv"
    from planner.hardware.services import catalog_export_csv

    csv_file.write_text(catalog_export_csv("node_types").replace("haswell", "haswell-2", 1))
    out = _run("import_catalog", str(csv_file))
    assert out["files"][0]["created"] == 1 and NodeType.objects.filter(name="haswell-2").exists()
    csv_file.write_text("name,cores_per_node\nx,many\n")
    with pytest.raises(CommandError, match="nodes.csv line 1: missing column"):
        call_command("import_catalog", str(csv_file), stdout=io.StringIO(), stderr=io.StringIO())
    out = _run("evaluate_design", str(SCENARIOS / "minerva_wide_amd_disk.yaml"), "--save")
    assert Design.objects.get(pk=out["design_id"]).evaluations.count() == 1


def test_evaluate_design_names_shortfalls_in_words_with_their_units(capsys: pytest.CaptureFixture[str]) -> None:
    """The per-year lines read as the design page does, not 'core_hours -4.678e+06 core-hours'."""
    call_command("evaluate_design", str(SCENARIOS / "minerva_narrow_flash.yaml"), stdout=io.StringIO())
    y2019 = next(line for line in capsys.readouterr().err.splitlines() if line.strip().startswith("2019:"))
    assert "short: Compute (core-hours at target) by 4,677,851, Genomes per day by 63.9 genomes/day" in y2019
    assert "core_hours" not in y2019 and "e+0" not in y2019 and " -" not in y2019
