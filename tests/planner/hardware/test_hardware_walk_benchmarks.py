"""QA walk of the Benchmarks page: the printed rule gives the figure shown, labels a director can read."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from planner.hardware.services import catalog_load_yaml
from tests.helpers import login

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
def page(db: Any, client: Any, planner_user: Any) -> str:
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


def _visible(page: str) -> str:
    main = page.split("<h1>", 1)[1]
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", main)).split())


def _column(page: str, table_id: str, index: int) -> list[str]:
    table = page.split(f'id="{table_id}"')[1].split("</table>")[0]
    return [_cells(r)[index] for r in table.split("<tbody>")[1].split("</tr>") if "<td" in r]


def test_the_page_names_parameters_quantities_and_papers_in_words(page: str) -> None:
    text = _visible(page)
    for internal in ("pipelines.gatk-3.1.1-wgs", "extras.minerva_bench_concurrency", "extras.bwa_job_work",
                     "cpu_hours", "wall_core_hours", "genomes_per_day", "run_hours", "seed 000", "seed 001"):
        assert internal not in text, internal
    assert "GATK 3.1.1 WGS: work per genome (GHz core-hours)" in text
    assert "Minerva: genomes in flight during the benchmarks" in text
    assert "Minerva: work of the longest alignment job (GHz core-hours)" in text
    assert "CPU hours per genome" in text and "run time (h)" in text
    assert "Kovatch 2015 section 4.2: 0.5-1.2 million files per genome" in text
    assert "DellEMC 2018, p. 9" in text
    # the model's path stays on the page for reproducibility, as the label's title
    assert 'title="pipelines.gatk-3.1.1-wgs.work_ghz_core_hours">GATK 3.1.1 WGS: work per genome' in page


@pytest.mark.parametrize(("table_id", "index"), [
    ("residuals", 2), ("residuals", 3), ("leave-one-out", 2), ("leave-one-out", 3), ("leave-one-out", 5),
    ("batches", 5), ("benchmark-rows", 10), ("benchmark-rows", 9),
])
def test_each_number_column_has_one_format(page: str, table_id: str, index: int) -> None:
    cells = [c for c in _column(page, table_id, index) if c]
    assert cells
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\d", c) for c in cells), cells


def test_fitted_parameters_read_to_three_significant_figures_with_separators(page: str) -> None:
    values = _column(page, "fitted-parameters", 1)
    assert values[0] == "1,585" and "0.574" in values and "67.1" in values
    for v in values:  # 3 significant figures; whole numbers from 1,000 up (no false precision, no 1.59e+03)
        digits = re.sub(r"\D", "", v).lstrip("0")
        assert len(digits) == 3 or ("." not in v and float(v.replace(",", "")) >= 1000), v


@pytest.mark.parametrize(("path", "label"), [
    ("pipelines.bwa-gatk-3.6-10x.stages.calling.parallel_fraction",
     "BWA + GATK 3.6 10x WGS: variant calling, parallel fraction"),
    ("pipelines.gatk-3.1.1-wgs.io_mops", "GATK 3.1.1 WGS: storage operations per genome (millions)"),
    ("storages.isilon-h600.fast_tb", "isilon-h600: fast tier size (TB)"),
    ("nodes.amd-interlagos.arch_factor", "amd-interlagos: work per GHz relative to an Ivy Bridge core"),
    ("extras.calling_job_work", "Minerva: work of the longest variant-calling job (GHz core-hours)"),
])
def test_parameter_labels_read_through_dotted_pipeline_names(path: str, label: str) -> None:
    from planner.hardware.labels import parameter_label

    assert parameter_label(path) == label
