# cardproof: every set-up step lives here, so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest openapi bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[service,dev]'
	rm -f $(VENV)/.installed-*
	touch $@

## run: serve the API on http://$(HOST):$(PORT) with the embedded memory store
run: $(STAMP)
	$(BIN)/cardproof serve --host $(HOST) --port $(PORT)

## test: lint, type-check, then the whole test suite (doctests, property, API, schemathesis)
test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check sdk service tests bench
	$(BIN)/ruff format --check sdk service tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

## openapi: rewrite openapi/openapi.json from the app
openapi: $(STAMP)
	$(BIN)/cardproof openapi > openapi/openapi.json

## bench: run every benchmark (prints figures and ratios; not a test)
bench: $(STAMP)
	$(BIN)/python bench/hands.py --exhaustive
	$(BIN)/python bench/serpent.py
	$(BIN)/python bench/score.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
