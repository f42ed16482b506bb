# The README's two commands: `make run` and `make test`. Both install what they need first.
SWIFT ?= swift

.PHONY: setup run test test-tsan lint format benchmark

setup:
	@scripts/setup.sh

## Sets up, then runs the demo against a mock backend started in-process.
run: setup
	$(SWIFT) run -c release transport-demo

## Sets up, then checks formatting, runs every test, and runs the tests again under the thread sanitizer.
test: setup lint
	$(SWIFT) test
	$(MAKE) test-tsan

test-tsan: setup
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Examples Benchmarks

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Examples Benchmarks

## Release-mode transport benchmark against nginx, C libcurl and URLSession (see docs/performance.md).
benchmark: setup
	scripts/benchmark-transport.sh
