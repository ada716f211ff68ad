"""Every command that reads a file ends with one line naming the file (and line) and the reason,
and a non-zero exit, never a traceback: run as manage.py runs them (planner/management/oneline.py)."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from forecasts.accounting.parsers.synth import slurm_lines
from planner.management.oneline import run

pytestmark = pytest.mark.django_db(transaction=True)


def _truncated_gzip(tmp: Path) -> Path:
    data = "".join(slurm_lines(3000, start=datetime(2023, 1, 1, tzinfo=UTC),
                               end=datetime(2023, 3, 1, tzinfo=UTC))).encode()
    path = tmp / "sacct.txt.gz"
    packed = gzip.compress(data)
    path.write_bytes(packed[: len(packed) // 2])
    return path


def _non_utf8_name(tmp: Path) -> Path:
    path = Path(os.fsdecode(bytes(tmp) + b"/sacct-\xff.txt"))
    path.write_text("".join(slurm_lines(5, start=datetime(2023, 1, 1, tzinfo=UTC),
                                        end=datetime(2023, 2, 1, tzinfo=UTC))))
    return path


def _random_bytes(tmp: Path) -> Path:
    path = tmp / "noise.bin"
    path.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(20000)))
    return path


def _file(name: str, content: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        (tmp / name).write_bytes(content)
        return tmp / name
    return make


CASES: list[tuple[str, Callable[[Path], Path], list[str], str]] = [
    ("ingest_accounting", _truncated_gzip, ["--format", "slurm", "--cluster", "c"],
     "sacct.txt.gz: the file is truncated"),
    ("ingest_accounting", _non_utf8_name, ["--format", "slurm", "--cluster", "c"],
     r"sacct-\xff.txt: the name or text is not valid UTF-8"),
    ("ingest_accounting", _random_bytes, ["--format", "slurm", "--cluster", "c"],
     "noise.bin, line 1: "),
    ("ingest_storage_scan", _file("scan.tsv.gz", b"\x1f\x8b\x08\x00garbage"), ["--filesystem", "f", "--format", "tsv"],
     "scan.tsv.gz"),
    ("import_mappings", _file("map.csv", b"kind,name,department\nuser,\xff\xfe,ggs\n"), [], "map.csv"),
    ("import_sequencer_plan", _file("plan.yaml", b"name: x\ninstruments: [\n"), [], "plan.yaml"),
    ("forecast_series", _file("series.csv", b"period,value\n2019,abc\n"), ["--frequency", "A", "--horizon", "2"],
     "series.csv"),
]


@pytest.mark.parametrize(("command", "make", "options", "expected"), CASES,
                         ids=[f"{c}-{m.__name__ if hasattr(m, '__name__') else 'file'}" for c, m, _, _ in CASES])
def test_a_command_on_a_broken_file_prints_one_line_and_exits_non_zero(
        command: str, make: Callable[[Path], Path], options: list[str], expected: str, tmp_path: Path,
        capsys: Any) -> None:
    path = make(tmp_path)
    status = run(["manage.py", command, *options, str(path)])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert status != 0, err
    assert "Traceback" not in err
    assert last.startswith(("Error: ", "CommandError: ")), last
    assert expected in last, last
