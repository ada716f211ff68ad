"""A sniffed format needs most of the first lines to read as it: random bytes that happen to hold a
line starting with ';' (an SWF header) or a date-like line are not an accounting log."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from forecasts.accounting.parsers.formats import detect_format

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"


def test_random_bytes_with_an_swf_looking_line_are_not_swf() -> None:
    rng = random.Random(7)
    noise = [bytes(rng.getrandbits(8) for _ in range(60)).replace(b"\n", b" ") for _ in range(40)]
    noise[3] = b"; Version: 2.2"
    assert detect_format(b"\n".join(noise)) is None


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=200, max_size=20_000))
@example(b";" + b"\x00" * 199)  # found by hypothesis in CI: a ';' then NULs was read as an SWF header
def test_random_bytes_are_never_taken_for_a_log(data: bytes) -> None:
    assert detect_format(data) is None


def test_every_sample_log_is_still_recognised_and_a_log_with_a_few_bad_lines_too() -> None:
    for name, fmt in (("slurm_sample.txt", "slurm"), ("swf_sample.swf", "swf"), ("pbs_sample.log", "pbs"),
                      ("lsf_sample.acct", "lsf"), ("sge_sample.accounting", "sge"),
                      ("slurm_header_sample.txt", "slurm")):
        data = (SAMPLES / name).read_bytes()
        assert detect_format(data) == fmt, name
        lines = data.split(b"\n")
        lines[2] = b"garbage line"
        assert detect_format(b"\n".join(lines)) == fmt, name
