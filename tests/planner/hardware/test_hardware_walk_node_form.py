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


def test_the_new_node_type_form_labels_fields_in_words_with_units(client: Any, planner_user: Any) -> None:
    catalog_load_yaml()
    response = login(client, planner_user).get("/hardware/node-types/new/")
    form = response.context["form"]
    expected = {"cpu_model": "CPU model", "base_clock_ghz": "Base clock (GHz)", "memory_gb": "Memory (GB)",
                "price_usd": "Price (USD)", "power_w": "Power (W)",
                "support_pct_per_year": "Support (% of price per year)"}
    assert {name: form.fields[name].label for name in expected} == expected
    text = re.sub(r"<[^>]+>", " ", response.content.decode())  # what a person reads, not the input names
    assert "price_usd" not in text and "Base clock ghz" not in text and "Cpu model" not in text


@pytest.mark.parametrize("name", ["Ivy Bridge", "ivy_bridge", "Ivy-Bridge"])
def test_a_bad_name_gets_a_plain_rule_not_slug(client: Any, planner_user: Any, name: str) -> None:
    catalog_load_yaml()
    values = _form_values(NodeType.objects.get(name="haswell")) | {"name": name}
    response = login(client, planner_user).post("/hardware/node-types/new/", values)
    assert response.context["form"].errors["name"] == [
        "Name: use lower-case letters, digits and hyphens, e.g. ivy-bridge."]
    assert "slug" not in response.content.decode().lower().split("<main", 1)[-1]


def test_an_empty_csv_upload_says_the_file_is_empty_naming_it(client: Any, planner_user: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    catalog_load_yaml()
    login(client, planner_user)
    page = client.post("/hardware/import/", {"file": SimpleUploadedFile("nodes.csv", b"")}, follow=True)
    html = page.content.decode()
    assert "nodes.csv is empty: nothing to import" in html and "Choose a CSV file" not in html
    page = client.post("/hardware/import/", {}, follow=True)
    assert "Choose a CSV file to import." in page.content.decode()
