"""The product's six areas: navigation labels and what each empty state tells a person to do."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    slug: str
    label: str
    question: str  # the question this area answers, shown under its title
    empty_title: str
    empty_steps: tuple[str, ...]  # what to load and how: command and upload
    planners_only: bool = False


AREAS: tuple[Area, ...] = (
    Area(
        "usage",
        "Usage",
        "Who used what: jobs, core-hours and storage by department, queue and month.",
        "No accounting logs loaded yet",
        (
            "Load scheduler accounting logs (Slurm, LSF, PBS/TORQUE, SGE/UGE or SWF): "
            "python manage.py ingest_accounting --format slurm --cluster NAME PATH...",
            "Load a file-system scan: "
            "python manage.py ingest_storage_scan --filesystem NAME --format tsv PATH",
        ),
    ),
    Area(
        "forecasts",
        "Forecasts",
        "How much compute and storage will be needed in each of the next years, with ranges.",
        "No forecasts yet",
        (
            "Forecasts are fitted from loaded usage history; load accounting logs first.",
            "Import a sequencer rollout plan: python manage.py import_sequencer_plan PATH.yaml",
        ),
        planners_only=True,
    ),
    Area(
        "hardware",
        "Hardware",
        "Node types, storage systems and the per-genome benchmarks they are judged by.",
        "The hardware catalog is empty",
        (
            "Load the catalog from the source documents: python manage.py import_catalog fixtures/catalog.yaml "
            "(or python manage.py load_demo for the whole demo)",
            "Or import node types, storage systems and benchmarks from CSV: python manage.py import_catalog PATH.csv",
        ),
        planners_only=True,
    ),
    Area(
        "designs",
        "Designs",
        "Candidate multi-year purchase plans, evaluated and compared against demand.",
        "No designs yet",
        (
            "Store and evaluate a scenario file: python manage.py evaluate_design SCENARIO.yaml --save "
            "(examples: fixtures/scenarios/minerva_*.yaml; format: docs/scenario-format.md)",
            "Or write or upload one in the browser with \"New design\" below (the catalog must be loaded first).",
        ),
        planners_only=True,
    ),
    Area(
        "reports",
        "Reports",
        "Grant justification documents built from the product's own numbers.",
        "No reports yet",
        ("Reports are generated from a design: python manage.py grant_report --design ID --format pdf",),
        planners_only=True,
    ),
    Area(
        "chargeback",
        "Chargeback",
        "Monthly statements per department at the site's rates.",
        "No statements yet",
        ("Statements are computed from usage and a rate plan: python manage.py chargeback --month YYYY-MM",),
    ),
)

AREAS_BY_SLUG = {area.slug: area for area in AREAS}
