# Two entry points on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test install install-test sandbox bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# "compat" editable installs put the checkout on sys.path with a plain .pth line; the default
# installs an import finder that costs every Python bot ~20 ms at start-up. (Setuptools says
# the mode is transitional; pyproject.toml keeps a setuptools that has it.)
EDITABLE := --config-settings editable_mode=compat

install: $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e . $(EDITABLE)

install-test: $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]' $(EDITABLE)

# Bots run in a bubblewrap sandbox. As root on Debian or Ubuntu it is installed when missing;
# elsewhere this says how to get it (arena refuses untrusted bots without it). The same for
# libseccomp, which builds the sandbox's system call filter.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap, the bots' sandbox (apt-get install bubblewrap)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq bubblewrap >/dev/null 2>&1 || \
	      { apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; } || \
	      echo "could not install bubblewrap; install it by hand (apt-get install bubblewrap)" >&2; \
	  else \
	    echo "note: bubblewrap is not installed; arena sandboxes bots with it (apt-get install bubblewrap)" >&2; \
	  fi; }
	@ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing libseccomp, for the sandbox's system call filter (apt-get install libseccomp2)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libseccomp2 >/dev/null 2>&1 || \
	      echo "could not install libseccomp; install it by hand (apt-get install libseccomp2)" >&2; \
	  else \
	    echo "note: libseccomp is not installed; arena's sandbox needs it (apt-get install libseccomp2)" >&2; \
	  fi; }

# Without bubblewrap (and no way to install it) the demo's own bundled bots, which are
# trusted, play with `--sandbox none`, and it says so.
demo: install sandbox
	@if command -v bwrap >/dev/null 2>&1; then SANDBOX=bubblewrap; else SANDBOX=none; \
	  echo "note: no bubblewrap: the demo runs its bundled bots with --sandbox none (no isolation)" >&2; fi; \
	  $(BIN)/arena --sandbox $$SANDBOX tournament run tournaments/demo.toml && \
	  $(BIN)/arena leaderboard --all-games

test: install-test sandbox
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
