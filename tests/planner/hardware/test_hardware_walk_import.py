"""QA walk of the catalog import: the confirmation counts only what the file changed, unchanged rows stay unsaved."""

from __future__ import annotations

from typing import Any

import pytest
from auditlog.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.hardware.models import NodeType, StorageSystem
from planner.hardware.services import catalog_export_csv, catalog_import_csv, catalog_load_yaml
from tests.helpers import login

pytestmark = pytest.mark.django_db

# name, kind, raw, usable, price, power, GB/s, IOPS, fullness, efficiency, 3 ceilings, support, lifetime, years, texts
NEW_STORE = "scratch-2,disk,100,80,1000,10,1,10,0.8,,,,,8,5,2010,,,,,"


def _stamps() -> dict[str, Any]:
    return dict(StorageSystem.objects.values_list("name", "updated_at"))


def test_a_one_row_storage_csv_says_one_new_and_leaves_the_others_unsaved(client: Any, planner_user: Any) -> None:
    catalog_load_yaml()
    login(client, planner_user)  # before counting: a sign-in is an audit record too
    before, entries = _stamps(), LogEntry.objects.count()
    header = catalog_export_csv("storage_systems").splitlines()[0]
    upload = SimpleUploadedFile("bad_st2.csv", f"{header}\n{NEW_STORE}\n".encode())
    page = client.post("/hardware/import/", {"file": upload}, follow=True).content.decode()
    assert "bad_st2.csv: 1 storage system row (1 new, 0 updated, 0 unchanged)." in page
    after = _stamps()
    assert {n: t for n, t in after.items() if n != "scratch-2"} == before
    assert LogEntry.objects.count() == entries + 1  # the new row only


def test_re_importing_the_export_with_one_price_changed_updates_one_row() -> None:
    catalog_load_yaml()
    stamps = dict(NodeType.objects.values_list("name", "updated_at"))
    text = catalog_export_csv("node_types")
    same = catalog_import_csv(text, filename="nodes.csv")
    assert (same["rows"], same["created"], same["updated"], same["unchanged"]) == (4, 0, 0, 4)
    assert dict(NodeType.objects.values_list("name", "updated_at")) == stamps
    changed = catalog_import_csv(text.replace(",6404,", ",7100,"), filename="nodes.csv")
    assert (changed["created"], changed["updated"], changed["unchanged"]) == (0, 1, 3)
    after = dict(NodeType.objects.values_list("name", "updated_at"))
    assert [n for n in after if after[n] != stamps[n]] == ["ivy-bridge"]
    assert NodeType.objects.get(name="ivy-bridge").price_usd == 7100


def test_loading_the_catalog_file_twice_changes_nothing_the_second_time() -> None:
    catalog_load_yaml()
    entries = LogEntry.objects.count()
    again = catalog_load_yaml()
    assert again["node_types"] == {"created": 0, "updated": 0, "unchanged": 4}
    assert again["benchmarks"]["updated"] == 0 and LogEntry.objects.count() == entries
