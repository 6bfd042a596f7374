# The developer's entry points. Everything installs what it needs first (scripts/install-deps.sh):
# the demo and the courier executable only what building and running courier needs (deps-build),
# the tests, lint, fuzz and bench targets the rest too (deps).
PRESET ?= release
BUILD_DIR := build/$(PRESET)
COURIER := $(BUILD_DIR)/app/courier
MOCK_URL ?= http://127.0.0.1:8090
DEMO_ARGS ?=

.PHONY: deps deps-build build build-courier test test-unit test-kafka asan tsan demo demo-outage demo-chaos bench bench-quick bench-one-partition bench-paced soak \
        mock-webhook kafka-up kafka-down chaos-fail-50 chaos-clear clean \
        lint lint-format lint-tidy format fuzz fuzz-smoke

deps:
	bash scripts/install-deps.sh all

deps-build:
	bash scripts/install-deps.sh build

# Everything, the test suites included.
build: deps
	cmake --preset $(PRESET) -DCOURIER_BUILD_TESTS=ON
	cmake --build --preset $(PRESET)

# Only the courier executable, in the same build tree (a later `make build` reuses its objects).
build-courier: deps-build
	cmake --preset $(PRESET) -DCOURIER_BUILD_TESTS=OFF
	cmake --build --preset $(PRESET) --target courier

# The whole suite: unit, integration (mock cluster + real mock_webhook server) and kafka
# (courier and mock_webhook processes against a real Apache Kafka from tools/kafka-local).
test: build
	ctest --preset $(PRESET) -j2

test-unit: build
	ctest --preset $(PRESET) -L unit -j2

test-kafka: build
	ctest --preset $(PRESET) -L kafka

# The libFuzzer targets (tests/fuzz: the webhook answer parser, the retry/DLQ header codec),
# built with clang 14 in build/fuzz (only those) and run FUZZ_SECONDS each (scripts/fuzz.sh).
# fuzz-smoke is CI's bounded run (.ci/run runs the script beside the tests): 45 s each. A crash fails it and
# leaves its input as build/fuzz/<target>-crash-*.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

fuzz-smoke: deps
	FUZZ_SECONDS=45 bash scripts/fuzz.sh

# Static checks (CI runs `make lint` after `make test`); the file sets live in scripts/lint.sh.
# lint-format: clang-format --dry-run --Werror (.clang-format) over every tracked .cpp/.hpp.
# lint-tidy: clang-tidy (.clang-tidy) over the sources, with the release compile_commands.json.
lint: lint-format lint-tidy

lint-format: deps
	bash scripts/lint.sh format-check

lint-tidy: build
	bash scripts/lint.sh tidy

# Rewrites the same files as lint-format checks, in place.
format: deps
	bash scripts/lint.sh format

# A real single-node Apache Kafka (KRaft) on 127.0.0.1:19092, no Docker.
kafka-up: deps
	tools/kafka-local/kafka-local start

kafka-down:
	tools/kafka-local/kafka-local stop

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) test PRESET=asan

# The unit and integration labels under ThreadSanitizer (suppressions: tests/tsan.supp), linked
# with a TSan-built CAF 0.17.6 that scripts/build-caf-tsan.sh builds into build/caf-tsan/install
# first (once: the script does nothing when it is already there).
tsan: deps
	bash scripts/build-caf-tsan.sh
	$(MAKE) build PRESET=tsan
	ctest --preset tsan -L 'unit|integration' -j2

# courier on an embedded Kafka (librdkafka's mock cluster) and an in-process mock webhook.
demo: build-courier
	$(COURIER) demo $(DEMO_ARGS)

# The seed's scenario: the receiver answers 503 to everything for 3 s.
demo-outage: build-courier
	$(COURIER) demo --records 2000 --outage 3s --pause-after 1s --cb-open-timeout 1s $(DEMO_ARGS)

demo-chaos: build-courier
	$(COURIER) demo --records 2000 --fail-rate-503 0.5 $(DEMO_ARGS)

# The benchmark (docs/performance.md): courier on a real broker (tools/kafka-local) against nginx
# at 0 and 20 ms, beside wrk's ceiling on the same nginx and the Little's-law bound; the matrix
# {0, 20 ms} x {256, 1024} in flight x {1, 8, 64} partitions, 2 alternating repeats. Subsets and
# sizes: BENCH_MATRIX, BENCH_REPEATS, BENCH_RECORDS, ... (tools/bench/bench.sh's header).
bench: build
	COURIER_BIN=$(COURIER) tools/bench/bench.sh

# The quick benchmark, only that: everything in one process on librdkafka's mock cluster.
bench-quick: build
	$(BUILD_DIR)/tools/bench/courier_bench

# One partition on a real broker (tools/kafka-local) against nginx with a 20 ms echo_sleep,
# courier's default settings, beside the bound max_in_flight / latency.
bench-one-partition: build
	tools/bench/one_partition.sh

# Latency under a paced load (half the 0 ms capacity) and memory through a 30 s outage, on the
# real broker against nginx (tools/bench/paced.sh's header).
bench-paced: build
	COURIER_BIN=$(COURIER) tools/bench/paced.sh

# The soak (issue 52; not part of `make test`): an hour at half the capacity on the real broker
# against nginx (20 ms, 5% 503s), two instances, a partner outage every 10 minutes and a
# rebalance every 15; RSS, fds, threads and the accounting sampled every 10 s, judged by their
# fitted slopes and `courier audit` (tools/bench/soak.sh's header; output in build/soak/).
# Shorter: SOAK_DURATION=420 SOAK_OUTAGE_EVERY=120 SOAK_REBALANCE_EVERY=180 make soak
soak: build
	COURIER_BIN=$(COURIER) tools/bench/soak.sh

mock-webhook: build
	$(BUILD_DIR)/mock_webhook/mock_webhook --port 8090

chaos-fail-50:
	curl -fsS -X POST -H 'Content-Type: application/json' \
	  -d '{"fail_rate_503":0.5,"fail_rate_timeout":0,"latency_ms":0}' $(MOCK_URL)/chaos; echo

chaos-clear:
	curl -fsS -X POST $(MOCK_URL)/chaos/clear; echo

clean:
	rm -rf build

# ---------------------------------------------------------------------------------------------
# The Docker compose stand (docker/docker-compose.yml; see docker/README.md): Kafka (KRaft) on
# 127.0.0.1:9092, mock-webhook on :8090, courier. `docker compose`, else `docker-compose`.
# chaos-fail-50 / chaos-clear above work against the stand's mock-webhook too.
KAFKA_BROKERS ?= 127.0.0.1:9092
WEBHOOK_URL ?= http://127.0.0.1:8090/deliver
SEED_TOPIC ?= brew.shipments.v1
PARTITIONS ?= 4
N ?= 100
STAND_COMPOSE_FILE := docker/docker-compose.yml
# $(call stand_compose,<args>): runs the compose client that is installed.
stand_compose = if docker compose version >/dev/null 2>&1; then \
	  docker compose -f $(STAND_COMPOSE_FILE) $(1); \
	elif command -v docker-compose >/dev/null 2>&1; then \
	  docker-compose -f $(STAND_COMPOSE_FILE) $(1); \
	else \
	  echo "make: neither 'docker compose' nor 'docker-compose' is installed" >&2; exit 127; \
	fi

.PHONY: up down topic-create up-mock seed run-courier

# Builds the courier image and starts the whole stand; `topics` creates the topics once.
up:
	@$(call stand_compose,up -d --build)

down:
	@$(call stand_compose,down --remove-orphans)

# Only the mock partner webhook (the courier image, entrypoint mock_webhook) on :8090.
up-mock:
	@$(call stand_compose,up -d --build mock-webhook)

# The source topic (PARTITIONS partitions, if missing), its retry tiers and the DLQ, on
# $(KAFKA_BROKERS), with the locally built courier (the stand's `topics` service does the same).
topic-create: build-courier
	KAFKA_BROKERS=$(KAFKA_BROKERS) $(COURIER) topics ensure --config topology/courier.json \
	  --partitions $(PARTITIONS)

# N shipment assignments (default 100) to $(SEED_TOPIC) on $(KAFKA_BROKERS), keyed by shipment id.
seed:
	@case "$(N)" in ''|*[!0-9]*) echo "make seed: N must be a number, got '$(N)'" >&2; exit 2;; esac; \
	command -v kcat >/dev/null 2>&1 || { echo "make seed: kcat is not installed (make deps)" >&2; exit 127; }; \
	i=0; \
	while [ $$i -lt $(N) ]; do \
	  id=$$(printf 'shp-%08d' $$i); \
	  case $$((i % 4)) in 0) p=fleetly; c=Lisbon;; 1) p=zoomcargo; c=Porto;; 2) p=pedalpost; c=Braga;; *) p=vanvan; c=Faro;; esac; \
	  printf '%s|{"type":"shipment.assigned","shipment_id":"%s","order_id":"ord-%d","courier_partner":"%s","city":"%s","items":%d,"pickup":{"lat":38.72,"lon":-9.14},"dropoff":{"lat":38.73,"lon":-9.15}}\n' \
	    "$$id" "$$id" $$((100000 + i)) "$$p" "$$c" $$((i % 6 + 1)); \
	  i=$$((i + 1)); \
	done | kcat -P -b $(KAFKA_BROKERS) -t $(SEED_TOPIC) -K '|' \
	  -X enable.idempotence=true -X acks=all \
	  && echo "make seed: $(N) shipments produced to $(SEED_TOPIC) on $(KAFKA_BROKERS)"

# courier from the local build against the stand (or any Kafka: KAFKA_BROKERS=..., WEBHOOK_URL=...).
# The HMAC secret comes from the environment (default change-me, as the stand's mock-webhook).
run-courier: build-courier
	KAFKA_BROKERS=$(KAFKA_BROKERS) WEBHOOK_URL=$(WEBHOOK_URL) HMAC_SECRET="$${HMAC_SECRET:-change-me}" \
	  $(COURIER) run --config topology/courier.json
