"""Units and conversion factors, in one place (pure core).

Conventions used across the product:
- Storage: decimal units as vendors quote them: 1 TB = 10**12 bytes, 1 PB = 1000 TB.
  Binary units (TiB) only where a file system reports them; convert here.
- Compute: a core-hour is one allocated core held for one hour (what the scheduler
  charged, whether the core was busy or not); a CPU-hour is consumed CPU time.
- Normalised core-hours: core-hours on a reference core, scaled linearly by clock
  (GHz) and an architecture factor (work per core per GHz relative to the reference),
  as the Minerva paper's "strict linear clock frequency comparison": 48 M core-hours
  at 2.4 GHz are 48 * 2.4 / 3.5 = 32.9 M core-hours at 3.5 GHz.
"""

from __future__ import annotations

BYTES_PER_KB = 1024  # file sizes as file systems report them
BYTES_PER_KIB = 1024
BYTES_PER_TB = 10**12
BYTES_PER_TIB = 2**40
TB_PER_PB = 1000.0
# A series' periods by frequency code, in messages and on pages ("36 months", "10 years").
PERIOD_UNITS = {"M": "months", "Q": "quarters", "S": "half-years", "A": "years", "W": "weeks"}


def period_word(frequency: str) -> str:
    """One of a series' periods in words, singular (month, quarter, half-year, year)."""
    return PERIOD_UNITS.get(frequency, "periods").removesuffix("s")
# How a usage metric's months make its yearly figure: flows are summed, a stock is the year's last month, a count of
# people the months' mean (docs/forecasting.md, "Conventions")
YEAR_AGGREGATE = {"core_hours": "sum", "jobs": "sum", "active_users": "mean", "storage_pb": "last"}
SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0
HOURS_PER_YEAR = 8760.0  # 365 days; planning years, not calendar leap years
WEEKS_PER_YEAR = 52.0
DAYS_PER_YEAR = 365.0
MB_PER_GB = 1024.0  # scheduler memory units are binary


def tib_to_tb(tib: float) -> float:
    return tib * BYTES_PER_TIB / BYTES_PER_TB


def tb_to_tib(tb: float) -> float:
    return tb * BYTES_PER_TB / BYTES_PER_TIB


def bytes_to_tb(n_bytes: float) -> float:
    return n_bytes / BYTES_PER_TB


def convert_core_hours(
    core_hours: float,
    *,
    from_clock_ghz: float,
    to_clock_ghz: float,
    from_arch_factor: float = 1.0,
    to_arch_factor: float = 1.0,
) -> float:
    """Core-hours on one core type expressed on another, linearly by clock x architecture.

    Work = core_hours x clock x arch; the same work on the target core takes
    work / (to_clock x to_arch) core-hours.
    """
    if to_clock_ghz <= 0 or to_arch_factor <= 0:
        raise ValueError("target clock and architecture factor must be positive")
    return core_hours * from_clock_ghz * from_arch_factor / (to_clock_ghz * to_arch_factor)
