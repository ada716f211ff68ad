"""The performance model's names in words, for the Benchmarks page (pure core).

The benchmark file (fixtures/benchmarks/genomics.yaml) names parameters by their path in the model
(``pipelines.gatk-3.1.1-wgs.work_ghz_core_hours``), quantities by their key (``cpu_hours``) and the
two papers by their seed number. A director reads the page: each gets a label with its unit, and the
papers the names the catalog's tables use (fixtures/catalog.yaml: Kovatch 2015 = seed 000, DellEMC
2018 = seed 001). The path stays available to the page (a title attribute) for reproducibility.
"""

from __future__ import annotations

import math
import re

# fixtures/catalog.yaml, header: "Kovatch 2015 = seeds/000 ...", "DellEMC 2018 = seeds/001 ..."
SEED_NAMES = {"000": "Kovatch 2015", "001": "DellEMC 2018"}

PIPELINES = {"gatk-3.1.1-wgs": "GATK 3.1.1 WGS", "bwa-gatk-3.6-10x": "BWA + GATK 3.6 10x WGS"}
STAGES = {"alignment": "alignment", "sort_dedup": "sort and dedup", "recalibration": "recalibration",
          "calling": "variant calling"}
QUANTITIES = {
    "cpu_hours": "CPU hours per genome", "wall_core_hours": "wall core-hours per genome",
    "genomes_per_day": "genomes/day", "hours": "longest job (h)", "run_hours": "run time (h)",
}
_PIPELINE_FIELDS = {
    "work_ghz_core_hours": "work per genome (GHz core-hours)",
    "io_mops": "storage operations per genome (millions)",
    "working_set_gb": "working set per genome (GB)",
}
_STORAGE_FIELDS = {
    "slow_kiops": "disk tier (thousand operations/s)",
    "fast_kiops": "fast tier (thousand operations/s)",
    "fast_tb": "fast tier size (TB)",
}
_EXTRAS = {
    "minerva_bench_concurrency": "Minerva: genomes in flight during the benchmarks",
    "bwa_job_work": "Minerva: work of the longest alignment job (GHz core-hours)",
    "calling_job_work": "Minerva: work of the longest variant-calling job (GHz core-hours)",
}


def parameter_label(path: str) -> str:
    """``pipelines.gatk-3.1.1-wgs.stages.alignment.parallel_fraction`` -> 'GATK 3.1.1 WGS: alignment,
    parallel fraction'; a path of an unknown shape is spelled out as it is."""
    pipe = re.fullmatch(r"pipelines\.(.+?)\.(stages\.(\w+)\.parallel_fraction|\w+)", path)
    if pipe:  # pipeline names hold dots (gatk-3.1.1-wgs): the field is what follows them
        name = PIPELINES.get(pipe[1], pipe[1])
        if pipe[3]:
            return f"{name}: {STAGES.get(pipe[3], pipe[3].replace('_', ' '))}, parallel fraction"
        if pipe[2] in _PIPELINE_FIELDS:
            return f"{name}: {_PIPELINE_FIELDS[pipe[2]]}"
    parts = path.split(".")
    if parts[0] == "nodes" and len(parts) == 3 and parts[2] == "arch_factor":
        return f"{parts[1]}: work per GHz relative to an Ivy Bridge core"
    if parts[0] == "storages" and len(parts) == 3 and parts[2] in _STORAGE_FIELDS:
        return f"{parts[1]}: {_STORAGE_FIELDS[parts[2]]}"
    if parts[0] == "extras" and len(parts) == 2 and parts[1] in _EXTRAS:
        return _EXTRAS[parts[1]]
    return path.replace("_", " ")


def quantity_label(key: str) -> str:
    return QUANTITIES.get(key, key.replace("_", " "))


def source_words(text: str) -> str:
    """'seed 000 section 4.2' -> 'Kovatch 2015 section 4.2' (and 'seed 001' -> 'DellEMC 2018')."""
    return re.sub(r"\bseed (\d{3})\b", lambda m: SEED_NAMES.get(m[1], m[0]), text)


def significant(value: float, digits: int = 3) -> str:
    """A number to ``digits`` significant figures with thousands separators: 1,585; 0.574; 67.1; 0.999.

    One format for a column whose rows differ by orders of magnitude (a work of 1,585 GHz core-hours
    beside a parallel fraction of 0.975)."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{round(value, decimals):,.{decimals}f}"
