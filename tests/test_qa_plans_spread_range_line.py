"""A design's sequencer-plan spread with low > high (``uncertainty.plan.samples_per_instrument: [1.2, 0.9]``) was
refused as "uncertainty.plan: uncertainty.samples_per_instrument: ..." with no line: the doubled path matched no
field, so the line finder found none.  The error now names the field's own path and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.designs.scenario import ScenarioError, load_scenario

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "scenarios" / "minerva_narrow_flash.yaml"


def test_a_spread_with_low_above_high_names_its_path_and_line(tmp_path: Path) -> None:
    catalog = (FIXTURE.parent.parent / "catalog.yaml").as_posix()
    text = FIXTURE.read_text(encoding="utf-8").rstrip("\n").replace("catalog: ../catalog.yaml", f"catalog: {catalog}")
    assert "\nuncertainty:" not in text
    text += "\nuncertainty:\n  paths: 10\n  plan:\n    samples_per_instrument: [1.2, 0.9]\n"
    line = text.splitlines().index("    samples_per_instrument: [1.2, 0.9]") + 1
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    message = str(err.value)
    assert "uncertainty.plan.samples_per_instrument: a spread needs 0 < low <= 1 <= high" in message, message
    assert f"(line {line})" in message, message
    assert "uncertainty.plan: uncertainty." not in message
