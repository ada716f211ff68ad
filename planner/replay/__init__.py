"""Trace-driven scheduling replay (issue 18): queue waits a design's users would feel.

Pure core (no Django): ``engine.replay`` schedules jobs (numpy arrays) on a machine by FCFS or
EASY backfilling, in processor-pool mode exactly as ``REPLAY-POLICY.md`` says, or in node mode
(see ``nodes``); ``summary`` reduces the per-job starts to the figures planners read;
``future`` scales arrival rates for a design's future years. The compiled kernels are in
``kernel_pool`` and ``kernel_nodes`` (numba, cached on disk). See docs/replay.md.
"""
