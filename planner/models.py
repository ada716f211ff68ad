"""The supply side's models, re-exported so Django finds them (tables and labels unchanged).

Each sub-domain owns its models: planner.jobs (BackgroundJob), planner.hardware (catalog),
planner.designs (designs, evaluations, optimiser runs), planner.reports (grant reports),
planner.access (group mappings, sign-on records, API tokens).
Code imports them from the owning module; this module exists for Django's model discovery.
"""

from planner.access.models import ApiToken, GroupMapping, SignOn
from planner.designs.models import Design, DesignEvaluation, OptimizerRun
from planner.hardware.models import Benchmark, NodeType, StorageSystem
from planner.jobs.models import BackgroundJob
from planner.reports.models import GrantReport

__all__ = [
    "ApiToken",
    "GroupMapping",
    "SignOn",
    "BackgroundJob",
    "Benchmark",
    "Design",
    "DesignEvaluation",
    "GrantReport",
    "NodeType",
    "OptimizerRun",
    "StorageSystem",
]
