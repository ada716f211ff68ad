"""What the design pages call things: constraint names and optimiser statuses in words a director reads
(pure core: no Django; the API keeps the raw names beside these labels)."""

from __future__ import annotations

import re
from typing import Any

from planner.designs.scenario import OptimizeOptions

# The year table's row labels: what each constraint compares.
CHECK_LABELS = {
    "core_hours": "Compute (core-hours at target)", "genomes_per_day": "Genomes per day",
    "storage_tb": "Online storage (TB at fullness limit)", "flash_tb": "Flash for days of ingest (TB)",
    "metadata_files": "Metadata: files a policy scan covers", "bandwidth_gbps": "Bandwidth (GB/s)",
    "ingest_gbps": "Storage throughput for the ingest", "budget_usd": "Capex within the yearly budget",
}
# Column headers and inline mentions: the quantity, with its unit.
SHORT_LABELS = {
    "core_hours": "Core-hours", "genomes_per_day": "Genomes/day", "storage_tb": "Storage (TB)",
    "flash_tb": "Flash (TB)", "metadata_files": "Metadata (files)", "bandwidth_gbps": "Bandwidth (GB/s)",
    "ingest_gbps": "Ingest (GB/s)", "budget_usd": "Budget (USD)", "ingest_tb_per_day": "Ingest (TB/day)",
    "files": "Files",
}


def _words(name: str) -> str:
    text = str(name).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def check_label(name: str) -> str:
    """The year table's label of a constraint ("Compute (core-hours at target)"); an unknown one in words."""
    return CHECK_LABELS.get(name, _words(name))


def constraint_label(name: str) -> str:
    """A constraint as a header names it, with its unit ("Storage (TB)"); an unknown one in words."""
    return SHORT_LABELS.get(name, _words(name))


def labels_for(names: list[str]) -> dict[str, str]:
    return {n: constraint_label(n) for n in names}


# An optimiser run's status -> how its words read: ok (a plan to use), warn (a plan, but the solver stopped
# before proving it within the gap asked for), error (no plan), muted (not finished).
DEFAULT_GAP = OptimizeOptions().mip_rel_gap  # what a scenario without optimize.mip_rel_gap asks for
_GAP_IN_MESSAGE = re.compile(r"relative gap ([0-9.]+)%")


def _gap_text(gap: float) -> str:
    return f"{100 * gap:.2f}%" if gap >= 5e-5 else "0.01%"


def message_gap(message: Any) -> float | None:
    """The relative gap a solver message states ("...; relative gap 0.290%"), for results stored without one."""
    found = _GAP_IN_MESSAGE.search(str(message or ""))
    return float(found.group(1)) / 100 if found else None


def status_label(status: str, *, mip_gap: float | None = None, requested_gap: float | None = None,
                 message: str = "") -> tuple[str, str]:
    """(label, tone) of an optimiser status ("optimal", "gap", "infeasible", "time_limit", "failed",
    "queued", "running"). "gap" is a plan within ``mip_gap`` of the cheapest possible one: a success when
    that is within the gap asked for (``requested_gap``, the scenario's optimize.mip_rel_gap), otherwise the
    solver stopped at its time limit first."""
    if status == "optimal":
        return "Optimal: the cheapest possible plan", "ok"
    if status == "gap":
        if mip_gap is None:
            mip_gap = message_gap(message)
        if mip_gap is None:
            return "A plan close to the cheapest possible (stopped at the time limit)", "warn"
        asked = DEFAULT_GAP if requested_gap is None else requested_gap
        head = f"Within {_gap_text(mip_gap)} of the cheapest possible plan"
        if mip_gap <= asked * (1 + 1e-9) + 1e-12:
            return head, "ok"
        return f"{head} (stopped at the time limit)", "warn"
    if status == "infeasible":
        return "Infeasible: no plan meets every constraint", "error"
    if status == "time_limit":
        return "Stopped at the time limit before finding any plan", "error"
    if status == "failed":
        reason = str(message or "").strip().splitlines()
        first = reason[0] if reason else "no reason recorded"
        return f"Failed: {first[:200]}", "error"
    if status == "queued":
        return "Queued", "muted"
    if status == "running":
        return "Running", "muted"
    return _words(status), "muted"


def scenario_gap(scenario: dict[str, Any] | None) -> float:
    """The relative gap a design's scenario asks the optimiser for (optimize.mip_rel_gap)."""
    raw = ((scenario or {}).get("optimize") or {}).get("mip_rel_gap")
    try:
        return DEFAULT_GAP if raw is None else float(raw)
    except (TypeError, ValueError):
        return DEFAULT_GAP


def run_status(status: str, result: dict[str, Any] | None, scenario: dict[str, Any] | None,
               message: str = "") -> dict[str, str]:
    """{"label", "tone"} of a stored run (its result's mip_gap against the scenario's requested gap)."""
    label, tone = status_label(status, mip_gap=(result or {}).get("mip_gap"), requested_gap=scenario_gap(scenario),
                               message=message or (result or {}).get("message", ""))
    return {"label": label, "tone": tone}


def forecast_scope(cluster: str | None, department: str | None = None, excluded: str | None = None) -> str:
    """Whose demand a forecast is, as a design started from it is named: 'scb on nexus' (one department),
    'all but scb on nexus' (every department but one), 'nexus' (the whole cluster); 'all clusters' without one."""
    where = cluster or "all clusters"
    if department:
        return f"{department} on {where}"
    if excluded:
        return f"all but {excluded} on {where}"
    return where


def any_figure(rows: Any, keys: tuple[str, ...] | list[str]) -> bool:
    """Whether any year row has a non-zero value for one of ``keys`` (None counts as absent): pages leave out
    the genomics or storage figures of designs that have neither (the year table, the comparison)."""
    return any(bool(row.get(k)) for row in rows or [] for k in keys)


def genomics_applies(rows: Any) -> bool:
    """Whether a design's per-genome figures mean something: some year checks genomes/day or asks for genomes.
    A design with the genomes check off and no genomes demand (a cluster's compute and storage) still has a
    genomes/day capacity wherever it owns a storage tier, but its KPI "25 genomes/day (demand 0)" and a cost per
    genome were figures of a question nobody asked: pages leave them out, as they do for a compute-only design."""
    return any(c.get("name") == "genomes_per_day" for row in rows or [] for c in row.get("checks") or []) \
        or any_figure(rows, ("genomes_per_day_demand",))


# A met constraint that one unit fewer would break sized the purchase: the page marks it "binds" (a reading aid,
# not a rule of the evaluation or the optimiser). Where no unit can be taken away, less slack than this share of
# its requirement stands in for that rule.
BINDING_SLACK = 0.05


def binds(required: float, available: float, fewer: float | None = None, units: int = 0) -> bool:
    """Whether a met requirement sized the purchase: one unit fewer of what provides it (``fewer``: what is
    available without the unit whose loss costs it least; ``units`` of them) would not meet it. With a single
    unit (one fewer leaves none, which no requirement survives) or nothing to take a unit from (a budget), when
    it is met within BINDING_SLACK. The year table's checks and the 'why these nodes' card's tier both use it."""
    tol = 1e-9 * max(1.0, abs(required))
    if required <= 0 or available < required - tol:
        return False
    if fewer is not None and units > 1:
        return fewer < required - tol
    return available - required <= BINDING_SLACK * required


def is_binding(check: dict[str, Any], fewer: float | None = None, units: int = 0) -> bool:
    """A check that passed and binds (``binds``): the constraint deciding that year's size."""
    if not check.get("passed"):
        return False
    return binds(float(check.get("required") or 0.0), float(check.get("available") or 0.0), fewer, units)


def compute_capacity_rule(scenario: dict[str, Any]) -> str:
    """How the design's core-hours at target are made, with where each factor comes from: the scenario's
    value, or the default and its source (the maintenance default is the Minerva study's convention)."""
    from planner.designs.capacity import CostParams, Design

    costs = scenario.get("costs") or {}
    constraints = scenario.get("constraints") or {}
    days = costs.get("maintenance_days_per_year")
    target = constraints.get("utilisation_target")
    default_days = CostParams().maintenance_days_per_year
    default_target = Design.__dataclass_fields__["utilisation_target"].default
    days_text = (f"{float(days):g} maintenance days a year (this scenario)" if days is not None else
                 f"{default_days:g} maintenance days a year (the default: the Minerva study's convention, "
                 f"24 x {365 - default_days:g} h; set costs.maintenance_days_per_year for your site)")
    target_text = (f"{float(target):.0%} utilisation target (this scenario)" if target is not None else
                   f"{default_target:.0%} utilisation target (the default; constraints.utilisation_target)")
    return (f"cores x 24 h x (365 - maintenance days) x utilisation target, each core weighted by clock x "
            f"architecture factor relative to the {reference_core_label(scenario)} (demand is counted on it too): "
            f"{days_text}; {target_text}{_share_text(scenario)}")


def _share_text(scenario: dict[str, Any]) -> str:
    """How the cores are split between the genomes/day and the core-hours checks. At genomics_share 1 (the default)
    both checks see every core, so a plan meeting both holds the larger demand on its cores, not their sum: a
    scenario giving core-hours and genomes/day for the same year was planned as if the genomes ran on the cores
    the core-hours already filled, with no word on the page."""
    from planner.designs.scenario import _yaml_off

    constraints = _yaml_off(scenario.get("constraints") or {})
    share = constraints.get("genomics_share")
    off = set(constraints.get("off") or [])
    if share is not None and float(share) < 1:
        return (f"; genomics_share {float(share):g}: genomes/day run on {float(share):.0%} of the cores, the "
                f"core-hours demand is checked on the other {1 - float(share):.0%}")
    both = [d.get("year") for d in scenario.get("demand") or [] if isinstance(d, dict)
            and _positive(d.get("core_hours")) and _positive(d.get("genomes_per_day"))]
    if not both or {"core_hours", "genomes_per_day"} & off:
        return ""
    return (f"; genomics_share {'1' if share is not None else '1 (the default)'}: the core-hours and genomes/day "
            f"checks both see every core, so in {', '.join(str(y) for y in both)} the plan holds the larger of the "
            "two demands on its cores, not their sum; set constraints.genomics_share to the genomes' share of the "
            "cores to split them")


def reference_core_label(scenario: dict[str, Any]) -> str:
    """The core the design's core-hours are counted on: "3.5 GHz reference core (the default)", or the
    scenario's ``reference_core`` ("2.3 GHz x architecture factor 1.2 reference core")."""
    from planner.designs.capacity import Design

    ref = scenario.get("reference_core") or {}
    fields = Design.__dataclass_fields__
    clock = float(ref.get("clock_ghz") or fields["reference_clock_ghz"].default)  # type: ignore[arg-type]
    arch = float(ref.get("arch_factor") or fields["reference_arch_factor"].default)  # type: ignore[arg-type]
    core = f"{clock:g} GHz" + (f" x architecture factor {arch:g}" if arch != 1.0 else "") + " reference core"
    if ref.get("note"):
        return f"{core} ({ref['note']})"
    return core + ("" if ref.get("clock_ghz") else " (the default; reference_core in the scenario)")


def typed_prices(price_index: dict[str, Any] | None) -> str:
    """A scenario's own ``prices:`` (not a forecast) in one line for the comparison: 'wide-64 x2.50' per item, a
    range when the multiplier moves over the years ('nas-disk x1.00 to x0.50, 2020-2023'). The comparison said
    'catalog prices, constant' for a design pricing a node at 2.5x its catalog price."""
    parts = []
    for group in ("nodes", "storage"):
        for name, table in sorted((price_index or {}).get(group, {}).items()):
            years = sorted(table, key=int)
            if not years:
                continue
            values = [float(table[y]) for y in years]
            parts.append(f"{name} x{values[0]:.2f}" if max(values) - min(values) < 5e-3
                         else f"{name} x{values[0]:.2f} to x{values[-1]:.2f}, {years[0]}-{years[-1]}")
    return "; ".join(parts)


def _positive(value: Any) -> bool:
    try:
        return float(value or 0) > 0
    except (TypeError, ValueError):
        return False
