# Two commands for a fresh clone: `make run` and `make test`. Both build .venv first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Written last, so an interrupted install is retried on the next make.
READY := $(VENV)/.ready

SAM_VENV := .venv-sam
SAM_READY := $(SAM_VENV)/.ready
# sam-cli's telemetry would try to reach AWS; nothing here needs it.
export SAM_CLI_TELEMETRY := 0

.PHONY: run emulators reset test test-unit token lint validate build chromium bench bench-hardening bench-lists bench-idempotency bench-costs bench-cold-start clean

# Install output goes to stderr so `make -s token` prints the token and nothing else. The
# install is quiet, so say first what is coming.
$(READY): requirements.txt requirements-dev.txt layers/common/requirements.txt \
		layers/crypto/requirements.txt
	@if test -x $(PY); then echo "Updating .venv: the requirements changed." >&2; \
	else echo "Creating .venv and installing dependencies, about a minute, once." >&2; \
		$(PYTHON) -m venv $(VENV) >&2; fi
	@$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt >&2
	@# functions/ and layers/common/ are import roots, as they are on Lambda (handler dir + layer).
	@printf '%s\n' "$(CURDIR)" "$(CURDIR)/functions" "$(CURDIR)/layers/common" \
		> "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/logistics.pth"
	@touch $@

$(SAM_READY): requirements-sam.txt
	@if ! test -x $(SAM_VENV)/bin/python; then echo "Creating .venv-sam (the SAM CLI, for \
	the release checks) and installing it, about a minute, once." >&2; \
		$(PYTHON) -m venv $(SAM_VENV) >&2; fi
	@$(SAM_VENV)/bin/pip install --quiet --no-compile --disable-pip-version-check \
		-r requirements-sam.txt >&2
	@touch $@

# Everything: the gateway, the notification service and the emulators; data kept in
# LOCAL_DATA_DIR (default .local-data), the apps restarted when their code changes.
run: $(READY)
	@$(PY) -m infra.local.stack

# The same without the gateway, for `.venv/bin/chalice local --stage local`.
emulators: $(READY)
	@$(PY) -m infra.local.stack --emulators

# Empty LOCAL_DATA_DIR: the next start begins with empty tables.
reset: $(READY)
	@$(PY) -m infra.local.persistence reset

# STAGE=dev|prod: for that deployed stack, from its secret, with your AWS credentials.
token: $(READY)
	@$(PY) -m infra.tokens $(if $(STAGE),--stage $(STAGE)) $(if $(SUB),--subject $(SUB))

lint: $(READY)
	@$(PY) -m ruff check .

# Every test: unit, integration (emulated AWS), e2e (the stack over HTTP, the console in
# Chromium) and release (tests/release runs sam build and sam validate from .venv-sam).
test: lint $(SAM_READY) chromium
	@SAM_VENV=$(CURDIR)/$(SAM_VENV) $(PY) -m pytest

# The console's tests drive Debian's Chromium (docs/console.md): installed when missing
# where this can (root, apt-get); elsewhere the tests say how to install it.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if ! test -x $(CHROMIUM) && test "$$(id -u)" = 0 && command -v apt-get >/dev/null; then \
		echo "Installing Chromium (Debian's, for the console's browser tests), once." >&2; \
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium >&2; fi

# The rules and use cases alone, no I/O: seconds, for the edit-test loop.
test-unit: $(READY)
	@$(PY) -m pytest -q tests/unit

# What a release runs before `sam deploy --config-env dev|prod`.
build: $(SAM_READY)
	@$(SAM_VENV)/bin/sam build --template-file infra/template.yaml

validate: $(SAM_READY)
	@AWS_DEFAULT_REGION=us-east-1 $(SAM_VENV)/bin/sam validate --template-file infra/template.yaml
	@$(SAM_VENV)/bin/cfn-lint infra/template.yaml

bench: $(READY)
	@$(PY) bench/run.py

# The loads that used to break the local stack (a few minutes: 5,000 creates).
bench-hardening: $(READY)
	@$(PY) bench/hardening.py

# What each list reads and how long it takes at 1,000 and 10,000 rows.
bench-lists: $(READY)
	@$(PY) bench/lists.py

# What an Idempotency-Key costs on a first POST, and what a replay costs.
bench-idempotency: $(READY)
	@$(PY) bench/idempotency.py

# Each write route's DynamoDB operations and request units, an order's gateway trips and
# Lambda invocations on the AWS path, and the layer's weight.
bench-costs: $(READY)
	@$(PY) bench/costs.py

# Each function's cold start from its `sam build` artifact: init against bare Chalice, and
# the first request against the second.
bench-cold-start: $(SAM_READY)
	@$(PY) bench/cold_start.py

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache
