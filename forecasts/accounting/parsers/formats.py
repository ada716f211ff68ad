"""The accounting formats we read, their parsers, and sniffing a format from a file's head.

Pure core, no Django.  Parsers are imported lazily so that using one format does
not import the others.  Every parser has the signature
``parse(lines: Iterable[bytes], *, cluster: str, tz: tzinfo = UTC) -> Iterator[ParsedItem]``.
"""

from __future__ import annotations

import bz2
import functools
import importlib
import lzma
import re
import zlib
from collections.abc import Callable, Iterator

from forecasts.accounting.parsers.records import ParsedItem

FORMATS: dict[str, str] = {
    "slurm": "Slurm sacct --parsable2 (pipe-separated, with or without a header)",
    "slurm-json": "Slurm sacct --json",
    "lsf": "IBM Spectrum LSF lsb.acct (JOB_FINISH records)",
    "pbs": "PBS Pro / OpenPBS / TORQUE accounting (server_priv/accounting)",
    "sge": "Sun/Son of/Open Grid Engine accounting (colon-separated)",
    "uge": "Univa/Altair Grid Engine accounting (times in milliseconds)",
    "swf": "Standard Workload Format (Parallel Workloads Archive)",
}

# format name -> (module under forecasts.accounting.parsers, extra keyword arguments for its parse)
_PARSERS: dict[str, tuple[str, dict[str, object]]] = {
    "slurm": ("slurm", {}),
    "slurm-json": ("slurm_json", {}),
    "lsf": ("lsf", {}),
    "pbs": ("pbs", {}),
    "sge": ("sge", {}),
    "uge": ("sge", {"millis": True}),
    "swf": ("swf", {}),
}

Parser = Callable[..., Iterator[ParsedItem]]
SNIFF_BYTES = 64 * 1024


class UnknownFormat(ValueError):
    """A format name that is not in FORMATS."""

    def __init__(self, name: str) -> None:
        self.name = name
        valid = ", ".join(sorted(FORMATS))
        super().__init__(f"unknown accounting format {name!r}; valid formats are: {valid}")


def get_parser(name: str) -> Parser:
    """The ``parse`` function for a format name (``uge`` is ``sge.parse`` with ``millis=True``)."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _PARSERS:
        raise UnknownFormat(str(name))
    module_name, kwargs = _PARSERS[key]
    module = importlib.import_module(f"forecasts.accounting.parsers.{module_name}")
    parse: Parser = module.parse
    if kwargs:
        return functools.partial(parse, **kwargs)
    return parse


# ---------------------------------------------------------------------------- sniffing

_PBS_RE = re.compile(rb"^\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2};[A-Z];")
_LSF_RE = re.compile(rb'^"[A-Z_]+" "[0-9.]+" \d+ ')
_SWF_DATA_RE = re.compile(rb"^\s*-?\d+(?:\.\d+)?(?:\s+-?\d+(?:\.\d+)?){17}\s*$")
_SLURM_HEADER_RE = re.compile(rb"^(?:jobid|jobidraw)\|", re.IGNORECASE)
_SLURM_JOBID_RE = re.compile(rb"^\d+(?:_(?:\d+|\[[\d,\-%:]+\]))?(?:\+\d+)?(?:\.[\w]+)?\|")
_ISO_TIME_RE = re.compile(rb"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")
_UGE_MILLIS = 1e11  # epoch seconds stay below 1e11 until the year 5138


def _decompress_head(head: bytes) -> bytes:
    """Best-effort decompression of a compressed file's first bytes (partial output is fine)."""
    try:
        if head.startswith(b"\x1f\x8b"):
            return zlib.decompressobj(wbits=47).decompress(head, SNIFF_BYTES)
        if head.startswith(b"BZh"):
            return bz2.BZ2Decompressor().decompress(head, SNIFF_BYTES)
        if head.startswith(b"\xfd7zXZ\x00"):
            return lzma.LZMADecompressor().decompress(head, SNIFF_BYTES)
    except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
        return b""
    return head


def _is_text(s: bytes) -> bool:
    """UTF-8 without control characters other than tab (random bytes after a ';' are not a header)."""
    try:
        text = s.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch == "\t" or ch.isprintable() for ch in text)


def _classify(line: bytes) -> str | None:
    """The format one line belongs to, or None when the line alone does not say."""
    s = line.strip()
    if not s:
        return None
    if s.startswith(b";"):  # an SWF header comment is text: "; Version: 2.2"
        return "swf" if _is_text(s) else None
    if _PBS_RE.match(s):
        return "pbs"
    if _LSF_RE.match(s):
        return "lsf"
    if _SLURM_HEADER_RE.match(s):
        return "slurm"
    if b"|" in s:
        fields = s.split(b"|")
        n = len(fields)
        if _SLURM_JOBID_RE.match(s) and (n >= 26 or n == 15):
            return "slurm"
        if n >= 26 and sum(1 for f in fields[10:14] if _ISO_TIME_RE.match(f) or f == b"Unknown") >= 2:
            return "slurm"
    if s.startswith(b"#"):
        return None  # SGE header comments
    if s.count(b":") >= 39:
        fields = s.split(b":")
        try:
            times = [float(f) for f in fields[8:11]]
        except ValueError:
            times = []
        if len(times) == 3:
            return "uge" if max(times) > _UGE_MILLIS else "sge"
    if _SWF_DATA_RE.match(s):
        return "swf"
    return None


def detect_format(head: bytes) -> str | None:
    """Guess the format from the first ~64 KB of a file (compressed input is decompressed).

    Returns a FORMATS name or None when nothing is recognised.  The first line that
    identifies a format decides, except that SGE/UGE look at a few lines (one line
    of an old SGE may have all-zero times).
    """
    if not head:
        return None
    data = _decompress_head(head[:SNIFF_BYTES] if len(head) > SNIFF_BYTES else head)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    stripped = data.lstrip()
    if stripped[:1] in (b"{", b"[") and b'"jobs"' in data[:SNIFF_BYTES]:
        return "slurm-json"
    if stripped[:1] == b"[" and b'"job_id"' in data[:SNIFF_BYTES]:
        return "slurm-json"
    lines = data.split(b"\n")
    if len(lines) > 1 and len(data) >= SNIFF_BYTES:
        lines.pop()  # the last line is probably cut
    grid: str | None = None
    found: str | None = None
    for line in lines[:2000]:
        kind = _classify(line)
        if kind is None or (grid is not None and kind not in ("sge", "uge")):
            continue
        if kind in ("sge", "uge"):
            if kind == "uge":
                found = "uge"
                break
            grid = "sge"
            continue
        found = kind
        break
    found = found or grid
    return found if found and _most_lines_are(found, lines) else None


SNIFF_CHECK_LINES = 50  # the first lines that must mostly parse as the guessed format


def _most_lines_are(fmt: str, lines: list[bytes]) -> bool:
    """Whether most of the first non-blank, non-comment lines read as ``fmt`` (one line that
    happens to look like a format, e.g. a ';' in random bytes read as an SWF header, is not enough)."""
    family = {"sge": ("sge", "uge"), "uge": ("sge", "uge")}.get(fmt, (fmt,))
    checked = [ln for ln in (ln.strip() for ln in lines[:2000]) if ln and not ln.startswith(b"#")][:SNIFF_CHECK_LINES]
    if not checked:
        return False
    header = next((ln for ln in checked if fmt == "slurm" and _SLURM_HEADER_RE.match(ln)), None)

    def reads(line: bytes) -> bool:
        if _classify(line) in family:
            return True  # a sacct header names its own fields: its rows have as many
        return header is not None and line.count(b"|") == header.count(b"|")

    return sum(1 for ln in checked if reads(ln)) * 2 > len(checked)
