"""Deterministic 64-bit hashes of byte spans: owners, groups, parent directories (pure core).

Spans are offsets into a ``padded`` block, so fixed-width windows never run off its ends.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.records import I64, MAX_LINE_BYTES, U8, U64, _text

PAD_BYTES = MAX_LINE_BYTES + 64  # zero padding around a block, so fixed-width windows fit
_WORD_WEIGHTS = np.random.default_rng(0x5EED).integers(
    0, 2**63, size=(PAD_BYTES // 8) + 1, dtype=np.uint64
) * np.uint64(2) + np.uint64(
    1
)  # fixed odd multipliers, one per 8-byte word position: the same in every process
_WIDTHS = (16, 32, 64, 128, 256, 512, 1024, 4096, PAD_BYTES - 64)


def _fmix64(x: U64) -> U64:
    x = x ^ (x >> np.uint64(33))
    x = x * np.uint64(0xFF51AFD7ED558CCD)
    x = x ^ (x >> np.uint64(33))
    x = x * np.uint64(0xC4CEB9FE1A85EC53)
    return x ^ (x >> np.uint64(33))


def padded(buf: U8) -> U8:
    """``buf`` with PAD_BYTES zeros on both sides (span offsets shift by PAD_BYTES)."""
    out = np.zeros(len(buf) + 2 * PAD_BYTES, dtype=np.uint8)
    out[PAD_BYTES : PAD_BYTES + len(buf)] = buf
    return out


def windows(bufp: U8, starts: I64, width: int) -> U8:
    """Rows of ``width`` bytes of the padded buffer from each start (a copy, no index matrix)."""
    view = np.lib.stride_tricks.sliding_window_view(bufp, width)
    return view[starts]


def span_hashes(bufp: U8, starts: I64, ends: I64) -> U64:
    """64-bit hash of each span ``bufp[start:end]`` (offsets into a ``padded`` buffer).

    The span's bytes, read as little-endian 8-byte words from its own start (so the hash does
    not depend on where the span sits), are masked past its end, multiplied by fixed random odd
    weights and summed modulo 2**64, with the length mixed in; MurmurHash3's fmix64 finishes it
    so the top bits are uniform (they drive the directory sampling). Deterministic across
    processes, unlike ``hash()``.
    """
    lengths = (ends - starts).astype(np.int64)
    out = np.empty(len(starts), dtype=np.uint64)
    lower = -1
    for width in _WIDTHS:
        sel = (
            np.flatnonzero((lengths > lower) & (lengths <= width))
            if lower >= 0
            else np.flatnonzero(lengths <= width)
        )
        lower = width
        if not len(sel):
            continue
        nwords = width // 8
        rows = windows(bufp, starts[sel], width)
        length = lengths[sel]
        rows *= np.arange(width, dtype=np.int64) < length[:, None]  # zero the bytes past the span
        words = rows.view("<u8")
        with np.errstate(over="ignore"):
            h = words @ _WORD_WEIGHTS[:nwords]  # integer matmul wraps modulo 2**64
            h = h + length.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            out[sel] = _fmix64(h)
    return out


def hash_strings(values: list[bytes]) -> U64:
    """``span_hashes`` of whole byte strings (the slow path's equivalent of the fast path)."""
    if not values:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.fromiter((min(len(v), PAD_BYTES - 64) for v in values), dtype=np.int64, count=len(values))
    joined = b"".join(v[: PAD_BYTES - 64] for v in values)
    ends = np.cumsum(lengths) + PAD_BYTES
    return span_hashes(padded(np.frombuffer(joined, dtype=np.uint8)), ends - lengths, ends)



def run_heads(values: npt.NDArray[np.generic]) -> I64:
    """Indexes where a run of equal consecutive values starts (scans list a directory at a time)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    change = np.empty(len(values), dtype=bool)
    change[0] = True
    np.not_equal(values[1:], values[:-1], out=change[1:])
    return np.flatnonzero(change)


def _span_keys(bufp: U8, s: I64, e: I64) -> tuple[I64, list[str]]:
    """Codes (equal text, equal code) and the text of each code, for byte spans.

    Sorts only the heads of runs of equal values: consecutive lines mostly share an owner.
    """
    h = span_hashes(bufp, s, e)
    heads = run_heads(h)
    uniq, first, inv = np.unique(h[heads], return_index=True, return_inverse=True)
    run_id = np.repeat(np.arange(len(heads)), np.diff(np.append(heads, len(h))))
    names = [_text(bytes(bufp[s[heads[i]] : e[heads[i]]])) for i in first.tolist()]
    return inv.ravel().astype(np.int64)[run_id], names

