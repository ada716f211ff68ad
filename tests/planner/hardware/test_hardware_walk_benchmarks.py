"""QA walk of the Benchmarks page: the printed rule gives the figure shown, labels a director can read."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from planner.hardware.services import catalog_load_yaml
from tests.helpers import login

pytestmark = pytest.mark.django_db

RULE = re.compile(
    r"24 / (?P<hours>[\d.]+) h x (?P<samples>\d+) samples"
    r"(?: \(the [\w-]+ ceiling of \d+ concurrent samples; (?P<asked>\d+) asked\))?"
    r"(?: x \((?P<c>\d+)/(?P<n>\d+)\)\^(?P<alpha>[\d.]+) \(past the ceiling, fitted to saturated runs\))?"
    r"(?:: capped at the ceiling)? = (?P<result>[\d,.]+) genomes/day"
    r"(?: \(a (?P<run>[\d.]+) h run for (?P<run_samples>\d+) samples\))?"
)


def _cells(row: str) -> list[str]:
    return [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


@pytest.fixture
def page(client: Any, planner_user: Any) -> str:
    catalog_load_yaml()
    return login(client, planner_user).get("/hardware/benchmarks/").content.decode()


def _batch_rows(page: str) -> list[list[str]]:
    table = page.split('id="batches"')[1].split("</table>")[0]
    return [_cells(r) for r in table.split("<tbody>")[1].split("</tr>") if "<td" in r]


def test_every_batch_rule_s_printed_numbers_give_the_model_figure_shown(page: str) -> None:
    rows = _batch_rows(page)
    assert rows
    for cells in rows:
        storage, samples, model_shown, rule = cells[0], int(cells[3]), float(cells[6].replace(",", "")), cells[7]
        m = RULE.match(rule)
        assert m, rule
        gpd = 24 / float(m["hours"]) * int(m["samples"])
        if m["alpha"]:
            gpd *= (int(m["c"]) / int(m["n"])) ** float(m["alpha"])
            assert int(m["n"]) == samples and int(m["asked"]) == samples
        else:
            assert int(m["samples"]) == samples, rule
        assert round(gpd, 1) == model_shown, (storage, samples, rule)
        assert float(m["result"].replace(",", "")) == model_shown
        assert float(m["run"]) == pytest.approx(24 * samples / gpd, abs=0.006)


def test_the_saturated_h600_row_s_rule_gives_147_from_the_ceiling_not_all_192_samples(page: str) -> None:
    h600 = next(c for c in _batch_rows(page) if c[0].startswith("isilon-h600") and c[3] == "192")
    assert h600[4] == "31.35" and h600[6] == "147.0"
    assert h600[7].startswith("24 / 14.857 h x 156 samples (the isilon-h600 ceiling of 156 concurrent samples; "
                              "192 asked) x (156/192)^2.596")
    assert "= 147.0 genomes/day (a 31.35 h run for 192 samples)" in h600[7]


def test_the_saturated_run_s_note_does_not_repeat_saturated(page: str) -> None:
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "saturated saturated" not in text
    assert "run time > 30 h: H600 saturated" in text
