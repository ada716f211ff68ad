"""How the storage page writes byte counts (pure core: no Django).

Capacities and holdings are decimal, as vendors quote them and as the rest of the product
writes TB and PB (forecasts/units.py): 1 MB = 10**6 bytes, 1 TB = 10**12 bytes.  A column of
a table is written in one unit with fixed decimals, so its rows add up to its total; Django's
``filesizeformat`` is binary (1024-based) and changes unit from row to row, so it is not used.
Block and inode sizes are powers of two and are written exactly in binary units (``8 KiB``).
"""

from __future__ import annotations

from collections.abc import Iterable

from forecasts.units import BYTES_PER_KIB, BYTES_PER_TB

DECIMAL_UNITS = (("PB", BYTES_PER_TB * 1000), ("TB", BYTES_PER_TB), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
BINARY_UNITS = (("TiB", BYTES_PER_KIB**4), ("GiB", BYTES_PER_KIB**3), ("MiB", BYTES_PER_KIB**2),
                ("KiB", BYTES_PER_KIB))


def decimal_size(n_bytes: float | None, digits: int = 1) -> str:
    """485_206_147 -> '485.2 MB'; below 1 kB the bytes themselves ('812 B'); None -> ''."""
    if n_bytes is None:
        return ""
    for unit, factor in DECIMAL_UNITS:
        if abs(n_bytes) >= factor:
            return f"{n_bytes / factor:,.{digits}f} {unit}"
    return f"{n_bytes:,.0f} B"


def column_unit(values: Iterable[float]) -> tuple[str, int]:
    """The one decimal unit for a column of byte counts: the largest its biggest value reaches.

    >>> column_unit([3_000, 2_500_000_000])
    ('GB', 1000000000)
    """
    top = max((abs(v) for v in values), default=0)
    return next(((u, f) for u, f in DECIMAL_UNITS if top >= f), ("B", 1))


def in_unit(n_bytes: float, factor: int, digits: int = 2) -> str:
    """A byte count in a column's unit with fixed decimals: in_unit(27_250_000_000_000, 10**12) -> '27.25'."""
    return f"{n_bytes / factor:,.{digits if factor > 1 else 0}f}"


def binary_size(n_bytes: int | None) -> str:
    """A block, inode or bin-edge size in exact binary units: 8192 -> '8 KiB', 1536 -> '1.5 KiB'."""
    if n_bytes is None:
        return ""
    for unit, factor in BINARY_UNITS:
        if abs(n_bytes) >= factor:
            return f"{n_bytes / factor:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{n_bytes:,} B"
