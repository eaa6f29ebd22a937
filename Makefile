# Two commands for a fresh clone: `make run` and `make test`. Both build .venv first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Written last, so an interrupted install is retried on the next make.
READY := $(VENV)/.ready

.PHONY: run test token lint bench clean

# Install output goes to stderr so `make -s token` prints the token and nothing else.
$(READY): requirements.txt layers/common/requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) >&2
	@$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt >&2
	@# functions/ and layers/common/ are import roots, as they are on Lambda (handler dir + layer).
	@printf '%s\n' "$(CURDIR)" "$(CURDIR)/functions" "$(CURDIR)/layers/common" \
		> "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/logistics.pth"
	@touch $@

run: $(READY)
	@$(PY) -m infra.local_stack

token: $(READY)
	@$(PY) -m infra.token

lint: $(READY)
	@$(PY) -m ruff check .

test: lint
	@$(PY) -m pytest

bench: $(READY)
	@$(PY) bench/run.py

clean:
	rm -rf $(VENV) .aws-sam .pytest_cache
