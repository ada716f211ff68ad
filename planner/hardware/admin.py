"""Admin pages of the hardware catalog."""

from django.contrib import admin

from planner.hardware.models import Benchmark, NodeType, StorageSystem


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
