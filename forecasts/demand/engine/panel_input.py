"""Reading a panel: a long CSV ``series_id,timestamp,value`` (gzip allowed) into series, one
``PanelError`` naming the file, line and field for bad input (pure core; the panel command,
``forecasts.demand.engine.panel``, forecasts what this reads)."""

from __future__ import annotations

import csv
import gzip
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .timestamps import Style, TimestampError, check_frequency, parse_period, series_style

REQUIRED = ("series_id", "timestamp", "value")
MAX_ID_CHARS = 200  # a series id is a label on a chart and in a CSV, not a document


class PanelError(ValueError):
    """Bad panel input: the message names the file, line and field."""


@dataclass
class PanelSeries:
    series_id: str
    style: Style
    first_period: int
    values: np.ndarray  # one per period from first_period, NaN = missing


def _open_text(path: Path) -> io.TextIOBase:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return io.StringIO(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise PanelError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def read_panel(source: Path | str | io.TextIOBase, frequency: str, name: str | None = None) -> list[PanelSeries]:
    """Parse a long CSV into series (first appearance order).  ``source`` is a path or open text."""
    f = check_frequency(frequency)
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            handle = _open_text(path)
        except OSError as exc:
            raise PanelError(f"{path}: cannot read: {exc.strerror}") from exc
        label = name or str(path)
    else:
        handle, label = source, name or "upload"
    reader = csv.reader(handle)
    header = next(reader, None)
    if header is None:
        raise PanelError(f"{label}: empty file")
    cols = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        sep = next((d for d in (";", "\t", "|") if len(header) == 1 and d in header[0]), None)
        hint = (f": the columns are separated by {'a tab' if sep == chr(9) else repr(sep)}; save the file with commas"
                if sep else " (need series_id,timestamp,value)")
        raise PanelError(f"{label} line 1: missing column(s) {', '.join(missing)}{hint}")
    i_id, i_ts, i_v = (cols.index(c) for c in REQUIRED)
    points: dict[str, dict[int, float]] = {}
    stamps: dict[str, list[str]] = {}
    for line_no, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) <= max(i_id, i_ts, i_v):
            raise PanelError(f"{label} line {line_no}: expected {len(cols)} fields, got {len(row)}")
        sid, ts, raw = row[i_id].strip(), row[i_ts].strip(), row[i_v].strip()
        if not sid:
            raise PanelError(f"{label} line {line_no}: empty series_id")
        bad = next((c for c in sid if ord(c) < 32 or ord(c) == 127), None)
        if bad is not None:
            raise PanelError(f"{label} line {line_no}: series_id has a control character (U+{ord(bad):04X})")
        if len(sid) > MAX_ID_CHARS:
            raise PanelError(f"{label} line {line_no}: series_id is {len(sid)} characters; at most {MAX_ID_CHARS}")
        try:
            period = parse_period(ts, f)
        except TimestampError as exc:
            raise PanelError(f"{label} line {line_no}: field timestamp: {exc}") from exc
        try:
            value = float(raw) if raw not in ("", "NA", "NaN", "nan") else math.nan
        except ValueError:
            raise PanelError(f"{label} line {line_no}: field value: {raw!r} is not a number") from None
        if math.isinf(value):  # "inf", "1e400": a broken figure, not a missing one (blank or NA is a gap)
            raise PanelError(f"{label} line {line_no}: field value: {raw!r} is not a finite number "
                             f"(leave it blank for a period without a value)")
        series = points.setdefault(sid, {})
        if period in series:
            raise PanelError(f"{label} line {line_no}: series {sid!r} has timestamp {ts!r} twice")
        series[period] = value
        stamps.setdefault(sid, []).append(ts)
    if not points:
        raise PanelError(f"{label}: no data rows")
    out = []
    for sid, series in points.items():
        try:
            style = series_style(stamps[sid], f)
        except TimestampError as exc:
            raise PanelError(f"{label}: series {sid!r}: {exc}") from exc
        kinds = {s.strip().count("-") for s in stamps[sid]}
        if len(kinds) > 1:
            raise PanelError(f"{label}: series {sid!r} mixes timestamp styles")
        lo, hi = min(series), max(series)
        vals = np.full(hi - lo + 1, np.nan)
        for p, v in series.items():
            vals[p - lo] = v
        out.append(PanelSeries(sid, style, lo, vals))
    return out
