"""Bad scenario files (QA, session 25): each error one line naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.designs.scenario import ScenarioError, load_scenario
from planner.web.yaml_lines import with_lines

MINERVA = Path(__file__).resolve().parent.parent / "fixtures" / "scenarios" / "minerva_narrow_flash.yaml"


def _broken(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    text = MINERVA.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new, 1)
    line = text[: text.index(new)].count("\n") + 1
    (tmp_path / "catalog.yaml").write_text((MINERVA.parent.parent / "catalog.yaml").read_text(encoding="utf-8"))
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "genomics.yaml").write_text(
        (MINERVA.parent.parent / "benchmarks" / "genomics.yaml").read_text(encoding="utf-8"))
    path = tmp_path / "scenarios" / "bad.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return path, line


def test_a_field_error_names_the_line_of_the_field(tmp_path: Path) -> None:
    path, line = _broken(tmp_path, "storage_tb: 1477,", "storage_tb: 1477 TB,")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert exc.value.errors == [f"demand[0].storage_tb: expected a number, got '1477 TB' (line {line})"]


def test_an_unknown_key_names_its_line(tmp_path: Path) -> None:
    path, line = _broken(tmp_path, "horizon:", "horizn:")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert f"horizn: unknown field (line {line})" in exc.value.errors


def test_an_error_of_a_missing_field_names_the_line_of_its_parent_and_the_web_names_the_file() -> None:
    text = "name: x\nhorizon:\n  start_year: 2014\n"
    assert with_lines(["horizon.end_year: required"], text, "s.yaml") == ["s.yaml: horizon.end_year: required (line 2)"]
    assert with_lines(["demand: no entry for year 2014"], text) == ["demand: no entry for year 2014"]


def test_a_flash_line_with_zero_tb_has_one_error_not_a_second_asking_for_a_count(tmp_path: Path) -> None:
    path, line = _broken(tmp_path, "{year: 2014, flash_tb: 160,", "{year: 2014, flash_tb: 0,")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert exc.value.errors == [f"purchases[1].flash_tb: must be > 0, got 0 (line {line})"]
