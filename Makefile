# The developer's entry points. Everything installs what it needs first (scripts/install-deps.sh).
PRESET ?= release
BUILD_DIR := build/$(PRESET)
COURIER := $(BUILD_DIR)/topology/courier
MOCK_URL ?= http://127.0.0.1:8090
DEMO_ARGS ?=

.PHONY: deps build test test-unit test-kafka asan demo demo-outage demo-chaos bench \
        mock-webhook kafka-up kafka-down chaos-fail-50 chaos-clear clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET)

# The whole suite: unit, integration (mock cluster + real mock_webhook server) and kafka
# (courier and mock_webhook processes against a real Apache Kafka from tools/kafka-local).
test: build
	ctest --preset $(PRESET) -j2

test-unit: build
	ctest --preset $(PRESET) -L unit -j2

test-kafka: build
	ctest --preset $(PRESET) -L kafka

# A real single-node Apache Kafka (KRaft) on 127.0.0.1:19092, no Docker.
kafka-up: deps
	tools/kafka-local/kafka-local start

kafka-down:
	tools/kafka-local/kafka-local stop

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) test PRESET=asan

# courier on an embedded Kafka (librdkafka's mock cluster) and an in-process mock webhook.
demo: build
	$(COURIER) demo $(DEMO_ARGS)

# The seed's scenario: the receiver answers 503 to everything for 3 s.
demo-outage: build
	$(COURIER) demo --records 2000 --outage 3s --pause-after 1s --cb-open-timeout 1s $(DEMO_ARGS)

demo-chaos: build
	$(COURIER) demo --records 2000 --fail-rate-503 0.5 $(DEMO_ARGS)

bench: build
	$(BUILD_DIR)/tools/bench/courier_bench

mock-webhook: build
	$(BUILD_DIR)/mock_webhook/mock_webhook --port 8090

chaos-fail-50:
	curl -fsS -X POST -H 'Content-Type: application/json' \
	  -d '{"fail_rate_503":0.5,"fail_rate_timeout":0,"latency_ms":0}' $(MOCK_URL)/chaos; echo

chaos-clear:
	curl -fsS -X POST $(MOCK_URL)/chaos/clear; echo

clean:
	rm -rf build
