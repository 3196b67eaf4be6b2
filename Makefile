# Every target sets itself up: a fresh clone needs only Python 3.10+, a C++ compiler, CMake and make.
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed
# Parallel test workers: both cores of a CI machine.
JOBS    ?= 2
# The build cache is pruned to this size (least recently used first) before each run, so a
# machine that builds many revisions never fills its disk; entries of the last hour stay.
CACHE_MAX ?= 20G

.PHONY: all demo test test-full grammar clean lint

all: test

$(STAMP): setup.py pyproject.toml
	sh scripts/ensure-system-packages.sh
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/spgen cache prune --max-size $(CACHE_MAX) | tail -n 1
	$(VPY) -m spgen.demo

# --durations: the slowest tests are named at the end, where a slower CI run shows first.
test: $(STAMP)
	$(VENV)/bin/spgen cache prune --max-size $(CACHE_MAX) | tail -n 1
	$(VPY) -m pytest -q -n $(JOBS) --dist loadgroup --durations=15

# Dedicated long runs: 1M random vectors per operator, 20k fuzz inputs.
test-full: $(STAMP)
	$(VENV)/bin/spgen cache prune --max-size $(CACHE_MAX) | tail -n 1
	$(VPY) -m pytest -q -n $(JOBS) --dist loadgroup -m slow

grammar: $(STAMP)
	cd compiler/spgen/frontend/grammar && ../../../../$(VENV)/bin/antlr4 -v 4.13.2 -Dlanguage=Python3 -visitor -no-listener -o ../_generated SPD.g4

clean:
	rm -rf build .cache .pytest_cache

# Runtime C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer, the threaded ones under ThreadSanitizer.
.PHONY: sanitize
sanitize: $(STAMP)
	$(VPY) -m spgen.runtime sanitize

lint: $(STAMP)
	$(VPY) -m ruff check compiler tests benchmarks examples containers
