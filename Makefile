# cardproof: every set-up step lives here, so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHECKSUM := $(shell cksum pyproject.toml | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.run-$(CHECKSUM)
DEV_STAMP := $(VENV)/.dev-$(CHECKSUM)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest browser openapi bench clean python-version

python-version:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "cardproof needs Python 3.11 or newer; try: make $(MAKECMDGOALS) PYTHON=python3.11"; exit 1; }

$(VENV)/bin/python: | python-version
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# `make run` needs only the service; `make test` also the dev tools.
$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[service]'
	rm -f $(VENV)/.run-*
	touch $@

$(DEV_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[service,dev]'
	rm -f $(VENV)/.dev-* $(VENV)/.run-*
	touch $@ $(RUN_STAMP)

## run: serve the API on http://$(HOST):$(PORT); the memory store, or Redis if REDIS_URL is set
run: $(RUN_STAMP)
	$(BIN)/cardproof serve --host $(HOST) --port $(PORT)

## test: lint, type-check, then the whole test suite (doctests, property, API, schemathesis,
## the standings page in headless Chromium)
test: $(DEV_STAMP) browser lint typecheck pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check sdk service tests bench
	$(BIN)/ruff format --check sdk service tests bench

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP) browser
	$(BIN)/pytest

## browser: Debian's Chromium for the Playwright page test (apt-get; sudo unless root).
## Playwright drives /usr/bin/chromium: `playwright install` (a browser download) is never run.
browser:
	@command -v chromium >/dev/null || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium fonts-dejavu-core; }

## openapi: rewrite openapi/openapi.json from the app (only if the command succeeds)
openapi: $(RUN_STAMP)
	$(BIN)/cardproof openapi > openapi/.openapi.json.tmp
	mv openapi/.openapi.json.tmp openapi/openapi.json

## bench: run every benchmark (prints figures and ratios; not a test)
bench: $(DEV_STAMP)
	$(BIN)/python bench/hands.py --exhaustive
	$(BIN)/python bench/serpent.py
	$(BIN)/python bench/score.py
	$(BIN)/python bench/variants.py
	$(BIN)/python bench/service.py
	$(BIN)/python bench/reliability.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
