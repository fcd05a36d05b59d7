# One entry per task; CI (.ci/run) calls the same entries.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: install assets actionlint browser node lint format typecheck unit integration test demo bench clean

install: $(STAMP)
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

assets:  ## build etcd, kube-apiserver, ... from Go modules into ~/.cache (skips what is there)
	$(PY) -m tests.controlplane.assets build

# Debian's chromium and its driver, for the page's browser tests (no browser download at test time).
browser:  ## installs chromium and chromium-driver with apt-get when either is missing
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -q && \
	    $(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -q chromium chromium-driver; }

# Debian's containerd, runc and CNI plugins, for the real-node tests (docs/real-node.md).
node:  ## installs containerd, runc and containernetworking-plugins with apt-get when one is missing
	@command -v containerd >/dev/null && command -v runc >/dev/null && test -x /usr/lib/cni/bridge || \
	  { $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -q && \
	    $(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -q --no-install-recommends \
	      containerd runc containernetworking-plugins; }

actionlint:  ## the GitHub workflow checker, built from its Go module like the assets (once)
	$(PY) -m tests.controlplane.assets build actionlint >/dev/null

lint: install actionlint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$$($(PY) -m tests.controlplane.assets path actionlint) -no-color -shellcheck=$(BIN)/shellcheck

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest -m "not integration" -q

integration: install assets browser node
	$(BIN)/pytest -m integration -q

# The README's test command: all set-up, then lint, types and every test.
test: install assets browser node lint typecheck
	$(BIN)/pytest -q

demo: install assets node
	$(BIN)/python -m scripts.demo

bench: install assets  ## each prints a table and writes bench/results/*.json
	$(BIN)/python -m bench.queue_bench
	$(BIN)/python -m bench.rules_bench
	$(BIN)/python -m bench.source_bench
	$(BIN)/python -m bench.delivery_bench
	$(BIN)/python -m bench.notification_bench
	$(BIN)/python -m bench.e2e
	$(BIN)/python -m bench.scale

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
