"""Uploaded text files (planner.web.textfiles): refused with the file, line and reason, on every upload page."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client

from planner.web.textfiles import UploadTextError, upload_text
from tests.helpers import login


def test_upload_text_reads_utf8_and_drops_a_byte_order_mark() -> None:
    assert upload_text("\ufeffname,value\nHDD,é\n".encode(), "a.csv") == "name,value\nHDD,é\n"


@pytest.mark.parametrize(("data", "message"), [
    (b"kind,name\nuser,ok\nuser,\xff\xfe\n", "a.csv line 3: not UTF-8 text (byte 23)"),
    (b"kind,name\nuser,\x00bad\n", "a.csv line 2: a NUL byte (a binary or damaged file)"),
    (b"\x00\x01\x02", "a.csv line 1: a NUL byte"),
])
def test_upload_text_names_the_line_that_is_not_text(data: bytes, message: str) -> None:
    with pytest.raises(UploadTextError) as caught:
        upload_text(data, "a.csv")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


# every page that takes an uploaded text file, with the other fields its form needs
UPLOADS = [
    ("/usage/mappings/", {}),
    ("/access/mappings/", {}),
    ("/hardware/import/", {}),
    ("/forecasts/plans/", {}),
    ("/forecasts/series/", {"name": "HDD price", "units": "USD/TB", "frequency": "A", "aggregate": "mean"}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "fields"), UPLOADS)
@pytest.mark.parametrize(("data", "message"), [
    (b"kind,name,department\nuser,\x00bad\x00,ggs\n", "damaged.csv line 2: a NUL byte"),
    (b"kind,name,department\nuser,ok,ggs\n" + bytes(range(128, 256)), "damaged.csv line 3: not UTF-8 text"),
])
def test_a_binary_or_damaged_upload_is_refused_with_its_line_on_every_page(
        url: str, fields: dict[str, str], data: bytes, message: str, admin_user: Any) -> None:
    client = login(Client(), admin_user)
    upload = io.BytesIO(data)
    upload.name = "damaged.csv"
    response = client.post(url, {"file": upload, **fields}, follow=True)
    assert response.status_code == 200
    assert message in response.content.decode()


def test_nul_at_names_the_first_key_or_text_holding_a_nul() -> None:
    from planner.web.textfiles import nul_at

    assert nul_at({"name": "ok", "purchases": [{"count": 3}, {"node_type": "has\x00well"}]}) == "purchases[1].node_type"
    assert nul_at({"a\x00": 1}) == "a\x00" and nul_at("x\x00") == "" and nul_at({"name": "ok", "n": [1, 2.5]}) is None


@pytest.mark.django_db
def test_a_nul_escape_in_a_yaml_plan_rate_file_or_role_mapping_is_refused_by_field() -> None:
    """YAML's "\\0" escape makes a NUL after parsing, which upload_text cannot see in the bytes."""
    from forecasts.chargeback.services import ChargebackError
    from forecasts.demand.plans import PlanError, plan_parse
    from planner.access.rules import RuleError, parse

    with pytest.raises(PlanError, match=r"^plan.yaml line 1: name: contains a NUL byte"):
        plan_parse('name: "a\\0b"\nstart: 2014-01-01\n', name="plan.yaml")
    with pytest.raises(RuleError, match=r"^m.yaml: mappings\[0\].group: contains a NUL byte"):
        parse('mappings:\n  - {group: "a\\0b", role: admin}\n', "m.yaml")
    with pytest.raises(RuleError, match=r"^m.csv: line 2: a NUL byte"):
        parse("group,role\nhpc\x00,admin\n", "m.csv")
    with pytest.raises(ChargebackError, match=r"^rates.yaml: name: contains a NUL byte"):
        from forecasts.chargeback.demo import rate_plan_load_yaml

        rate_plan_load_yaml('name: "x\\0"\neffective_from: 2020-01-01\n')


@pytest.mark.django_db
def test_a_control_character_in_any_yaml_file_is_named_with_its_line(tmp_path: Any) -> None:
    """PyYAML's reader error gives a position and no line ("unacceptable character #x0000 ... position 812", on
    two lines); yaml_load turns it into a marked error, so every YAML reader names the line."""
    from pathlib import Path

    from django.core.management import CommandError, call_command

    text = (Path(__file__).resolve().parents[2] / "fixtures" / "catalog.yaml").read_text()
    text = text.replace("price_usd", "pri\x00ce_usd", 1)
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if "\x00" in row)
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    with pytest.raises(CommandError) as err:
        call_command("import_catalog", str(path))
    assert str(err.value) == (f"{path}:{line}:8: YAML syntax error: a control character (0x00) that YAML does not "
                              "allow (a binary or damaged file)")
