# The two commands a new machine needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# The test run uses the machine's real PostgreSQL and Redis.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: install install-test run test drills probe lint check-types test-postgres test-sqlite bench clean

$(BIN)/.installed: requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	touch $@

# checkov scans the rendered Kubernetes manifests in the tests. It pins its own versions of
# packages the app uses (celery, redis, packaging), so it lives in a venv of its own.
CHECKOV_VENV := .venv-checkov
$(CHECKOV_VENV)/.installed: requirements-checkov.lock
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet --upgrade pip
	$(CHECKOV_VENV)/bin/pip install --quiet -r requirements-checkov.lock
	touch $@

# What running needs (the app's venv); the tests add checkov's.
install: $(BIN)/.installed

install-test: install $(CHECKOV_VENV)/.installed

# The app on the embedded default: a SQLite file and Celery's filesystem broker
# under var/, a worker beside the web server, no DEBUG (scripts/run.sh).
# Open http://127.0.0.1:8000/, or another port: make run PORT=8080
run: install
	PORT=$(PORT) scripts/run.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

check-types: install
	DEBUG=1 $(BIN)/mypy

# Everything on PostgreSQL and Redis with real worker processes and a real
# browser, then the suite that touches the database again on the SQLite default.
test: install-test lint check-types
	scripts/services.sh
	scripts/chromium.sh
	$(MAKE) --no-print-directory test-postgres test-sqlite

test-postgres:
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) TEST_DB_NAME=test_preemptlab_$$$$ REDIS_URL=$(TEST_REDIS_URL) \
		$(BIN)/pytest -q -p no:cacheprovider

test-sqlite:
	DEBUG=1 DATABASE_URL= REDIS_URL= PREEMPTLAB_VAR_DIR=$$(mktemp -d) \
		$(BIN)/pytest -q -p no:cacheprovider -m "not browser and not worker and not slow" \
		--ignore=tests/engine --ignore=tests/conformance --ignore=tests/cli

# On demand, never part of the tests: engine, snapshot ingest, analyses and the clone page at 5,000 nodes / 150,000 pods.
bench: install
	scripts/services.sh
	DEBUG=1 $(BIN)/python -m bench.engine_bench --large
	DEBUG=1 $(BIN)/python -m bench.engine_bench --dense
	DEBUG=1 $(BIN)/python -m bench.advice_bench --large
	DEBUG=1 $(BIN)/python -m bench.simulate_bench --large
	DEBUG=1 $(BIN)/python -m bench.take_nodes_away_bench --large
	DEBUG=1 $(BIN)/python -m bench.plan_bench --large
	DEBUG=1 $(BIN)/python -m bench.workload_page_bench --large
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) $(BIN)/python bench/ingest_bench.py
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(BIN)/python bench/analysis_bench.py
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) $(BIN)/python bench/clone_bench.py
	DEBUG=1 DATABASE_URL=$(TEST_DATABASE_URL) $(BIN)/python bench/pods_page_bench.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) var

# On demand, never part of the tests (it kills and restarts things): kill -9 of pool
# processes and of the whole worker, Redis restarted empty with work queued, PostgreSQL
# down 20 s, on private PostgreSQL/Redis/gunicorn/worker in a temporary folder.
# Prints a table: work lost (must be 0), time to recover, 5xx answers.
drills: install
	DEBUG=0 $(BIN)/python scripts/drills.py

# On demand, never part of the tests: replays the alias bomb, the refused upload posted
# again with kept=REF x500, a 1,000-replica workload on 1,000 nodes under the default
# analysis budget (two minutes), the timed bomb, a 100 MB annotation and 30 parallel
# gzip bombs, and prints the answers, time, memory and disk growth.
probe: install
	$(BIN)/python scripts/probe.py
