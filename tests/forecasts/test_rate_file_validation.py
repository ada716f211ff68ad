"""Rate files are checked before anything is written: unknown keys named, negative prices refused."""

from __future__ import annotations

import pytest

from forecasts.chargeback.services import ChargebackError

GOOD = """name: Test rates
effective_from: 2024-01-01
storage_between_scans: linear
compute:
  - {cluster: "*", queue: "*", core_hour_usd: 0.02}
storage:
  - {filesystem: "*", tier: "*", tb_month_usd: 5}
"""


@pytest.mark.django_db
def test_a_good_rate_file_loads_with_its_storage_setting() -> None:
    from forecasts.chargeback.demo import rate_plan_load_yaml

    assert rate_plan_load_yaml(GOOD).storage_between_scans == "linear"


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "message"), [
    (GOOD.replace("0.02", "-0.02"), "rates.yaml: compute row 1: core_hour_usd -0.02 is negative"),
    (GOOD.replace("tb_month_usd", "tb_monthly_usd"), "rates.yaml: storage row 1: unknown key.*'tb_monthly_usd'"),
    (GOOD + "colour: blue\n", "rates.yaml: unknown key.*'colour'"),
    (GOOD.replace("linear", "cubic"), "storage_between_scans: 'cubic' is not one of carry, linear"),
    (GOOD + "qos_multipliers: {high: -1}\n", "qos_multipliers: high -1 is negative"),
    ("name: x\ncompute: [\n", r"rates.yaml, line 3, column 1: not valid YAML"),
    ("name: x\n", "rates.yaml: missing key 'effective_from'"),
])
def test_a_bad_rate_file_is_refused_with_the_reason_and_nothing_is_written(text: str, message: str) -> None:
    from forecasts.chargeback.demo import rate_plan_load_yaml
    from forecasts.chargeback.models import RatePlan

    with pytest.raises(ChargebackError, match=message):
        rate_plan_load_yaml(text)
    assert not RatePlan.objects.exists()
