"""The parts of file-system scan parsing and scan statistics (pure core: no Django).

``forecasts.storage.parsers`` (the readers) and ``forecasts.storage.stats`` (the accumulator)
are the front doors and explain the formats and the figures; the modules here hold the pieces:
records and line accounting, line sources, span hashing, the columnar fast path, one module per
input format, the size-bin geometry, the directory sample, histogram spreading and the summary.
Nothing here imports those two front modules, so there is no import cycle.
"""
