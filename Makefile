# cardproof: every set-up step lives here, so a fresh machine needs only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHECKSUM := $(shell cksum pyproject.toml | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.run-$(CHECKSUM)
DEV_STAMP := $(VENV)/.dev-$(CHECKSUM)
HOST ?= 127.0.0.1
PORT ?= 8000

NPM_STAMP := service/web/node_modules/.ci-$(shell cksum service/web/package-lock.json | cut -d' ' -f1)
# The client generators outsiders use (tests/outsiders): hey-api's and openapi-typescript
# pinned by its package-lock.json, openapi-python-client by its requirements.txt in a venv
# of its own (its pins are not the project's); tests/test_generated_clients.py runs them.
OUTSIDERS_NPM_STAMP := tests/outsiders/node_modules/.ci-$(shell cksum tests/outsiders/package-lock.json | cut -d' ' -f1)
OUTSIDERS_VENV := tests/outsiders/.venv
OUTSIDERS_PIP_STAMP := $(OUTSIDERS_VENV)/.pip-$(shell cksum tests/outsiders/requirements.txt | cut -d' ' -f1)
# The service's C kernels (service/par: the exact par, the deal's shuffle): rebuilt when
# their sources change. They need a C compiler, Python's headers and OpenSSL's (the
# shuffle's; without them it is skipped); the SDK (`pip install cardproof`) never builds them.
PAR_SOURCES := service/par/pyproject.toml service/par/setup.py \
  $(wildcard service/par/cardproof_par/*.c service/par/cardproof_par/*.py service/par/cardproof_par/*.pyi)
PAR_STAMP := $(VENV)/.par-$(shell cat $(PAR_SOURCES) | cksum | cut -d' ' -f1)

.PHONY: run test lint typecheck pytest browser go java openapi tables web web-test bench clean python-version fuzz-par

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

$(PAR_STAMP): $(PAR_SOURCES) | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet ./service/par
	rm -f $(VENV)/.par-*
	touch $@

## run: serve the API on http://$(HOST):$(PORT); the memory store, or Redis if REDIS_URL is set
run: $(RUN_STAMP) $(PAR_STAMP)
	$(BIN)/cardproof serve --host $(HOST) --port $(PORT)

## test: lint, type-check, build and test the web client, then the whole test suite
## (doctests, property, API, schemathesis, generated clients, the pages in headless Chromium)
test: $(DEV_STAMP) $(PAR_STAMP) browser go java lint typecheck web-test pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check sdk service tests bench
	$(BIN)/ruff format --check sdk service tests bench

typecheck: $(DEV_STAMP) $(PAR_STAMP)
	$(BIN)/mypy

# The suite on TEST_WORKERS processes (pytest-xdist), then the tests marked `serial`
# (latencies under a flood, deadlines, whole-machine limits) alone, so no other test's
# load is counted in their figures; only the files that mark some are collected again.
TEST_WORKERS ?= 2
SERIAL_FILES = $(shell grep -rlE "mark\.serial\b" tests --include='test_*.py')
pytest: $(DEV_STAMP) $(PAR_STAMP) browser go java $(NPM_STAMP) $(OUTSIDERS_NPM_STAMP) $(OUTSIDERS_PIP_STAMP)
	$(BIN)/pytest -n $(TEST_WORKERS) -m "not serial"
	$(BIN)/pytest -m serial $(SERIAL_FILES)

# The web client's tools, pinned by service/web/package-lock.json (Node.js 20+ and npm).
$(NPM_STAMP): service/web/package.json service/web/package-lock.json
	cd service/web && npm ci --no-audit --no-fund
	touch $@

$(OUTSIDERS_NPM_STAMP): tests/outsiders/package.json tests/outsiders/package-lock.json
	cd tests/outsiders && npm ci --no-audit --no-fund
	touch $@

$(OUTSIDERS_PIP_STAMP): tests/outsiders/requirements.txt | python-version
	rm -rf $(OUTSIDERS_VENV)
	$(PYTHON) -m venv $(OUTSIDERS_VENV)
	$(OUTSIDERS_VENV)/bin/python -m pip install --quiet -r tests/outsiders/requirements.txt
	touch $@

## web: rebuild the browser client and the API reference's assets into the package
## (service/cardproof_service/front/static); `make run` serves what is committed there, no Node
web: $(NPM_STAMP)
	cd service/web && npx tsc --noEmit -p . && node build.mjs

## web-test: type-check the web client against the spec's types and run its JS tests
## (the deck derivation on tests/vectors, receipts verified and tampered with)
web-test: $(NPM_STAMP)
	cd service/web && npx tsc --noEmit -p . && npm test

## browser: Debian's Chromium for the Playwright page test (apt-get; sudo unless root).
## Playwright drives /usr/bin/chromium: `playwright install` (a browser download) is never run.
browser:
	@command -v chromium >/dev/null || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium fonts-dejavu-core; }

## go: Debian's Go and golang.org/x/mod, for the outsiders' log checks
## (tests/outsiders/tlog: sumdb/note and sumdb/tlog, built in GOPATH mode, nothing fetched)
go:
	@{ command -v go >/dev/null && [ -d /usr/share/gocode/src/golang.org/x/mod/sumdb/tlog ]; } || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    golang-go golang-golang-x-mod-dev; }

## java: Debian's JDK, for the client matrix's java.net.http client
## (tests/test_client_matrix.py compiles tests/clients/Play.java with javac, nothing fetched)
java:
	@command -v javac >/dev/null || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    default-jdk-headless; }

## openapi: rewrite openapi/openapi.json from the app (only if the command succeeds), then
## the web client's types generated from it (service/web/src/api.d.ts) and its build
## tables: rebuild sdk/cardproof/hand_trie.bin, the packed hand classifier the SDK loads at
## import (tests/test_hands.py checks it is current)
tables: $(DEV_STAMP)
	rm -f sdk/cardproof/hand_trie.bin
	$(BIN)/python -c 'from cardproof.hands import write_trie_file; write_trie_file()'

openapi: $(RUN_STAMP) $(PAR_STAMP) $(NPM_STAMP)
	$(BIN)/cardproof openapi > openapi/.openapi.json.tmp
	mv openapi/.openapi.json.tmp openapi/openapi.json
	cd service/web && npm run --silent types && npx tsc --noEmit -p . && node build.mjs

## bench: run every benchmark (prints figures and ratios; not a test)
bench: $(DEV_STAMP) $(PAR_STAMP) go
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/hands.py --exhaustive
	$(BIN)/python bench/serpent.py
	$(BIN)/python bench/score.py
	$(BIN)/python bench/variants.py
	$(BIN)/python bench/service.py
	$(BIN)/python bench/routes.py
	$(BIN)/python bench/reliability.py
	$(BIN)/python bench/par.py
	$(BIN)/python bench/log.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache service/web/node_modules service/web/build-tests \
	  tests/outsiders/node_modules $(OUTSIDERS_VENV)

## fuzz-par: the exact par's C kernel built apart with AddressSanitizer and UBSan (gcc's
## libasan and libubsan) and fuzzed by tests/fuzz_par.py (FUZZ_EXAMPLES draws per entry
## point, 300 unless set); any sanitizer report stops it. Not part of `make test`.
FUZZ_PAR := $(VENV)/fuzz-par
fuzz-par: $(DEV_STAMP)
	rm -rf $(FUZZ_PAR)
	CC=gcc CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g" \
	  LDFLAGS="-fsanitize=address,undefined" \
	  $(BIN)/python -m pip install --quiet --no-cache-dir --target $(FUZZ_PAR) ./service/par
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PYTHONPATH=$(FUZZ_PAR) \
	  $(BIN)/python tests/fuzz_par.py
