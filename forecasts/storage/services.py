"""Loading file-system scans: stream a scan through forecasts/storage into a StorageSnapshot.

The file is read block by block (``ScanAccumulator`` keeps bounded-memory statistics, never a
file list), then one transaction writes the snapshot (headline columns + the accumulator's
JSON + the planner facts), the per-owner and per-group rows attributed to departments and
projects, and the rejected lines (the first 1,000, each with its line number and reason).
A second scan of the same file system and date replaces the first.

Attribution reuses the jobs' dated identity mappings (ATTRIBUTION_LATERAL of
forecasts/accounting/load.py) as of the scan date: an owner is attributed like that user's
jobs (account, then user, then group mapping, over the identities the scheduler recorded
for the user), a group through the group mappings.
"""

from __future__ import annotations

import hashlib
import io
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from forecasts.accounting.load import ATTRIBUTION_LATERAL, unassigned_department
from forecasts.accounting.parsers.compression import UTF8_BOM, UnsupportedCompression, open_source, skip_bom
from forecasts.storage.facts import small_file_facts
from forecasts.storage.models import FileSystem, StorageRejection, StorageSnapshot
from forecasts.storage.scan.find import FindTsvParser
from forecasts.storage.scan.gpfs import GpfsListParser
from forecasts.storage.scan.lines import ScanLineTooLong, iter_lines
from forecasts.storage.stats import ScanAccumulator

FORMATS = ("tsv", "gpfs", "histogram")
Progress = Callable[[int, int], None]  # (bytes read, bytes total)
LinesProgress = Callable[[int, int], None]  # (lines read, lines expected: read x file size / bytes read)
LINES_PROGRESS_EVERY_S = 0.5
SNIFF_BYTES = 64 * 1024  # the head of an upload read before a job is queued


class StorageScanError(Exception):
    """The scan cannot be loaded (no such file, unknown format)."""


class _CountingReader(io.RawIOBase):
    def __init__(self, raw: Any, progress: Progress | None, total: int,
                 lines: tuple[LinesProgress, Callable[[], int]] | None = None) -> None:
        self.raw, self.progress, self.total, self.bytes_read, self._last = raw, progress, total, 0, 0
        self.lines, self._last_lines_at = lines, time.monotonic()
        self.sha256 = hashlib.sha256()  # of the file as read: no second pass over a large scan

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer) or 0
        self.sha256.update(memoryview(buffer)[:n])
        self.bytes_read += n
        if self.progress and self.bytes_read - self._last >= (8 << 20):
            self._last = self.bytes_read
            self.progress(self.bytes_read, self.total)
        if self.lines and time.monotonic() - self._last_lines_at >= LINES_PROGRESS_EVERY_S:
            self._last_lines_at = time.monotonic()
            report, lines_read = self.lines
            read = lines_read()  # lines of the blocks parsed so far (the reader is ~1 MB ahead)
            report(read, max(read, round(read * self.total / max(self.bytes_read, 1))))
        return n


def accumulate(path: Path, fmt: str, taken_on: date, progress: Progress | None = None,
               lines_progress: LinesProgress | None = None) -> tuple[ScanAccumulator, str]:
    """Stream a scan file into a ScanAccumulator (bounded memory whatever its length); also its sha256.

    gzip, bzip2 and xz scans are decompressed on the fly (detected from the first bytes); the
    sha256 and the byte progress are of the file as stored.  ``lines_progress`` is called at
    most every LINES_PROGRESS_EVERY_S with the lines read and the expected total.
    """
    epoch = datetime(taken_on.year, taken_on.month, taken_on.day, tzinfo=UTC).timestamp()
    acc = ScanAccumulator(scan_time_epoch=epoch)
    total = path.stat().st_size
    with path.open("rb") as raw:
        counting = _CountingReader(raw, progress, total,
                                   (lines_progress, lambda: acc.report.read) if lines_progress else None)
        buffered = io.BufferedReader(counting, buffer_size=1 << 20)
        try:
            reader = open_source(buffered)
        except UnsupportedCompression as exc:
            raise StorageScanError(f"{path.name}: {exc}") from exc
        skip_bom(reader)  # a byte-order mark made the header line a rejected record
        try:
            _consume(acc, reader, fmt)
        except ScanLineTooLong as exc:
            raise StorageScanError(f"{path.name}: {exc}") from exc
        reader.read()  # the rest, if a parser stopped early, so the digest covers the whole file
        buffered.read()
    if progress:
        progress(total, total)
    if lines_progress:
        lines_progress(acc.report.read, acc.report.read)
    return acc, counting.sha256.hexdigest()


def _consume(acc: ScanAccumulator, reader: Any, fmt: str) -> None:
    if fmt == "histogram":
        acc.consume_histogram(iter_lines(reader))
    else:
        acc.consume_file(reader, FindTsvParser() if fmt == "tsv" else GpfsListParser())


def nothing_loaded_message(name: str, fmt: str, read: int, skipped: int, rejected: int, where: str = "") -> str:
    """The one line a scan with no readable line is refused with (as a log upload that stores nothing)."""
    stored = read - skipped - rejected
    return (f"Nothing loaded from {name}: {read:,} lines read{where}: {stored:,} stored, {skipped:,} skipped, "
            f"{rejected:,} rejected; is this a {fmt} file?")


def scan_head_problem(path: Path, fmt: str) -> str | None:
    """Why an uploaded scan cannot be a ``fmt`` scan, from its first SNIFF_BYTES (decompressed), or None:
    not one line of them reads as a record and some are rejected (a binary file, another format).
    Refused at the upload, before a job is queued; ``ingest_scan`` applies the same rule to the whole file."""
    try:
        with open_source(path) as stream:
            head = stream.read(SNIFF_BYTES).removeprefix(UTF8_BOM)
            whole = not stream.read(1)
    except (OSError, EOFError, ValueError, UnsupportedCompression) as exc:
        return f"{path.name}: {exc}"
    if not whole:
        head = head[: head.rfind(b"\n") + 1]  # whole lines only
    acc = ScanAccumulator(scan_time_epoch=time.time())
    _consume(acc, io.BytesIO(head), fmt)
    r = acc.report
    if r.read - r.skipped - r.rejected > 0 or not r.rejected:
        return None
    return nothing_loaded_message(path.name, fmt, r.read, r.skipped, r.rejected,
                                  "" if whole else f" in its first {SNIFF_BYTES // 1024} KB")


_ATTRIBUTE_SQL = f"""
INSERT INTO forecasts_storageusage (snapshot_id, kind, name, department_id, project_id, bytes, files)
SELECT %(snapshot)s, o.kind, o.name, COALESCE(best.department_id, %(unassigned)s), best.project_id, o.bytes, o.files
FROM unnest(%(kinds)s::text[], %(names)s::text[], %(bytes)s::bigint[], %(files)s::bigint[])
    AS o(kind, name, bytes, files)
LEFT JOIN LATERAL (
    SELECT attr.department_id, attr.project_id
    FROM (SELECT i."user", i."group", i.account, i.id FROM forecasts_identity i
          WHERE o.kind = 'owner' AND i."user" = o.name
          UNION ALL SELECT o.name, '', '', 0 WHERE o.kind = 'owner'
          UNION ALL SELECT '', o.name, '', 0 WHERE o.kind = 'group') i
    {ATTRIBUTION_LATERAL.format(month="%(taken_on)s::date")}
    WHERE attr.department_id IS NOT NULL
    ORDER BY (i.account <> '') DESC, i.id DESC
    LIMIT 1
) best ON true
"""


def storable(value: Any) -> Any:
    """``value`` (a string, or the lists and dicts of a scan's statistics) as PostgreSQL can hold it: text
    and JSON cannot hold NUL, and UTF-8 cannot hold the lone surrogates that stand for a name's undecodable
    bytes (``surrogateescape``); both become visible escapes (``\\x00``, ``\\xff``), so a damaged scan
    still loads and shows what was damaged."""
    if isinstance(value, str):
        if value.isascii() and "\x00" not in value:
            return value
        try:
            raw = value.encode("utf-8", "surrogateescape")  # a name's undecodable bytes, as read
        except UnicodeEncodeError:  # a surrogate that stands for no byte
            raw = value.encode("utf-8", "backslashreplace")
        return raw.decode("utf-8", "backslashreplace").replace("\x00", "\\x00")
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value


def ingest_scan(*, filesystem: str, fmt: str, path: Path, taken_on: date | None = None, user: Any = None,
                progress: Progress | None = None, snapshot: StorageSnapshot | None = None,
                lines_progress: LinesProgress | None = None) -> StorageSnapshot:
    """Load one scan file; returns the completed snapshot (raises StorageScanError on bad input)."""
    if fmt not in FORMATS:
        raise StorageScanError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise StorageScanError(f"{path}: no such file")
    taken_on = taken_on or datetime.fromtimestamp(path.stat().st_mtime, UTC).date()
    fs, _ = FileSystem.objects.get_or_create(name=filesystem)
    if snapshot is None:
        snapshot = StorageSnapshot.objects.create(
            filesystem=fs, taken_on=taken_on, format=fmt, scan_name=path.name,
            created_by=user if user is not None and getattr(user, "is_authenticated", False) else None)
    started = time.monotonic()
    try:
        acc, sha = accumulate(path, fmt, taken_on, progress, lines_progress)
        stats = acc.to_dict(as_of_epoch=datetime(taken_on.year, taken_on.month, taken_on.day,
                                                 tzinfo=UTC).timestamp())
        facts = storable(small_file_facts(acc))
    except Exception as exc:
        StorageSnapshot.objects.filter(pk=snapshot.pk).update(status=StorageSnapshot.Status.FAILED,
                                                              error=f"{type(exc).__name__}: {exc}")
        raise
    report = acc.report
    if report.read - report.skipped - report.rejected <= 0:  # not one record: keep the previous scans as they are
        error = nothing_loaded_message(path.name, fmt, report.read, report.skipped, report.rejected)
        StorageSnapshot.objects.filter(pk=snapshot.pk).update(
            status=StorageSnapshot.Status.FAILED, error=error, lines_read=report.read,
            lines_skipped=report.skipped, lines_rejected=report.rejected, scan_sha256=sha)
        raise StorageScanError(error)
    stats = storable(stats)
    lines = stats["lines"]
    assert isinstance(lines, dict)
    rejections = lines.pop("rejections")
    directories = stats["directories"]
    assert isinstance(directories, dict)
    with transaction.atomic():
        StorageSnapshot.objects.filter(filesystem=fs, taken_on=taken_on).exclude(pk=snapshot.pk).delete()
        StorageSnapshot.objects.filter(pk=snapshot.pk).update(
            taken_on=taken_on, format=fmt, status=StorageSnapshot.Status.COMPLETED, files=acc.files,
            bytes_total=acc.total_bytes, directories=directories.get("count"),
            zero_length=stats["zero_length_files"], mean_size_bytes=stats["mean_size_bytes"],
            median_size_bytes=stats["median_size_bytes"], stats=stats, facts=facts, scan_name=path.name,
            scan_sha256=sha, lines_read=lines["read"], lines_skipped=lines["skipped"],
            lines_rejected=lines["rejected"], seconds=time.monotonic() - started, error="")
        snapshot.usage.all().delete()
        snapshot.rejections.all().delete()
        kinds, names, nbytes, files = [], [], [], []
        for kind, table in (("owner", stats["owners"]), ("group", stats["groups"])):
            assert isinstance(table, dict)
            for name, row in table.items():
                kinds.append(kind)
                names.append(name[:120])
                nbytes.append(int(row["bytes"]))
                files.append(int(row["files"]))
        if names:
            with connection.cursor() as cursor:
                cursor.execute(_ATTRIBUTE_SQL, {"snapshot": snapshot.pk, "unassigned": unassigned_department().pk,
                                                "kinds": kinds, "names": names, "bytes": nbytes, "files": files,
                                                "taken_on": taken_on})
        StorageRejection.objects.bulk_create(
            StorageRejection(snapshot=snapshot, line=r["line"], reason=r["reason"][:2000], raw=r["raw"])
            for r in rejections)
    snapshot.refresh_from_db()
    return snapshot


def snapshot_summary(s: StorageSnapshot) -> dict[str, Any]:
    """The JSON summary printed by the command (and the upload's result)."""
    return {
        "snapshot": s.pk, "status": s.status, "filesystem": s.filesystem.name, "taken_on": s.taken_on.isoformat(),
        "format": s.format, "scan": s.scan_name, "sha256": s.scan_sha256, "lines_read": s.lines_read,
        "lines_stored": s.lines_read - s.lines_skipped - s.lines_rejected,
        "lines_skipped": s.lines_skipped, "lines_rejected": s.lines_rejected,
        "rejections": [{"line": r.line, "reason": r.reason} for r in s.rejections.all()[:20]],
        "files": s.files, "bytes": s.bytes_total, "directories": s.directories, "zero_length": s.zero_length,
        "mean_size_bytes": s.mean_size_bytes, "median_size_bytes": s.median_size_bytes,
        "seconds": round(s.seconds, 3),
    }


# The Celery task loading a stored scan (forecasts.storage.tasks), enqueued by name.
SCAN_INGEST_TASK = "forecasts.tasks_storage.storage_scan_ingest"


def storage_scan_start(*, filesystem: str, fmt: str, path: Path, taken_on: date, user: Any = None
                       ) -> StorageSnapshot:
    """Queue an uploaded scan: a running snapshot and its background job (forecasts.storage.tasks).

    The task is enqueued once this transaction commits; the snapshot's ``background_job`` is
    what the progress bar follows.
    """
    from planner.jobs.services import job_start

    if fmt not in FORMATS:
        raise StorageScanError(f"format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise StorageScanError(f"{path}: no such file")
    if problem := scan_head_problem(path, fmt):  # refused before a job is queued; the previous scans stay
        raise StorageScanError(problem)
    with transaction.atomic():
        fs, _ = FileSystem.objects.get_or_create(name=filesystem)
        snapshot = StorageSnapshot.objects.create(
            filesystem=fs, taken_on=taken_on, format=fmt, scan_name=path.name,
            created_by=user if user is not None and getattr(user, "is_authenticated", False) else None)
        job = job_start(kind="storage-scan", label=f"Loading {path.name} into {fs.name} ({fmt}, {taken_on})",
                        task=SCAN_INGEST_TASK, params={"snapshot": snapshot.pk, "path": str(path)},
                        user=user, unit="lines")
        StorageSnapshot.objects.filter(pk=snapshot.pk).update(background_job=job)
        snapshot.background_job = job
    return snapshot


def snapshot_message(s: StorageSnapshot) -> str:
    """'N lines read: S stored, K skipped, R rejected' (they always add up)."""
    stored = s.lines_read - s.lines_skipped - s.lines_rejected
    return (f"{s.lines_read:,} lines read: {stored:,} stored, {s.lines_skipped:,} skipped, "
            f"{s.lines_rejected:,} rejected")
