"""Tests for forecasts.accounting.parsers.compression and .formats (pure core: no Django)."""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
from pathlib import Path

import pytest

from forecasts.accounting.parsers import compression, formats
from tests.shared import SHARED_DATA, requires_shared

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"
TEXT = b"line one\nline two\n" * 1000


class Pipe(io.RawIOBase):
    """A non-seekable stream without peek (like a socket or a pipe)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(min(len(buffer), 5))  # short reads on purpose
        buffer[: len(chunk)] = chunk
        return len(chunk)


COMPRESSORS = {
    "plain": lambda b: b,
    "gzip": gzip.compress,
    "gzip-multimember": lambda b: gzip.compress(b[:100]) + gzip.compress(b[100:]),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_open_source_path_detects_by_content(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "accounting.log"  # the name says nothing
    path.write_bytes(COMPRESSORS[kind](TEXT))
    with compression.open_source(path) as handle:
        assert handle.read() == TEXT
    misleading = tmp_path / "plain.gz"
    misleading.write_bytes(TEXT)
    with compression.open_source(str(misleading)) as handle:
        assert list(handle)[:2] == [b"line one\n", b"line two\n"]


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("wrap", ["bytesio", "buffered", "pipe"])
def test_open_source_file_objects(kind: str, wrap: str) -> None:
    data = COMPRESSORS[kind](TEXT)
    if wrap == "bytesio":
        src: io.IOBase = io.BytesIO(data)
    elif wrap == "buffered":
        src = io.BufferedReader(io.BytesIO(data))
    else:
        src = Pipe(data)
    handle = compression.open_source(src)  # type: ignore[arg-type]
    assert b"".join(handle) == TEXT


def test_empty_and_tiny_inputs() -> None:
    assert compression.open_source(io.BytesIO(b"")).read() == b""
    assert compression.open_source(Pipe(b"ab")).read() == b"ab"  # type: ignore[arg-type]


def test_zstd_gives_a_clear_error() -> None:
    with pytest.raises(compression.UnsupportedCompression, match="zstd"):
        compression.open_source(io.BytesIO(b"\x28\xb5\x2f\xfd" + b"\0" * 20))


def test_registry_and_unknown_format() -> None:
    assert set(formats.FORMATS) == {"slurm", "slurm-json", "lsf", "pbs", "sge", "uge", "swf"}
    with pytest.raises(formats.UnknownFormat) as err:
        formats.get_parser("torque")
    message = str(err.value)
    assert "'torque'" in message and all(name in message for name in formats.FORMATS)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("name", ["slurm", "slurm-json", "swf", "lsf", "pbs", "sge"])
def test_get_parser_returns_module_parse(name: str) -> None:
    parser = formats.get_parser(name)
    module = name.replace("-", "_")
    assert parser.__module__ == f"forecasts.accounting.parsers.{module}" and parser.__name__ == "parse"


def test_uge_is_sge_in_milliseconds() -> None:
    parser = formats.get_parser("uge")
    assert isinstance(parser, functools.partial)
    assert parser.func.__module__ == "forecasts.accounting.parsers.sge" and parser.keywords == {"millis": True}


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"JobID|JobIDRaw|Cluster\n1|1|c\n", "slurm"),
        (b"jobid|state\n", "slurm"),
        (("|".join(["123_[1-3]"] + ["x"] * 25) + "\n").encode(), "slurm"),
        (b'{\n  "meta": {},\n  "jobs": [\n', "slurm-json"),
        (b'"JOB_FINISH" "9.11" 1505757000 4103947 ', "lsf"),
        (b"07/01/2015 00:00:38;E;2830.b;user=x group=y\n", "pbs"),
        (b"; Version: 2.2\n; UnixStartTime: 1\n", "swf"),
        (b"    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1\n", "swf"),
        ((":".join(["q", "h", "g", "o", "j", "1", "a", "0", "1435000000", "1435000001", "1435000002"] + ["0"] * 34)
          + "\n").encode(), "sge"),
        ((":".join(["q", "h", "g", "o", "j", "1", "a", "0", "1435000000000", "1435000001000", "1435000002000"]
                   + ["0"] * 41) + "\n").encode(), "uge"),
        (b"hello world\n", None),
        (b"", None),
    ],
)  # fmt: skip
def test_detect_format(head: bytes, expected: str | None) -> None:
    assert formats.detect_format(head) == expected


def test_detect_format_through_compression() -> None:
    head = gzip.compress((SAMPLES / "swf_sample.swf").read_bytes())
    assert formats.detect_format(head) == "swf"
    assert formats.detect_format(bz2.compress((SAMPLES / "slurm_sample.txt").read_bytes())) == "slurm"


@pytest.mark.parametrize(
    ("name", "expected"),
    [("slurm_sample.txt", "slurm"), ("slurm_header_sample.txt", "slurm"), ("slurm_sample.json", "slurm-json"),
     ("swf_sample.swf", "swf")],
)  # fmt: skip
def test_detect_own_samples(name: str, expected: str) -> None:
    assert formats.detect_format((SAMPLES / name).read_bytes()) == expected


@requires_shared
def test_detect_every_shared_log() -> None:
    expected = {"slurm": "slurm", "pbs": "pbs", "lsf": "lsf", "sge": "sge", "uge": "uge", "swf": "swf"}
    checked = 0
    for folder, fmt in expected.items():
        for path in sorted((SHARED_DATA / folder).iterdir()):
            if "expected" in path.name or "output" in path.name:
                continue
            want = "slurm-json" if path.suffix == ".json" else fmt
            assert formats.detect_format(path.read_bytes()[: formats.SNIFF_BYTES]) == want, path.name
            checked += 1
    assert checked >= 20
