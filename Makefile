# Two commands for a fresh clone: `make run` and `make test`. Both build .venv first.
SHELL := /bin/bash
# Python 3.13, Lambda's runtime (infra/template.yaml): the first of these that runs it, never
# the machine's default python3. Each is asked, not just found: a version manager's shim
# named python3.13 can be on PATH and refuse (pyenv's, when 3.13 is installed but another
# version is selected). PYTHON=/path/to/python3.13 chooses one.
PYTHON ?= $(shell for p in python3.13 $$HOME/.pyenv/versions/3.13*/bin/python3.13 \
	/usr/local/bin/python3.13 /usr/bin/python3.13; do "$$p" -c 'import sys; \
	assert sys.version_info[:2] == (3, 13); print(sys.executable)' 2>/dev/null && break; done)
NO_PYTHON := Python 3.13 was not found (tried python3.13 on PATH, ~/.pyenv/versions/3.13*, \
	/usr/local/bin, /usr/bin): install it, or set PYTHON=/path/to/python3.13.
# Exported: sam build's Makefiles (layers/, functions/) compile the artifacts' bytecode with it.
export PYTHON
VENV := .venv
PY := $(VENV)/bin/python
# Written last, so an interrupted install is retried on the next make. Named for the Python
# it was made with: a venv of another version (an earlier checkout's 3.11) is made again.
READY := $(VENV)/.ready-3.13
ON_313 = -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))'

SAM_VENV := .venv-sam
SAM_READY := $(SAM_VENV)/.ready-3.13
# Python writes its bytecode (__pycache__, which git ignores) whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set, every process of a local stack compiled all it imports
# again (a stack's start took 5.6 s of CPU where it takes 3.8 s), and make test starts
# dozens. An empty value is unset to Python.
export PYTHONDONTWRITEBYTECODE :=
# sam-cli's telemetry would try to reach AWS; nothing here needs it.
export SAM_CLI_TELEMETRY := 0
# infra/template.yaml writes its alarms as loops (AWS::LanguageExtensions): sam build and
# validate must expand them (samconfig.toml says the same for commands run from the root).
export SAM_CLI_ENABLE_LANGUAGE_EXTENSIONS := 1

# uv installs both venvs from the locks, checking every file against its hash; the venv's
# own pip only bootstraps uv, itself pinned with its hashes (requirements-uv.txt). uv reads
# no pip configuration: packages come from PyPI alone. It trusts the system's certificate
# store (a proxy's CA included), and uses the Python it is given, never one it downloads.
UV := $(VENV)/bin/uv
UV_SYNC := $(UV) pip sync --quiet --require-hashes
export UV_SYSTEM_CERTS := 1
export UV_PYTHON_DOWNLOADS := never
# --isolated: pip reads no per-user configuration or PIP_* variables either (extra indexes);
# the machine's (/etc/pip.conf: its CA bundle) still applies, as does SSL_CERT_FILE.
PIP_INSTALL := --isolated install --quiet --disable-pip-version-check --no-deps \
	--require-hashes $(if $(SSL_CERT_FILE),--cert "$(SSL_CERT_FILE)") -r requirements-uv.txt
# The venv, and uv in it. The interpreter's own pip (pip 22.3+ installs into another
# environment with --python) spares the venv an ensurepip of its own: 2 s of a first
# start, of which nothing else needs pip (uv does the rest). Without one, venv's.
MAKE_VENV = if $(PYTHON) -m pip --python "$(PYTHON)" --version >/dev/null 2>&1; then \
		$(PYTHON) -m venv --without-pip $(VENV) && $(PYTHON) -m pip --python $(PY) $(PIP_INSTALL); \
	else $(PYTHON) -m venv $(VENV) && $(PY) -m pip $(PIP_INSTALL); fi
BOOTSTRAP_UV = if $(PY) -m pip --version >/dev/null 2>&1; then $(PY) -m pip $(PIP_INSTALL); \
	else $(PYTHON) -m pip --python $(PY) $(PIP_INSTALL); fi

.PHONY: run emulators seed user reset test test-unit token lint typecheck lock validate build chromium bench bench-hardening bench-fuzz bench-lists bench-idempotency bench-costs bench-cold-start bench-install bench-tracing bench-throttle bench-concurrency bench-scale bench-stock bench-lines dead-letters redrive webhook-dead-letters redrive-webhooks backfill-shards backfill-tracking backfill-user-ids encrypt-webhook-secrets backfill-figures migrate-stock check-stock bench-dashboard clean

# Install output goes to stderr so `make -s token` prints the token and nothing else. The
# install is quiet, so say first what is coming.
FIRST_RUN := Creating .venv and installing dependencies, about 15 seconds, once.
$(UV): | requirements-uv.txt
	@$(if $(PYTHON),,echo "$(NO_PYTHON)" >&2; exit 1)
	@if ! test -x $(PY); then echo "$(FIRST_RUN)" >&2; { $(MAKE_VENV); } >&2; \
	else { $(BOOTSTRAP_UV); } >&2; fi

# Exactly the lock: what it does not list is removed (uv included: the lock pins it too).
$(READY): requirements-dev.txt | $(UV)
	@if ! $(PY) $(ON_313) 2>/dev/null; then echo "Making .venv again, for Python 3.13." >&2; \
		rm -rf $(VENV) && { $(MAKE_VENV); } >&2; \
	elif test -f $@; then echo "Updating .venv: the requirements changed." >&2; fi
	@$(UV_SYNC) --python $(PY) requirements-dev.txt >&2
	@# functions/ and layers/common/ are import roots, as they are on Lambda (handler dir + layer).
	@printf '%s\n' "$(CURDIR)" "$(CURDIR)/functions" "$(CURDIR)/layers/common" \
		> "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/logistics.pth"
	@touch $@

# The SAM CLI's venv, installed by .venv's uv.
$(SAM_READY): requirements-sam.txt | $(READY)
	@if ! $(SAM_VENV)/bin/python $(ON_313) 2>/dev/null; then echo "Creating .venv-sam (the SAM CLI, for \
	the release checks) and installing it, a few seconds, once." >&2; \
		$(UV) venv --quiet --clear --python $(PYTHON) $(SAM_VENV) >&2; fi
	@$(UV_SYNC) --python $(SAM_VENV)/bin/python requirements-sam.txt >&2
	@touch $@

# Never in a layer: chalice's command line and packaging tools (click, inquirer and theirs,
# pip, setuptools, wheel, pyyaml) and cffi's build-time parser; no function imports them,
# and tests/release checks that every package of a layer is imported by some function.
NOT_DEPLOYED := click inquirer pip setuptools wheel pyyaml pycparser
# The crypto layer's roots (the authorizer's alone): PyJWT's RS256 backend.
CRYPTO_LAYER := cryptography
COMPILE = $(UV) pip compile --quiet --universal --python-version 3.13 --generate-hashes \
	--custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)

# Resolve pyproject.toml and requirements-sam.in again into the locks, keeping every pin
# that still fits (UPGRADE=1: the newest that fit), and export the layers' lists from the
# runtime lock. tests/unit/test_locks.py fails when a lock or a layer's list drifts.
lock: | $(UV)
	@$(COMPILE) --group pyproject.toml:installer -o requirements-uv.txt
	@$(call describe,requirements-uv.txt,uv: the installer of both venvs. make bootstraps it with \
		pip in .venv from this file; requirements-dev.txt pins it too (uv pip sync keeps it).)
	@$(COMPILE) pyproject.toml --excludes <(printf '%s\n' $(NOT_DEPLOYED)) -o requirements.txt
	@$(call describe,requirements.txt,The runtime: what the functions import at run time$(,) \
		the whole closure of the dependencies in pyproject.toml less $(NOT_DEPLOYED). The Lambda \
		layers hold exactly this (layers/*/requirements.txt are exported from it). Chalice \
		packages whatever this file lists$(,) so no development tool belongs here.)
	@$(COMPILE) pyproject.toml --group dev -c requirements.txt -o requirements-dev.txt
	@$(call describe,requirements-dev.txt,.venv: the local stack and the tests (the dev group of \
		pyproject.toml) on top of the runtime$(,) at the versions of the runtime lock.)
	@$(COMPILE) requirements-sam.in -o requirements-sam.txt
	@$(call describe,requirements-sam.txt,.venv-sam: the SAM CLI (requirements-sam.in).)
	@$(call export_layer,common,pyproject.toml,$(NOT_DEPLOYED) $(CRYPTO_LAYER),\
		the runtime lock less the crypto layer)
	@$(call export_layer,crypto,<(printf '%s\n' $(CRYPTO_LAYER)),$(NOT_DEPLOYED),\
		$(CRYPTO_LAYER) and what it needs at run time)

, := ,
# $(1) a file, $(2) what it holds: a comment above uv's header, which names `make lock`.
define describe
{ echo '$(strip $(2))' | fold -s -w 88 | sed 's/^/# /; s/ *$$//'; cat $(1); } > $(1).tmp && \
	mv $(1).tmp $(1)
endef

# $(1) layer, $(2) what it holds, $(3) excluded, $(4) its description: the runtime lock's
# entries (versions and hashes) for those packages, as `sam build` installs them.
define export_layer
$(UV) pip compile --quiet --universal --python-version 3.13 --generate-hashes --no-header \
	--no-annotate $(2) -c requirements.txt --excludes <(printf '%s\n' $(3)) \
	-o layers/$(1)/requirements.txt
@$(call describe,layers/$(1)/requirements.txt,The $(1) layer: $(strip $(4))$(,) exported from \
	requirements.txt by make lock: do not edit. layers/$(1)/Makefile installs it with \
	--no-deps.)
endef

# Everything: the gateway, the notification service and the emulators; data kept in
# LOCAL_DATA_DIR (default .local-data), the apps restarted when their code changes.
run: $(READY)
	@$(PY) -m infra.dev

# The same without the gateway, for `.venv/bin/chalice local --stage local`.
emulators: $(READY)
	@$(PY) -m infra.dev --emulators

# The demo data (examples/demo.json) into the running stack, through its API; a second
# run adds nothing. GATEWAY_PORT, or GATEWAY_URL, says where the gateway is.
seed: $(READY)
	@$(PY) -m infra.seed

# An account in the user pool (docs/identity.md): EMAIL=... ROLE=operator|customer, in the
# local stack's pool, or STAGE=dev|prod's with your AWS credentials; PASSWORD= (else one is
# generated and printed), USER_ID= (a customer's, else the next one).
user: $(READY)
	@$(PY) -m infra.users --email "$(EMAIL)" $(if $(ROLE),--role $(ROLE)) \
		$(if $(STAGE),--stage $(STAGE)) $(if $(PASSWORD),--password "$(PASSWORD)") \
		$(if $(USER_ID),--user-id $(USER_ID))

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

# The webhook deliveries given up (the local stack's, or STAGE=dev|prod's), and sending
# them all again once their endpoints are back (docs/operations.md#webhooks).
webhook-dead-letters: $(READY)
	@$(PY) -m infra.webhook_dead_letters list $(if $(STAGE),--stage $(STAGE))

redrive-webhooks: $(READY)
	@$(PY) -m infra.webhook_dead_letters redrive $(if $(STAGE),--stage $(STAGE))

# A webhook endpoint on this machine that prints what it receives, its signature checked
# with SECRET=whsec_... (the create's answer); STATUS=500 or 410 shows retries or the
# endpoint turned off; PORT (9000) where it listens (docs/api.md#webhooks).
.PHONY: webhook-receiver
webhook-receiver: $(READY)
	@$(PY) -m infra.webhook_receiver $(if $(PORT),--port $(PORT)) \
		$(if $(SECRET),--secret '$(SECRET)') $(if $(STATUS),--status $(STATUS))

# Items written before write-sharding given their shard keys (docs/capacity.md), on the
# local stack's tables or STAGE=dev|prod's; `make run` does it to the data it restores.
backfill-shards: $(READY)
	@$(PY) -m infra.shard_backfill $(if $(STAGE),--stage $(STAGE))

# Shipments stored before tracking given a tracking code and a place in the late check
# (docs/operations.md#tracking), on the local stack's tables or STAGE=dev|prod's; `make
# run` does it to the data it restores.
backfill-tracking: $(READY)
	@$(PY) -m infra.tracking_backfill $(if $(STAGE),--stage $(STAGE))

# The userIds that data written before claims carries (orders, shipments, the pool's
# accounts), claimed so no new account is given one (docs/identity.md#userids), on the
# local stack or STAGE=dev|prod's; `make run` does it to the data it restores.
backfill-user-ids: $(READY)
	@$(PY) -m infra.user_id_backfill $(if $(STAGE),--stage $(STAGE))

# Webhook secrets stored in plain text before they were encrypted, encrypted with the
# stack's KMS key (docs/operations.md#webhooks), on the local stack's table or
# STAGE=dev|prod's; `make run` does it to the data it restores.
encrypt-webhook-secrets: $(READY)
	@$(PY) -m infra.webhook_secrets $(if $(STAGE),--stage $(STAGE))

# The dashboard's figures counted from the tables (items its streams never delivered:
# written before it, or while a batch was failing), on the local stack's tables or
# STAGE=dev|prod's; `make run` does it to the data it restores (docs/operations.md).
backfill-figures: $(READY)
	@$(PY) -m infra.figures_backfill $(if $(STAGE),--stage $(STAGE))

# Data stored before warehouses and orders of several lines carried into them (every
# unit and reservation into PRINCIPAL, every order its one line), on the local stack's
# tables or STAGE=dev|prod's; `make run` does it to the data it restores.
migrate-stock: $(READY)
	@$(PY) -m infra.stock_migration $(if $(STAGE),--stage $(STAGE))

# The stock's invariants checked (reserved is the sum of the reservations, available
# is on hand less reserved, in each warehouse); prints what differs, exits 1 if any.
check-stock: $(READY)
	@$(PY) -m infra.stock_check $(if $(STAGE),--stage $(STAGE))

# ruff's rules, and its formatting (`ruff format .` applies it).
lint: $(READY)
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check --quiet .

# mypy over functions/, layers/common/ and infra/ ([tool.mypy] in pyproject.toml).
typecheck: $(READY)
	@$(PY) -m mypy

# ruff, then every test (unit, integration against emulated AWS, e2e against the stack over
# HTTP and the console in Chromium, release: sam build and sam validate from .venv-sam)
# with mypy beside them; how long it took, at the end. In TEST_JOBS processes, a test file
# each at a time (its module fixtures, a stack say, start once): twice the cores, as much
# of the e2e time is spent waiting on the stacks. docs/development.md#tests.
TEST_JOBS ?= $(shell echo $$(( $$(nproc) * 2 )))
define run_tests
	@started=$$(date +%s); \
	$(PY) -m mypy > $(VENV)/mypy.out 2>&1 & typing=$$!; \
	SAM_VENV=$(CURDIR)/$(SAM_VENV) $(PY) -m pytest -n $(TEST_JOBS) --dist loadfile $(1); \
	tested=$$?; wait $$typing; typed=$$?; cat $(VENV)/mypy.out; \
	echo "make $@: $$(( $$(date +%s) - started )) s (tests $$([ $$tested = 0 ] && echo passed \
	|| echo FAILED), mypy $$([ $$typed = 0 ] && echo passed || echo FAILED))"; \
	[ $$tested = 0 ] && [ $$typed = 0 ]
endef
test: lint $(SAM_READY) chromium
	$(call run_tests,)

# Everything but the unit tests: the integration tests, the stacks, the console, the release.
.PHONY: test-e2e
test-e2e: lint $(SAM_READY) chromium
	$(call run_tests,tests/integration tests/e2e tests/release)

# The console's tests drive Debian's Chromium (docs/console.md): installed when missing
# where this can (root, apt-get); elsewhere the tests say how to install it.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if ! test -x $(CHROMIUM) && test "$$(id -u)" = 0 && command -v apt-get >/dev/null; then \
		echo "Installing Chromium (Debian's, for the console's browser tests), once." >&2; \
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium >&2; fi

# The rules and use cases alone, no stack and no emulator: seconds, for the edit-test loop.
test-unit: $(READY)
	@$(PY) -m pytest -q -n 2 tests/unit

# What a release runs before `sam deploy --config-env dev|prod`.
build: $(SAM_READY)
	@$(SAM_VENV)/bin/sam build --template-file infra/template.yaml

validate: $(SAM_READY)
	@AWS_DEFAULT_REGION=us-east-1 $(SAM_VENV)/bin/sam validate --template-file infra/template.yaml
	@$(SAM_VENV)/bin/cfn-lint infra/template.yaml

bench: $(READY)
	@$(PY) bench/run.py

# GET /api/dashboard's answer time with 10 orders and with 10,000, and their ratio.
bench-dashboard: $(READY)
	@$(PY) bench/dashboard_time.py

# The loads that used to break the local stack (a few minutes: 5,000 creates).
bench-hardening: $(READY)
	@$(PY) bench/hardening.py

# Every documented operation fuzzed on a stack holding 3,000 orders, writes with and
# without an Idempotency-Key (about 20 minutes); fails on any 5xx.
bench-fuzz: $(READY)
	@$(PY) bench/fuzz.py

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

# A wrong password's sign-in against an unknown email's, medians of each (a timing the
# tests count instead: tests/integration/test_sign_in_routes.py).
.PHONY: bench-sign-in
bench-sign-in: $(READY)
	@$(PY) bench/sign_in.py

# What a webhook event adds to the order that causes it (no endpoint, one answering 200,
# one that hangs), and the deliveries a second the local stack makes.
.PHONY: bench-webhooks
bench-webhooks: $(READY)
	@$(PY) bench/webhook_deliveries.py

# A carrier's burst of 1,000 tracking events for 100 shipments, and the API's requests
# meanwhile against a baseline of the same run (docs/api.md#carriers).
.PHONY: bench-tracking
bench-tracking: $(READY)
	@$(PY) bench/tracking.py

# Requests a second at 1 and at 4 clients (POST /api/pedidos, GET /api/inventario/{id}),
# the CPU each request costs and the ceiling that puts on 4 clients, and the local
# stack's memory with every function warm.
bench-concurrency: $(READY)
	@$(PY) bench/concurrency.py

# A burst of 2,000 order creates: the hottest DynamoDB partition key's share of its
# writes, and the burst again with every key throttled (a few minutes; BASELINE=<rev>
# first runs the platform of that revision, the "before").
bench-scale: $(READY)
	@$(PY) bench/scale.py $(if $(BASELINE),--baseline $(BASELINE))

# One best seller's approvals, ships and cancels at once: the keys each move writes, and
# the ceiling per product (docs/capacity.md).
bench-stock: $(READY)
	@$(PY) bench/stock.py

# Approving an order of 20 lines over 3 warehouses against 20 one-line orders: write
# units and time (bench/README.md, Order lines).
bench-lines: $(READY)
	@$(PY) bench/order_lines.py

# make test in a clean clone, RUNS times in a row, with LOAD processes keeping the cores
# busy beside it (REF=<commit>; docs/development.md#tests).
.PHONY: bench-loop
bench-loop: $(READY)
	@$(PY) bench/loop.py --runs $(or $(RUNS),5) --load $(or $(LOAD),0) --ref $(or $(REF),HEAD)
# A person with 10,000 orders on the local stack: their data read and exported, and their
# erasure until it is done (a few minutes; docs/personal-data.md).
.PHONY: bench-erasure
bench-erasure: $(READY)
	@$(PY) bench/personal_data.py

# How soon a new local environment is ready (a fork of its function's snapshot), and the
# whole stack's memory by PSS after the contract's requests, at 1 and at 8 clients.
.PHONY: bench-environments
bench-environments: $(READY)
	@$(PY) bench/environments.py

# Each function's cold start from its `sam build` artifact: init against bare Chalice, and
# the first request against the second.
bench-cold-start: $(SAM_READY)
	@$(PY) bench/cold_start.py

# Tracing's share of a cold start: X-Ray's SDK (today's) against OpenTelemetry setups, in a
# scratch venv (docs/tracing.md).
bench-tracing: $(READY)
	@$(PY) bench/tracing.py

# A fresh clone with empty package caches: `make run` until Ready, and `make test`'s
# installs (REF=<commit> for another commit; a few minutes).
bench-install: $(READY)
	@$(PY) bench/install.py $(if $(REF),--ref $(REF))

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache .mypy_cache
