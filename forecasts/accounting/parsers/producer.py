"""Parsing files into load batches (pure core), in this process or in a parser process.

``batches`` turns a run's files into ``Batch`` objects: the COPY rows of up to
``batch_records`` records, the rejections, the counts, and the record range (start, end] of
the file the batch covers.  Ranges already committed by an earlier attempt of the run are
read but not batched again, so a resumed run loads exactly what is missing.

``main`` is the parser process's entry point (``python -m forecasts.accounting.parsers.producer``).
The loaders run in threads of the main process; parsing is pure Python and holds the GIL, and a parser *thread* starves
them: psycopg hands a COPY's data to libpq in chunks, each needing the GIL back, so a
loader beside a busy parser thread managed 2 COPYs of a 50,000-row batch in the time it
does 36 alone (measured; see docs/performance.md).  In its own process the parser uses
one core and the loaders and PostgreSQL the other.  Nothing here imports Django.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import pickle
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from forecasts.accounting.parsers.compression import (
    TRUNCATED,
    LineLimit,
    LineTooLong,
    StopAtTruncation,
    TruncatedInput,
    is_compressed,
    open_source,
    skip_bom,
    too_long_message,
)
from forecasts.accounting.parsers.copyrows import copy_line, rejection_line
from forecasts.accounting.parsers.formats import get_parser
from forecasts.accounting.parsers.records import (
    NAME_MAX_CHARS,
    JobRecord,
    Rejected,
    Skipped,
    capped_name,
    record_problem,
)


@dataclass
class Batch:
    file_id: int
    position: int
    start_record: int  # this batch holds records (start_record, end_record] of its file
    end_record: int = 0
    rows: str = ""  # the jobs, as staging-table COPY text
    jobs: int = 0
    rejections: str = ""  # IngestRejection COPY text
    read: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    names_cut: int = 0  # jobs stored with their name cut to NAME_MAX_CHARS
    bytes_read: int = 0  # compressed bytes of the run's files read so far, for progress


@dataclass(frozen=True)
class FileSpec:
    file_id: int
    position: int
    path: str
    done: tuple[tuple[int, int], ...] = ()  # committed record ranges (start, end], merged, sorted


class _CountingReader(io.RawIOBase):
    """Wraps a binary file to count compressed bytes read, for progress on big files."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        self.bytes_read += n or 0
        return n or 0


class _Open:
    """A batch being filled: lines collected in lists, joined once when it is handed over."""

    __slots__ = ("batch", "lines", "rejections")

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self.lines: list[str] = []
        self.rejections: list[str] = []

    def close(self, end_record: int, bytes_read: int) -> Batch:
        b = self.batch
        b.end_record, b.bytes_read = end_record, bytes_read
        b.rows, b.jobs, b.rejections = "".join(self.lines), len(self.lines), "".join(self.rejections)
        return b


def sha256_of(path: str | os.PathLike[str]) -> str:
    """The file's sha256 (kept with each ingested file: the same file loaded twice is recognisable)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def batches(fmt: str, cluster: str, tz_name: str, run_id: int, files: Iterable[FileSpec],
            batch_records: int) -> Iterator[Batch]:
    """The run's batches, file by file, skipping committed ranges."""
    parse = get_parser(fmt)
    tz = ZoneInfo(tz_name)
    now = datetime.now(UTC)  # a finished job's times lie before the run read it (records.record_problem)
    bytes_done = 0
    for f in files:
        done = f.done
        raw = _CountingReader(open(f.path, "rb"))  # noqa: SIM115 - closed below
        try:
            stream = open_source(io.BufferedReader(raw, buffer_size=1 << 20))
            cut = StopAtTruncation(stream) if is_compressed(stream) else None
            if cut is not None:
                stream = io.BufferedReader(cut, buffer_size=1 << 20)
            skip_bom(stream)  # a resumed run re-reads the file from its start too
            # sacct --json is read in pieces (a compact export is one line); the others by bounded lines
            limited = None if fmt == "slurm-json" else LineLimit(stream)
            source: Iterable[bytes] = iter(functools.partial(stream.read, 1 << 20), b"") if limited is None else limited
            items: Iterable[Any] = parse(source, cluster=cluster, tz=tz)
            current = _Open(Batch(f.file_id, f.position, 0))
            lines, rejections = current.lines, current.rejections
            record = 0
            span = 0  # index into done: the first committed range that may still contain `record`
            for item in items:
                record += 1
                while span < len(done) and done[span][1] < record:
                    span += 1
                if span < len(done) and done[span][0] < record <= done[span][1]:
                    # committed by an earlier attempt of this run: close the batch before the gap
                    if current.batch.read:
                        yield current.close(record - 1, bytes_done + raw.bytes_read)
                    current = _Open(Batch(f.file_id, f.position, record))
                    lines, rejections = current.lines, current.rejections
                    continue
                b = current.batch
                b.read += 1
                if type(item) is JobRecord:
                    if len(item.name) > NAME_MAX_CHARS:
                        item.name = capped_name(item.name)
                        b.names_cut += 1
                    if (problem := record_problem(item, now)) is None:
                        lines.append(copy_line(item))
                    else:  # the record as the staging row would have held it: its values, not lost
                        b.rejected += 1
                        rejections.append(rejection_line(run_id, f.file_id, item.line, problem,
                                                         copy_line(item).rstrip("\n")))
                elif type(item) is Skipped:
                    b.skipped += 1
                    b.skipped_reasons[item.reason] = b.skipped_reasons.get(item.reason, 0) + 1
                else:
                    assert isinstance(item, Rejected)
                    b.rejected += 1
                    rejections.append(rejection_line(run_id, f.file_id, item.line, item.reason, item.raw))
                if b.read >= batch_records:
                    yield current.close(record, bytes_done + raw.bytes_read)
                    current = _Open(Batch(f.file_id, f.position, record))
                    lines, rejections = current.lines, current.rejections
            bytes_done += raw.bytes_read
            if current.batch.read:
                yield current.close(record, bytes_done)
            if limited is not None and limited.too_long_at is not None:
                raise LineTooLong(too_long_message(os.path.basename(f.path), limited.too_long_at, record))
            if cut is not None and cut.truncated:
                # the records read before the cut are loaded (yielded above); the run then stops, saying so
                raise TruncatedInput(
                    f"{os.path.basename(f.path)}: {TRUNCATED} after {record:,} records: those are loaded, the rest of "
                    "the file is missing; copy the whole file again and load it (the records loaded now will "
                    "count as duplicates)")
        finally:
            raw.raw.close()


def main() -> None:
    """Parser process (``python -m forecasts.accounting.parsers.producer``): arguments of ``batches``
    pickled on stdin; each batch, then None (or an exception), pickled to stdout, each
    frame prefixed by its length.  A reader gone (a killed worker) ends it with EPIPE."""
    args = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer

    def put(item: Any) -> None:
        data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(len(data).to_bytes(8, "little"))
        out.write(data)
        out.flush()

    try:
        for batch in batches(*args):
            put(batch)
        put(None)
    except BrokenPipeError:
        return
    except BaseException as exc:
        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        with contextlib.suppress(BrokenPipeError):
            put(exc)


def read_frames(stream: Any) -> Iterator[Any]:
    """The objects ``main`` wrote, until end of stream."""
    while True:
        head = stream.read(8)
        if len(head) < 8:
            return
        size = int.from_bytes(head, "little")
        data = stream.read(size)
        if len(data) < size:
            return
        yield pickle.loads(data)  # noqa: S301 - our own child process's output


if __name__ == "__main__":
    # Run as the module's importable name, so what it pickles is forecasts.accounting.parsers.producer.Batch,
    # not __main__.Batch.
    from forecasts.accounting.parsers.producer import main as _main

    _main()
