# One task runner. `make run` and `make test` work on a fresh machine with only Python 3.11+.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-lock
ADDR   ?= 127.0.0.1:8000

.PHONY: run test lint bench clean-data help

help:
	@echo "make run    set up and serve the product with demo data on http://127.0.0.1:8000 (ADDR=host:port to change)"
	@echo "make test   set up and run the whole test suite"
	@echo "make lint   ruff and mypy on the functional core"
	@echo "make bench  the benchmark commands behind docs/performance.md"

$(STAMP): requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.lock
	@touch $(STAMP)

# The demo serves as production would (the product's own 404/500 pages, no settings or URL conf shown);
# `make run DEBUG=1` for Django's debug pages while developing.
DEBUG ?= 0
run: $(STAMP)
	DEBUG=$(DEBUG) $(BIN)/python manage.py run_local --addr $(ADDR)

# Two pytest-xdist workers, whole files per worker (each has its own test database, Celery queue,
# worker and browser); PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# The figures in docs/performance.md. Ingestion and workload benchmarks load millions of jobs,
# so they run on a scratch embedded database under .data/bench, never on the demo's.
BENCH_ENV := PLANNER_DATA_DIR=$(CURDIR)/.data/bench
bench: $(STAMP)
	$(BIN)/python manage.py bench_design
	$(BIN)/python manage.py bench_forecast
	$(BENCH_ENV) $(BIN)/python manage.py migrate -v0
	$(BENCH_ENV) $(BIN)/python manage.py bench_storage_scan --lines 10000000
	$(BENCH_ENV) $(BIN)/python manage.py bench_ingest --jobs 10000000
	$(BENCH_ENV) $(BIN)/python manage.py bench_workload --jobs 10000000

clean-data:
	-$(BIN)/python -m planner.embedded stop
	rm -rf .data
