from django.contrib import admin

from planner.models import Benchmark, Design, DesignEvaluation, NodeType, OptimizerRun, StorageSystem


@admin.register(NodeType)
class NodeTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "cpu_model", "cores_per_node", "base_clock_ghz", "arch_factor", "price_usd",
                    "first_year", "last_year"]
    search_fields = ["name", "cpu_model"]


@admin.register(StorageSystem)
class StorageSystemAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "usable_tb", "fullness_limit", "throughput_gbps", "cpu_efficiency",
                    "ceiling_concurrent_samples", "price_usd"]
    list_filter = ["kind"]
    search_fields = ["name"]


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ["pipeline", "node_type", "storage_system", "samples", "cpu_hours_per_sample",
                    "wall_core_hours_per_sample", "genomes_per_day", "saturated", "source"]
    list_filter = ["pipeline", "node_type", "storage_system"]


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "parent", "created_by", "created_at"]
    search_fields = ["name"]
    readonly_fields = ["scenario"]


@admin.register(DesignEvaluation)
class DesignEvaluationAdmin(admin.ModelAdmin):
    list_display = ["design", "feasible", "npv_usd", "inputs_sha256", "created_at"]
    readonly_fields = ["result", "catalog_snapshot", "sensitivity"]


@admin.register(OptimizerRun)
class OptimizerRunAdmin(admin.ModelAdmin):
    list_display = ["design", "status", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["result"]
