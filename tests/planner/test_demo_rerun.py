"""`make run` on a database the demo was loaded into before, after people changed the demo's data.

Found on a QA walk: an administrator renamed the catalog's node type 'haswell' (the Minerva scenarios name it);
the next `make run` refused to start: 'ScenarioError: purchases[3].node_type: unknown node type haswell'. A
step that fails on a database loaded before is now said in one line and skipped; on a new database a failing
step still stops the start (it is a defect of the demo, not of someone's edit)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db

RAN: list[str] = []


def failing_step(log: Any) -> None:
    raise ValueError("purchases[3].node_type: unknown node type 'haswell'")


def later_step(log: Any) -> None:
    RAN.append("later")


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Any) -> None:
    import planner.demo

    settings.DATA_DIR = tmp_path
    RAN.clear()
    monkeypatch.setattr(planner.demo, "DEMO_STEPS", [("designs", f"{__name__}.failing_step"),
                                                     ("replay", f"{__name__}.later_step")])


def test_a_step_broken_by_an_edit_since_the_demo_was_loaded_is_skipped_and_said(steps: None) -> None:
    from planner.demo import load_demo, load_organisation

    load_organisation(lambda _msg: None)  # the demo was loaded here before
    said: list[str] = []
    credentials = load_demo(said.append)
    assert "admin" in credentials and RAN == ["later"]
    skipped = [m for m in said if "skipped" in m]
    assert len(skipped) == 1 and "unknown node type 'haswell'" in skipped[0]
    assert "the demo's data was changed here" in skipped[0]


def test_on_a_new_database_a_failing_step_still_stops_the_start(steps: None) -> None:
    from planner.demo import load_demo

    with pytest.raises(ValueError, match="unknown node type"):
        load_demo(lambda _msg: None)
    assert RAN == []
