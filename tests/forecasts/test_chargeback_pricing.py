"""The pure pricing core: rates, multipliers, billing TRES, subsidies, caps and cents (no database)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from forecasts.chargeback import rates as core

D = Decimal
RATES = [
    core.ComputeRate("*", "*", D("0.02")),
    core.ComputeRate("*", "gpu", D("0.02"), gpu_hour_usd=D("0.50")),
    core.ComputeRate("minerva", "*", D("0.03")),
    core.ComputeRate("minerva", "bigmem*", D("0.02"), mem_gb_hour_usd=D("0.01")),
]
QOS = [core.QosRule("high", D("1.5")), core.QosRule("scavenger", D("0")), core.QosRule("*", D("1"))]


def price(cluster: str = "other", queue: str = "general", qos: str = "normal") -> core.ResolvedPrice:
    resolved = core.resolve_price(RATES, QOS, cluster, queue, qos)
    assert resolved is not None
    return resolved


def test_the_most_specific_rate_wins_and_wildcards_cover_the_rest() -> None:
    assert price().core_hour_usd == D("0.02")
    assert price("minerva").core_hour_usd == D("0.03")
    assert price("minerva", "bigmem-2tb").mem_gb_hour_usd == D("0.01")
    assert price("other", "gpu").gpu_hour_usd == D("0.50")
    assert core.resolve_compute_rate([core.ComputeRate("a", "q", D(1))], "b", "q") is None


def test_high_priority_qos_is_charged_one_and_a_half_times() -> None:
    assert core.charge_usd(100.0, 0.0, 0.0, price(qos="high")) == D("3.0000")


def test_scavenger_jobs_are_free() -> None:
    assert core.charge_usd(100.0, 0.0, 0.0, price(qos="scavenger")) == 0


def test_qos_without_a_rule_pays_the_base_rate() -> None:
    assert core.qos_multiplier([core.QosRule("high", D("1.5"))], "normal") == 1


def test_a_job_is_billed_on_the_largest_of_cpu_memory_and_gpu_equivalents() -> None:
    gpu = price("other", "gpu")
    # 8 cores x 3 h = 24 core-h ($0.48) vs 2 GPUs x 3 h = 6 GPU-h ($3.00)
    assert core.billing_usd(24.0, 0.0, 6.0, gpu) == D("3.00")
    # CPU dominates when the GPU share is small
    assert core.billing_usd(240.0, 0.0, 1.0, gpu) == D("4.80")
    bigmem = price("minerva", "bigmem")
    # 2 cores x 5 h = 10 core-h ($0.20) vs 512 GB x 5 h = 2560 GB-h ($25.60)
    assert core.billing_usd(10.0, 2560.0, 0.0, bigmem) == D("25.60")
    # memory and GPUs are ignored where the plan does not price them
    assert core.billing_usd(10.0, 2560.0, 9.0, price()) == D("0.20")


def test_a_subsidy_takes_its_percent_off_the_gross() -> None:
    adjusted = core.apply_adjustment(D("200.00"), core.Adjustment(subsidy_percent=D(25)))
    assert (adjusted.subsidy_usd, adjusted.cap_usd, adjusted.total_usd) == (D("-50.00"), 0, D("150.00"))


def test_a_cap_limits_the_month_after_the_subsidy() -> None:
    adjusted = core.apply_adjustment(D("1000.00"), core.Adjustment(subsidy_percent=D(10), cap_usd=D(500)))
    assert adjusted.subsidy_usd == D("-100.00")
    assert adjusted.cap_usd == D("-400.00")
    assert adjusted.total_usd == D("500.00")
    under = core.apply_adjustment(D("120.00"), core.Adjustment(cap_usd=D(500)))
    assert under.cap_usd == 0 and under.total_usd == D("120.00")


@pytest.mark.parametrize("amounts", [
    [D("0.333"), D("0.333"), D("0.334")],
    [D("0.005")] * 7,
    [D("1.239"), D("-0.004"), D("2.5551"), D("0")],
    [D("0.0049")] * 1000,
])
def test_rounded_lines_always_add_up_to_the_rounded_total(amounts: list[Decimal]) -> None:
    rounded = core.round_lines(amounts)
    assert sum(rounded) == core.round_half_up(sum(amounts))
    assert all(r == r.quantize(core.CENT) for r in rounded)
    assert all(abs(r - a) < D("0.01") for r, a in zip(rounded, amounts, strict=True))


def test_leftover_cents_go_to_the_largest_remainders() -> None:
    assert core.round_lines([D("0.336"), D("0.332"), D("0.332")]) == [D("0.34"), D("0.33"), D("0.33")]


def test_storage_is_priced_per_tb_month() -> None:
    assert core.storage_charge_usd(12.5, core.StorageRate("*", "*", D("5"))) == D("62.5")
    assert core.resolve_storage_rate([core.StorageRate("gpfs", "flash", D(20)), core.StorageRate("*", "*", D(5))],
                                     "gpfs", "flash").tb_month_usd == D(20)
