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
# infra/template.yaml writes its alarms as loops (AWS::LanguageExtensions): sam build and
# validate must expand them (samconfig.toml says the same for commands run from the root).
export SAM_CLI_ENABLE_LANGUAGE_EXTENSIONS := 1

.PHONY: run emulators seed reset test test-unit token lint validate build bench bench-hardening bench-lists bench-idempotency bench-costs bench-cold-start bench-throttle dead-letters redrive clean

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

# The demo data (examples/demo.json) into the running stack, through its API; a second
# run adds nothing. GATEWAY_PORT, or GATEWAY_URL, says where the gateway is.
seed: $(READY)
	@$(PY) -m infra.seed

# Empty LOCAL_DATA_DIR: the next start begins with empty tables.
reset: $(READY)
	@$(PY) -m infra.local.persistence reset

# An operator's token; ROLE=customer USER_ID=42 a customer's; SUB= its subject.
# STAGE=dev|prod: for that deployed stack, from its secret, with your AWS credentials.
token: $(READY)
	@$(PY) -m infra.tokens $(if $(STAGE),--stage $(STAGE)) $(if $(SUB),--subject $(SUB)) \
		$(if $(ROLE),--role $(ROLE)) $(if $(USER_ID),--user-id $(USER_ID))

# The order events Lambda gave up on (the local stack's, or STAGE=dev|prod's), and sending
# them back once the cause is fixed.
dead-letters: $(READY)
	@$(PY) -m infra.dead_letters list $(if $(STAGE),--stage $(STAGE))

redrive: $(READY)
	@$(PY) -m infra.dead_letters redrive $(if $(STAGE),--stage $(STAGE))

lint: $(READY)
	@$(PY) -m ruff check .

# Every test: unit, integration (emulated AWS), e2e (the stack over HTTP) and release
# (tests/release runs sam build and sam validate from .venv-sam). In TEST_JOBS processes,
# a test file each at a time (its module fixtures, a stack say, start once): twice the
# cores, as most e2e time is spent waiting on the stacks the tests start.
TEST_JOBS ?= $(shell echo $$(( $$(nproc) * 2 )))
test: lint $(SAM_READY)
	@SAM_VENV=$(CURDIR)/$(SAM_VENV) $(PY) -m pytest -n $(TEST_JOBS) --dist loadfile

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

# What the local gateway's throttle costs a request, against no throttle.
bench-throttle: $(READY)
	@$(PY) bench/throttle.py

# Each function's cold start from its `sam build` artifact: init against bare Chalice, and
# the first request against the second.
bench-cold-start: $(SAM_READY)
	@$(PY) bench/cold_start.py

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache
