"""Storage scans as the QA walk met them: a file with no readable line is refused in one line and never
becomes the latest scan; the Scans table's counts add up (read = stored + skipped + rejected); a scan
without a median shows no median card; one scan is not drawn as a time series."""

from __future__ import annotations

import json
import random
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from forecasts.storage.services import StorageScanError, ingest_scan, scan_head_problem
from tests.helpers import login

pytestmark = pytest.mark.django_db

BINARY = random.Random(7).randbytes(4096)  # 4 KB of random bytes, newlines among them
# 5 records, a comment and a blank line (skipped), a malformed size (rejected): 8 lines read
SCAN = ("4096\tgina\tggs\t1377900000.0\td\t/data/ggs/gina\n"
        "10\tgina\tggs\t1377900000.0\tf\t/data/ggs/gina/a\n"
        "2048\tgina\tggs\t1377900000.0\tf\t/data/ggs/gina/b\n"
        "0\tchris\tscb\t1377900000.0\tf\t/data/scb/chris/c\n"
        "not-a-size\tchris\tscb\t1377900000.0\tf\t/data/scb/chris/d\n"
        "# a comment\n"
        "\n"
        "70000\tchris\tscb\t1377900000.0\tf\t/data/scb/chris/e\n")


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _scan(tmp_path: Path, taken_on: str, text: str = SCAN, fs: str = "proj") -> None:
    path = tmp_path / f"scan-{taken_on}.tsv"
    path.write_text(text)
    call_command("ingest_storage_scan", "--filesystem", fs, "--format", "tsv", "--date", taken_on, str(path))


def test_a_binary_file_is_not_a_scan_and_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "binary.bin"
    path.write_bytes(BINARY)
    problem = scan_head_problem(path, "tsv")
    assert problem is not None and problem.startswith("Nothing loaded from binary.bin: ")
    assert problem.endswith("; is this a tsv file?") and "\n" not in problem and " 0 stored" in problem
    good = tmp_path / "good.tsv"
    good.write_text(SCAN)
    assert scan_head_problem(good, "tsv") is None


def test_a_scan_with_nothing_readable_fails_and_leaves_the_latest_scan_in_place(
        tmp_path: Path, capsys: Any) -> None:
    from forecasts.storage.models import StorageSnapshot
    from forecasts.storage.selectors import storage_overview

    _scan(tmp_path, "2024-03-01")
    capsys.readouterr()
    path = tmp_path / "binary.bin"
    path.write_bytes(BINARY)
    for taken_on in (date(2024, 4, 1), date(2024, 3, 1)):  # a later date, and the same date as the good scan
        with pytest.raises(StorageScanError, match=r"^Nothing loaded from binary\.bin: .* is this a tsv file\?$"):
            ingest_scan(filesystem="proj", fmt="tsv", path=path, taken_on=taken_on)
    failed = StorageSnapshot.objects.filter(status=StorageSnapshot.Status.FAILED)
    assert failed.count() == 2 and all(s.error.startswith("Nothing loaded from binary.bin") for s in failed)
    completed = StorageSnapshot.objects.get(status=StorageSnapshot.Status.COMPLETED)
    assert str(completed.taken_on) == "2024-03-01" and completed.files == 4
    overview = storage_overview(user=AnonymousUser())
    assert overview["viewer_snapshot"].pk == completed.pk


def test_the_upload_page_refuses_a_binary_file_before_queueing_anything(
        client: Any, planner_user: Any, tmp_path: Path) -> None:
    from forecasts.storage.models import StorageSnapshot

    login(client, planner_user)
    response = client.post(reverse("storage-upload"), {
        "format": "tsv", "filesystem": "__new__", "new_filesystem": "gpfs-projects", "taken_on": "2019-12-15",
        "file": SimpleUploadedFile("binary.bin", BINARY)})
    assert response.status_code == 400
    text = response.content.decode()
    assert "Nothing loaded from binary.bin: " in text and "is this a tsv file?" in text
    assert not StorageSnapshot.objects.exists()


def test_the_api_refuses_a_binary_file_with_the_same_line(client: Any, admin_user: Any) -> None:
    login(client, admin_user)
    response = client.post(reverse("storage-scan-list"), {
        "file": SimpleUploadedFile("binary.bin", BINARY), "filesystem": "scratch", "format": "gpfs",
        "taken_on": "2019-12-15"})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("Nothing loaded from binary.bin: ")
    assert response.json()["detail"].endswith("is this a gpfs file?")


def test_the_scans_table_shows_read_as_stored_plus_skipped_plus_rejected(
        client: Any, planner_user: Any, tmp_path: Path) -> None:
    _scan(tmp_path, "2024-03-01")
    login(client, planner_user)
    text = client.get(reverse("storage")).content.decode()
    table = text.split("<h2>Scans</h2>", 1)[1].split("</table>", 1)[0]
    assert ('<th class="num">lines read</th><th class="num">stored</th><th class="num">skipped</th>'
            '<th class="num">rejected</th>') in table
    assert ('<td class="num">8</td><td class="num">5</td><td class="num">2</td><td class="num"><a ') in table
    assert "read = stored + skipped + rejected" in text


def test_a_scan_without_a_median_shows_no_median_card(client: Any, planner_user: Any) -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot

    fs = FileSystem.objects.create(name="empty-fs")
    StorageSnapshot.objects.create(filesystem=fs, taken_on=date(2019, 12, 15), format="tsv", scan_name="s",
                                   status=StorageSnapshot.Status.COMPLETED, median_size_bytes=None)
    login(client, planner_user)
    text = client.get(reverse("storage") + "?filesystem=empty-fs").content.decode()
    assert 'id="kpi-files"' in text and 'id="kpi-median"' not in text and "median file size" not in text


def _figure(text: str, figure_id: str) -> dict[str, Any] | None:
    marker = f'<script id="{figure_id}" type="application/json">'
    if marker not in text:
        return None
    return json.loads(text.split(marker, 1)[1].split("</script>", 1)[0])  # type: ignore[no-any-return]


def test_one_scan_is_not_drawn_as_a_time_series_and_two_are(client: Any, planner_user: Any, tmp_path: Path) -> None:
    _scan(tmp_path, "2019-12-15")
    login(client, planner_user)
    one = client.get(reverse("storage") + "?filesystem=proj").content.decode()
    assert "One scan (2019-12-15) is not a time series" in one
    assert _figure(one, "sfig-departments") is None and 'id="chart-departments"' not in one
    _scan(tmp_path, "2020-01-15")
    two = client.get(reverse("storage") + "?filesystem=proj").content.decode()
    assert "is not a time series" not in two
    figure = _figure(two, "sfig-departments")
    assert figure is not None and figure["data"][0]["x"] == ["2019-12-15", "2020-01-15"]
