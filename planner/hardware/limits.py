"""What a catalog item's fields are called in words, and the values a real machine can have (pure core).

A value outside these ranges is a typo (500 GHz, a million cores per node, a price of 1e20), not a
machine: it would reach the optimiser and every design's cost. The catalog file, the CSV import, the
node-type form and the API all apply them through :func:`planner.hardware.catalog.number_problems`;
the messages name the field as the form labels it and the limit.
"""

from __future__ import annotations

from typing import Any

NODE_LABELS = {
    "name": "Name", "cpu_model": "CPU model", "sockets": "Sockets", "cores_per_node": "Cores per node",
    "base_clock_ghz": "Base clock (GHz)", "all_core_clock_ghz": "All-core clock (GHz)",
    "arch_factor": "Architecture factor", "memory_gb": "Memory (GB)", "local_flash_tb": "Local flash (TB)",
    "gpus": "GPUs", "price_usd": "Price (USD)", "power_w": "Power (W)", "rack_units": "Rack units",
    "support_pct_per_year": "Support (% of price per year)", "lifetime_years": "Lifetime (years)",
    "first_year": "First year sold", "last_year": "Last year sold",
    "flops_per_cycle_per_core": "FLOPs per cycle per core", "source": "Source", "assumptions": "Assumptions",
    "price_source": "Price source", "price_date": "Price date",
}
STORAGE_LABELS = {
    "name": "Name", "kind": "Kind", "raw_tb": "Raw capacity (TB)", "usable_tb": "Usable capacity (TB)",
    "price_usd": "Price per unit (USD)", "power_w": "Power per unit (W)", "throughput_gbps": "Throughput (GB/s)",
    "metadata_iops": "Metadata operations per second", "fullness_limit": "Fullness limit",
    "cpu_efficiency": "CPU efficiency", "ceiling_concurrent_samples": "Ceiling (concurrent samples)",
    "ceiling_genomes_per_day": "Ceiling (genomes/day)", "tested_max_concurrent_samples": "Tested concurrent samples",
    "support_pct_per_year": "Support (% of price per year)", "lifetime_years": "Lifetime (years)",
    "first_year": "First year sold", "last_year": "Last year sold", "source": "Source",
    "assumptions": "Assumptions", "price_source": "Price source", "price_date": "Price date",
}

# (lowest, highest) a real item can have; None: no bound on that side (positivity is checked apart).
_YEARS = (1950, 2100)
NODE_RANGES: dict[str, tuple[float | None, float | None]] = {
    "sockets": (None, 16), "cores_per_node": (None, 1024),
    "base_clock_ghz": (0.5, 10), "all_core_clock_ghz": (0.5, 10), "arch_factor": (None, 10),
    "memory_gb": (None, 65_536), "local_flash_tb": (None, 1_000), "gpus": (None, 64),
    "price_usd": (None, 10_000_000), "power_w": (None, 100_000), "rack_units": (None, 48),
    "support_pct_per_year": (None, 100), "lifetime_years": (None, 30), "flops_per_cycle_per_core": (None, 256),
    "first_year": _YEARS, "last_year": _YEARS,
}
STORAGE_RANGES: dict[str, tuple[float | None, float | None]] = {
    "raw_tb": (None, 1_000_000), "usable_tb": (None, 1_000_000), "price_usd": (None, 100_000_000),
    "power_w": (None, 1_000_000), "throughput_gbps": (None, 100_000), "metadata_iops": (None, 1e9),
    "support_pct_per_year": (None, 100), "lifetime_years": (None, 30), "first_year": _YEARS, "last_year": _YEARS,
}


def _num(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:,g}"


def _year(value: Any) -> str:
    return str(value)


def range_problems(values: dict[str, Any], ranges: dict[str, tuple[float | None, float | None]],
                   labels: dict[str, str]) -> dict[str, str]:
    """Fields outside their plausible range, and the cross-field rules (years in order, usable <= raw).

    ``values`` holds finite numbers (or None, or is missing a field: then the rule is skipped)."""
    problems: dict[str, str] = {}
    for name, (low, high) in ranges.items():
        val = values.get(name)
        if val is None or isinstance(val, bool) or not isinstance(val, (int, float)):
            continue
        fmt = _year if name.endswith("_year") else _num
        if (low is not None and val < low) or (high is not None and val > high):
            if low is not None and high is not None:
                bound = f"between {fmt(low)} and {fmt(high)}"
            elif high is not None:
                bound = f"at most {fmt(high)}"
            elif low is not None:
                bound = f"at least {fmt(low)}"
            problems[name] = f"{labels[name]} must be {bound}, got {fmt(val)}"
    first, last = values.get("first_year"), values.get("last_year")
    if isinstance(first, int) and isinstance(last, int) and "last_year" not in problems and last < first:
        problems["last_year"] = f"{labels['last_year']} ({last}) must not be before the first year sold ({first})"
    raw, usable = values.get("raw_tb"), values.get("usable_tb")
    if (isinstance(raw, (int, float)) and isinstance(usable, (int, float)) and "raw_tb" in labels
            and "usable_tb" not in problems and usable > raw):
        problems["usable_tb"] = f"Usable capacity ({_num(usable)} TB) must not exceed the raw capacity ({_num(raw)} TB)"
    return problems
