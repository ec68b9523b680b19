# Two entry points on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

demo: install
	$(BIN)/arena tournament run tournaments/demo.toml
	$(BIN)/arena leaderboard --all-games

test: install-test
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
