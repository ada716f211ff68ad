"""QA walk of the node-type form and the CSV upload: headings, labels and errors a person reads."""

from __future__ import annotations

import re
from typing import Any

import pytest

from planner.hardware.models import NodeType
from planner.hardware.services import catalog_load_yaml
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _form_values(node: NodeType) -> dict[str, Any]:
    return {f.name: ("" if getattr(node, f.name) is None else getattr(node, f.name))
            for f in NodeType._meta.concrete_fields if f.name not in ("id", "updated_at")}


def test_renaming_onto_an_existing_name_keeps_the_edited_entry_s_heading(client: Any, planner_user: Any) -> None:
    catalog_load_yaml()
    values = _form_values(NodeType.objects.get(name="haswell")) | {"name": "ivy-bridge"}
    response = login(client, planner_user).post("/hardware/node-types/haswell/edit/", values)
    html = response.content.decode()
    assert response.status_code == 200 and response.context["form"].errors["name"]
    assert re.search(r"<h1>Edit node type haswell</h1>", html)
    assert "<title>Edit haswell" in html and "Edit node type ivy-bridge" not in html
    assert NodeType.objects.filter(name="haswell").exists()
