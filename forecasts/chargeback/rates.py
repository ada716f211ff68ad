"""Chargeback pricing core: rate resolution, billing TRES, multipliers, adjustments, cents.

Pure Python (no Django): a planner can price a month from a notebook with the same code
the statements use.  Money is ``Decimal`` throughout; floats appear only as the usage
quantities coming from the database.

The model follows Slurm's billing TRES with ``PriorityFlags=MAX_TRES``: a job is charged
on the largest of its CPU, memory and GPU equivalents in dollars, then multiplied by its
QOS factor (Slurm's ``UsageFactor``; Minerva: high priority 1.5x, scavenger free)::

    billing_usd(job) = max(core_hours x core_hour_usd,
                           mem_gb_hours x mem_gb_hour_usd,   # when the plan prices memory
                           gpu_hours x gpu_hour_usd)         # when the plan prices GPUs
    charge_usd(job)  = billing_usd(job) x qos_multiplier

Units: core-hours are allocated cores x wall hours (what the job held, not the CPU time it
used); memory GB-hours are the job's requested memory in scheduler GB (MB / 1024, as
Slurm counts ``--mem=4G``; ``forecasts.units.MB_PER_GB``) x wall hours; storage is
decimal TB (10^12 bytes) held over the month, priced per TB-month.

Rounding and reconciliation (the rule every statement obeys):

1. Every line's exact amount is kept as a Decimal with no rounding.
2. The charges subtotal is the exact sum of the lines rounded half-up to cents.
3. Lines are rounded down to cents, and the cents left over go one each to the lines
   with the largest remainders (ties: larger exact amount, then first line), so the
   rounded lines always add up to the subtotal (largest-remainder method).
4. Subsidy = subtotal x percent / 100, rounded half-up to cents, as a negative line;
   a cap then removes whatever the remainder exceeds the cap by, as a negative line.
5. The statement total is the sum of all its lines, to the cent.  Nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from fnmatch import fnmatchcase

CENT = Decimal("0.01")
ZERO = Decimal("0")
WILDCARD = "*"


@dataclass(frozen=True)
class ComputeRate:
    """Prices for a cluster and queue/partition; patterns may use * and ? (fnmatch)."""

    cluster: str
    queue: str
    core_hour_usd: Decimal
    gpu_hour_usd: Decimal | None = None
    mem_gb_hour_usd: Decimal | None = None


@dataclass(frozen=True)
class QosRule:
    qos: str  # pattern
    multiplier: Decimal


@dataclass(frozen=True)
class StorageRate:
    filesystem: str  # pattern
    tier: str  # pattern
    tb_month_usd: Decimal


@dataclass(frozen=True)
class Adjustment:
    """A department's subsidy (percent of its charges) and/or monthly cap in dollars."""

    subsidy_percent: Decimal = ZERO
    cap_usd: Decimal | None = None


@dataclass(frozen=True)
class ResolvedPrice:
    core_hour_usd: Decimal
    gpu_hour_usd: Decimal | None
    mem_gb_hour_usd: Decimal | None
    multiplier: Decimal
    rate_label: str  # which rule matched, for the statement


def _specificity(pattern: str) -> tuple[int, int]:
    """Exact names beat patterns; among patterns, more literal characters win."""
    is_pattern = any(c in pattern for c in "*?[")
    literal = len(pattern.replace("*", "").replace("?", ""))
    return (0 if is_pattern else 1, literal)


def _matches(pattern: str, value: str) -> bool:
    return pattern == value or fnmatchcase(value, pattern or WILDCARD)


def resolve_compute_rate(rates: Iterable[ComputeRate], cluster: str, queue: str) -> ComputeRate | None:
    """The most specific rate matching (cluster, queue); cluster specificity ranks first."""
    candidates = [r for r in rates if _matches(r.cluster, cluster) and _matches(r.queue, queue)]
    if not candidates:
        return None
    return max(candidates, key=lambda r: (_specificity(r.cluster), _specificity(r.queue)))


def qos_multiplier(rules: Iterable[QosRule], qos: str) -> Decimal:
    """The most specific QOS rule's multiplier; 1 when none matches."""
    candidates = [r for r in rules if _matches(r.qos, qos)]
    if not candidates:
        return Decimal(1)
    return max(candidates, key=lambda r: _specificity(r.qos)).multiplier


def resolve_storage_rate(rates: Iterable[StorageRate], filesystem: str, tier: str) -> StorageRate | None:
    candidates = [r for r in rates if _matches(r.filesystem, filesystem) and _matches(r.tier, tier)]
    if not candidates:
        return None
    return max(candidates, key=lambda r: (_specificity(r.filesystem), _specificity(r.tier)))


def resolve_price(rates: Sequence[ComputeRate], qos_rules: Sequence[QosRule], cluster: str, queue: str,
                  qos: str) -> ResolvedPrice | None:
    """Everything needed to bill a job of (cluster, queue, qos); None when no rate covers it."""
    rate = resolve_compute_rate(rates, cluster, queue)
    if rate is None:
        return None
    return ResolvedPrice(rate.core_hour_usd, rate.gpu_hour_usd, rate.mem_gb_hour_usd,
                         qos_multiplier(qos_rules, qos), rule_label(rate.cluster, rate.queue))


def rule_label(cluster: str, queue: str) -> str:
    """'any cluster, queue gpu': which rate rule matched, in words for the statement."""
    where = "any cluster" if cluster in ("", WILDCARD) else f"cluster {cluster}"
    what = "any queue" if queue in ("", WILDCARD) else f"queue {queue}"
    return f"{where}, {what}"


def billing_usd(core_hours: float, mem_gb_hours: float, gpu_hours: float, price: ResolvedPrice) -> Decimal:
    """One job's charge before its QOS multiplier: the largest of its three equivalents."""
    equivalents = [Decimal(repr(core_hours)) * price.core_hour_usd]
    if price.mem_gb_hour_usd is not None:
        equivalents.append(Decimal(repr(mem_gb_hours)) * price.mem_gb_hour_usd)
    if price.gpu_hour_usd is not None:
        equivalents.append(Decimal(repr(gpu_hours)) * price.gpu_hour_usd)
    return max(equivalents)


def charge_usd(core_hours: float, mem_gb_hours: float, gpu_hours: float, price: ResolvedPrice) -> Decimal:
    """One job's charge: billing TRES in dollars times its QOS multiplier (exact)."""
    return billing_usd(core_hours, mem_gb_hours, gpu_hours, price) * price.multiplier


def round_half_up(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def round_lines(exact: Sequence[Decimal]) -> list[Decimal]:
    """Round each line to cents so the lines sum exactly to the rounded exact total.

    Largest-remainder method (rule 3 of the module docstring).  Works for negative lines
    too: the target is the half-up rounded sum, the floors are taken toward minus infinity.
    """
    if not exact:
        return []
    target = round_half_up(sum(exact, ZERO))
    floors = [_floor_cents(a) for a in exact]
    leftover = int(((target - sum(floors, ZERO)) / CENT).to_integral_value())
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floors[i]), -exact[i], i))
    rounded = list(floors)
    for i in order[:leftover]:
        rounded[i] += CENT
    return rounded


def _floor_cents(amount: Decimal) -> Decimal:
    floored = amount.quantize(CENT, rounding=ROUND_DOWN)
    return floored - CENT if floored > amount else floored


@dataclass(frozen=True)
class Adjusted:
    gross_usd: Decimal
    subsidy_usd: Decimal  # <= 0
    cap_usd: Decimal  # <= 0, what the cap removed
    total_usd: Decimal


def apply_adjustment(gross_usd: Decimal, adjustment: Adjustment | None) -> Adjusted:
    """Subsidy first (percent of the gross), then the monthly cap on what remains (rule 4)."""
    gross = round_half_up(gross_usd)
    if adjustment is None:
        return Adjusted(gross, ZERO, ZERO, gross)
    percent = min(max(adjustment.subsidy_percent, ZERO), Decimal(100))
    subsidy = -round_half_up(gross * percent / Decimal(100))
    after = gross + subsidy
    cap = ZERO
    if adjustment.cap_usd is not None and after > adjustment.cap_usd:
        cap = -(after - round_half_up(adjustment.cap_usd))
    return Adjusted(gross, subsidy, cap, after + cap)


def storage_charge_usd(tb: float, rate: StorageRate) -> Decimal:
    """TB held over the month (decimal TB) x price per TB-month (exact)."""
    return Decimal(repr(tb)) * rate.tb_month_usd
