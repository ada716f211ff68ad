"""Property tests for the LSF, PBS and SGE/UGE parsers: never raise, one item per record."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecasts.accounting.parsers import lsf, pbs, sge
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, Rejected, Skipped

SAMPLES = Path(__file__).resolve().parents[3] / "fixtures" / "samples"

Item = JobRecord | Skipped | Rejected
Parser = Callable[..., Iterator[Item]]

PARSERS: dict[str, Parser] = {
    "lsf": lsf.parse,
    "pbs": pbs.parse,
    "sge": sge.parse,
    "uge": functools.partial(sge.parse, millis=True),
}
SAMPLE_FILES = {
    "lsf": ["lsf_sample.acct"],
    "pbs": ["pbs_sample.log"],
    "sge": ["sge_sample.accounting", "uge_sample.accounting"],
    "uge": ["uge_sample.accounting"],
}


def _sample_lines(fmt: str) -> list[bytes]:
    lines: list[bytes] = []
    for name in SAMPLE_FILES[fmt]:
        lines.extend((SAMPLES / name).read_bytes().splitlines())
    return lines


SAMPLE_LINES = {fmt: _sample_lines(fmt) for fmt in PARSERS}


def _is_record(raw: bytes) -> bool:
    text = raw.decode("utf-8", errors="replace").strip()
    return bool(text) and not text.startswith("#")


def _check(fmt: str, lines: Iterable[bytes]) -> list[Item]:
    lines = list(lines)
    items = list(PARSERS[fmt](iter(lines), cluster="prop"))
    expected_lines = [number for number, raw in enumerate(lines, 1) if _is_record(raw)]
    assert [item.line for item in items] == expected_lines
    counts = ParseCounts()
    for item in items:
        assert isinstance(item, (JobRecord, Skipped, Rejected))
        counts.add(item)
        if isinstance(item, Rejected):
            assert item.reason
        if isinstance(item, JobRecord):
            assert item.start is not None and item.start.tzinfo is not None
            assert item.end is not None and item.end.tzinfo is not None
            assert item.cores >= 0 and item.nodes >= 0
            assert item.line > 0
    assert counts.read == counts.jobs + counts.skipped + counts.rejected == len(expected_lines)
    return items


FORMATS = st.sampled_from(sorted(PARSERS))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(fmt=FORMATS, lines=st.lists(st.binary(max_size=300), max_size=20))
def test_random_bytes_never_raise(fmt: str, lines: list[bytes]) -> None:
    _check(fmt, lines)


@SETTINGS
@given(fmt=FORMATS, data=st.data())
def test_truncated_and_corrupted_sample_lines_never_raise(fmt: str, data: st.DataObject) -> None:
    source = SAMPLE_LINES[fmt]
    picks = data.draw(st.lists(st.sampled_from(source), min_size=1, max_size=8))
    lines = []
    for raw in picks:
        cut = data.draw(st.integers(min_value=0, max_value=len(raw)))
        mutation = data.draw(st.sampled_from(["truncate", "splice", "byte", "none"]))
        if mutation == "truncate":
            raw = raw[:cut]
        elif mutation == "splice":
            raw = raw[:cut] + data.draw(st.binary(max_size=20)) + raw[cut:]
        elif mutation == "byte" and raw:
            index = min(cut, len(raw) - 1)
            raw = raw[:index] + bytes([data.draw(st.integers(0, 255))]) + raw[index + 1:]
        lines.append(raw)
    _check(fmt, lines)


@SETTINGS
@given(fmt=FORMATS, seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_shuffled_lines_give_same_items(fmt: str, seed: int) -> None:
    source = SAMPLE_LINES[fmt]
    order = list(range(len(source)))
    random.Random(seed).shuffle(order)
    shuffled = [source[i] for i in order]
    straight = {item.line: item for item in _check(fmt, source)}
    mixed = _check(fmt, shuffled)
    for item in mixed:
        original = straight[order[item.line - 1] + 1]
        assert type(item) is type(original)
        if isinstance(item, JobRecord):
            assert isinstance(original, JobRecord)
            item.line = original.line
            assert item == original


# --- generated valid records round-trip -------------------------------------------------------


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
hosts = st.from_regex(r"[a-z]{1,4}[0-9]{1,3}", fullmatch=True)


@SETTINGS
@given(
    job_id=st.integers(1, 10**8), start=st.integers(10**9, 2 * 10**9), wall=st.integers(0, 10**6),
    cores=st.integers(1, 4096), host_list=st.lists(hosts, min_size=1, max_size=6), name=names,
    command=names, idx=st.integers(0, 1000), run_limit=st.integers(-1, 10**6),
    rusage=st.integers(0, 4), ext=st.lists(st.tuples(st.integers(1, 100), names), max_size=3),
)
def test_lsf_generated_records_round_trip(
    job_id: int, start: int, wall: int, cores: int, host_list: list[str], name: str, command: str,
    idx: int, run_limit: int, rusage: int, ext: list[tuple[int, str]],
) -> None:
    end = start + wall
    exec_hosts = [f"{cores}*{host_list[0]}"] + host_list[1:]
    e = _q("")
    tokens = [_q("JOB_FINISH"), _q("10.1"), str(end), str(job_id), "1", "2", str(cores), str(start - 5),
              "0", "0", str(start), _q("u"), _q("q"), e, e, e, _q("h"), _q("/"), e, e, e, e,
              "0", str(len(exec_hosts)), *(_q(h) for h in exec_hosts), "64", "1.0", _q(name), _q(command),
              "1.5", "0.5", *(["0"] * 17), e, _q("proj"), "0", str(cores), e, e, str(idx), "2048", "0",
              e, e, e, e, "0", e, "0", e, "-1", e, e, e, e, "-1",
              e, e, "0", e, str(start), e, e, str(len(ext))]
    for key, value in ext:
        tokens += [str(key), _q(value)]
    tokens += [str(rusage)] + [f"{h} 1 0 2 3 0" for h in (host_list * rusage)[:rusage]]
    tokens += [str(run_limit), "0", "100", _q("select[]")]
    (job,) = _check("lsf", [" ".join(tokens).encode()])
    assert isinstance(job, JobRecord), job
    assert (job.job_id, job.cores, job.name) == (str(job_id), cores, name)
    assert job.nodes == len(dict.fromkeys(host_list))
    assert job.array_index == (idx if idx > 0 else -1)
    assert job.wall_s == wall and job.cpu_time_s == 2.0 and job.used_mem_mb == 2.0
    assert job.req_walltime_s == (run_limit if run_limit > 0 else None)


@SETTINGS
@given(
    job_id=st.integers(1, 10**8), start=st.integers(10**9, 2 * 10**9), wall=st.integers(0, 10**6),
    slots=st.integers(1, 512), h_rt=st.integers(1, 10**6), colon_rt=st.booleans(), millis=st.booleans(),
    task=st.integers(0, 100), uge_tail=st.booleans(),
)
def test_sge_generated_records_round_trip(
    job_id: int, start: int, wall: int, slots: int, h_rt: int, colon_rt: bool, millis: bool, task: int,
    uge_tail: bool,
) -> None:
    rt = f"{h_rt // 3600}:{h_rt % 3600 // 60:02d}:{h_rt % 60:02d}" if colon_rt else str(h_rt)
    scale = 1000 if millis else 1
    fields = ["q", "h", "g", "o", "n", str(job_id), "sge", "0", str((start - 1) * scale),
              str(start * scale), str((start + wall) * scale), "0", "0", str(wall), "1", "1", "1024",
              *(["0"] * 14), "NONE", "dept",
              "smp", str(slots), str(task), "12.5", "0.1", "0.0", f"-q q -l h_rt={rt} -pe smp {slots}",
              "0.000000", "NONE", "2097152.000000", "0", "0"]
    if uge_tail:
        fields += ["NONE", "NONE", "3145728", "3145728", "sub", "/cwd", f"qsub -l h_rt={rt} x.sh"]
    (job,) = _check("sge", [":".join(fields).encode()])
    assert isinstance(job, JobRecord), job
    assert (job.job_id, job.cores, job.nodes, job.req_walltime_s) == (str(job_id), slots, 1, h_rt)
    assert job.array_index == (task if task > 0 else -1)
    assert job.wall_s == wall and job.cpu_time_s == 12.5
    assert job.used_mem_mb == (3.0 if uge_tail else 1.0)


@SETTINGS
@given(
    job_id=st.integers(1, 10**8), start=st.integers(10**9, 2 * 10**9), wall=st.integers(0, 10**6),
    per_host=st.lists(st.tuples(hosts, st.integers(1, 64)), min_size=1, max_size=5),
    suffix=st.sampled_from(["", ".pbs01", ".edge.ccr.buffalo.edu"]), index=st.none() | st.integers(0, 999),
    name=st.text(alphabet="abc xyz_-", max_size=10),
)
def test_pbs_generated_records_round_trip(
    job_id: int, start: int, wall: int, per_host: list[tuple[str, int]], suffix: str, index: int | None,
    name: str,
) -> None:
    exec_host = "+".join(f"{h}/0-{n - 1}" if n > 1 else f"{h}/0" for h, n in per_host)
    raw_id = f"{job_id}[{index}]{suffix}" if index is not None else f"{job_id}{suffix}"
    line = (f"01/02/2020 03:04:05;E;{raw_id};user=u group=g jobname='{name}' queue=q ctime={start - 9} "
            f"start={start} end={start + wall} exec_host={exec_host} Exit_status=0 "
            f"resources_used.walltime={wall} resources_used.mem=2048kb")
    (job,) = _check("pbs", [line.encode() + b"\n"])
    assert isinstance(job, JobRecord), job
    assert job.job_id == str(job_id) and job.array_index == (index if index is not None else -1)
    assert job.cores == sum(n for _, n in per_host)
    assert job.nodes == len(dict.fromkeys(h for h, _ in per_host))
    assert job.wall_s == wall and job.used_mem_mb == 2.0 and job.name == name
