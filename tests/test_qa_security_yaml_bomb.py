"""A YAML alias bomb: a few hundred bytes of nested aliases ("a1: &a1 [*a0, *a0, ...]") standing for
billions of values. PyYAML loads it at once (the values are shared), but every walk of the result expands
them: a 362-byte scenario took 7 s to check and each further level ten times more (a 454-byte one about
12 minutes), holding a web worker. Scenario, plan and group-mapping files are now measured before they
are built: over a million values, or an alias inside its own value, is refused in one line."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _bomb(levels: int = 9, top: str = "demand") -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    lines.append(f"name: bomb\n{top}: *a{levels - 1}\n")
    return "\n".join(lines).encode()


def _file(data: bytes, name: str) -> io.BytesIO:
    f = io.BytesIO(data)
    f.name = name
    return f


@pytest.fixture
def planner_client(planner_user: Any) -> Client:
    client = Client()
    client.force_login(planner_user)
    return client


def test_a_pasted_scenario_bomb_is_refused_at_once(planner_client: Client) -> None:
    started = time.monotonic()
    page = planner_client.post("/designs/new/", {"scenario": _bomb().decode(), "action": "check"})
    assert time.monotonic() - started < 5
    assert "its aliases (*name) stand for more than 1,000,000 values" in page.content.decode()


def test_an_uploaded_scenario_bomb_is_refused_naming_the_file(planner_client: Client) -> None:
    page = planner_client.post("/designs/new/", {"scenario": "", "action": "check",
                                                 "file": _file(_bomb(), "bomb.yaml")})
    assert "bomb.yaml: not valid YAML: its aliases (*name) stand for more than 1,000,000 values" in \
        page.content.decode()


def test_an_uploaded_plan_bomb_is_refused(planner_client: Client) -> None:
    started = time.monotonic()
    page = planner_client.post("/forecasts/plans/", {"file": _file(_bomb(top="assays"), "plan.yaml")}, follow=True)
    assert time.monotonic() - started < 5
    assert "stand for more than 1,000,000 values" in page.content.decode()


def test_a_mapping_file_that_contains_itself_is_refused(admin_user: Any) -> None:
    client = Client()
    client.force_login(admin_user)
    page = client.post("/access/mappings/", {"file": _file(b"mappings: &m [*m]\n", "groups.yaml")}, follow=True)
    assert "groups.yaml: not valid YAML: an alias (*name) is used inside the value it names" in \
        page.content.decode()


def test_ordinary_anchors_still_load() -> None:
    from planner.web.textfiles import yaml_load

    assert yaml_load("base: &b {cores: 4}\nnode: *b\nlist: [*b, *b]\n") == {
        "base": {"cores": 4}, "node": {"cores": 4}, "list": [{"cores": 4}, {"cores": 4}]}
