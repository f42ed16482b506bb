# The README's two commands: `make run` and `make test`. Both install what they need first.
SWIFT ?= swift

.PHONY: setup setup-tests run test test-libcurl8 test-tsan test-asan fault-matrix fuzz report-cost lint docs samples api format benchmark benchmark-report instructions soak run-otel test-otel

setup:
	@scripts/setup.sh

## Sets up, then runs the example: a task-marketplace session against a mock backend started in-process.
run: setup
	$(SWIFT) run task-client

## The example built with the package trait OTel (its own scratch path, .build-otel), exporting
## over OTLP to a receiver on loopback (or OTLP_ENDPOINT) and serving Prometheus metrics on
## METRICS_PORT (9464); prints what the receiver got.
run-otel: setup-tests
	SWIFT=$(SWIFT) scripts/run-otel.sh

setup-tests:
	@scripts/setup.sh --tests

## How many tests the parallel suites run at once. Unbounded, Swift Testing starts every test at
## once, and on two cores the concurrency runtime's queue grows so long that a job waits seconds
## for a thread: the mock backend's replies (tasks on that pool) then miss the clients' time
## limits. Every suite of make test runs under a sanitizer, where each job runs several times
## slower, and four at a time keep that wait near a second.
TEST_WIDTH ?= 4
PARALLEL_TESTS = --experimental-maximum-parallelization-width $(TEST_WIDTH)

## Sets up, then checks formatting, runs every test under the address sanitizer, builds the API
## documentation, type-checks the documentation's Swift samples against the build, compares the
## public API with api/, runs the transport's tests and the fault matrix on libcurl 8, runs the fault
## matrix alone, runs the exporter tests, runs each fuzz target for a few seconds (so that they stay
## built and clean), and runs the tests again under the thread sanitizer.
##
## Everything but the thread-sanitized suites runs on one debug build in a scratch path of its own,
## .build-test (TEST_BUILD_FLAGS), so that switching between `make test` and `make run` or a plain
## `swift build` rebuilds neither:
## - with the package trait OTel, so that swift-otel's exporter tests need no second build of the
##   package (the trait only adds ReboundOTel's code and the example's OTLP option); the
##   thread-sanitized build, like `make run`, has no trait, so both configurations are built and
##   tested;
## - with the address sanitizer on all Swift code (`-Xswiftc -sanitize=address`), so that the suite
##   needs no address-sanitized build of its own. C code (swift-nio-ssl's copy of BoringSSL, which
##   the trait brings in) is left uninstrumented: instrumenting it too costs about three minutes of
##   building, and Rebound has no C code of its own.
## The steps after the first build run on it with `--skip-build` (SKIP_BUILD): SwiftPM compiles its
## build plugins, and the code swift-protobuf's plugin generates, again whenever the environment
## differs from the last build's (REBOUND_FAULT_MATRIX, a sub-make's MAKELEVEL), 20 to 50 s each
## time.
##
## Under a sanitizer the end-to-end tests, which run the sanitized tools as processes (two cores'
## worth of work), run after the rest, so that their load does not stretch other tests' calls past
## their time limits. The fault matrix always runs alone in its process, after the rest of the
## suite: its calls retry within deadlines of a few seconds, and on two cores other tests running
## beside it (more so under a sanitizer) can hold the concurrency runtime's threads long enough to
## change which attempt the deadline ends. The test of 5,000 connections at once runs alone too: it
## takes both cores for seconds, which other tests' timing does not survive under a sanitizer, and
## its burst of connections overflows the loopback server's backlog when the server's threads are
## held up.
TEST_SCRATCH = .build-test
TEST_BUILD_FLAGS = --traits OTel -Xswiftc -sanitize=address --scratch-path $(TEST_SCRATCH)
test: setup-tests lint
	$(MAKE) test-asan
	scripts/docs.py --scratch-path $(TEST_SCRATCH)
	$(ASAN_ENV) SWIFT=$(SWIFT) scripts/test.sh scale --skip-build $(TEST_BUILD_FLAGS) --filter CurlTransportScaleTests
	$(MAKE) test-libcurl8 TEST_BUILD=1 SKIP_BUILD=--skip-build
	scripts/check-samples.py --scratch-path $(TEST_SCRATCH) --traits OTel
	scripts/api-summary.py --check --scratch-path $(TEST_SCRATCH)
	$(MAKE) fault-matrix TEST_BUILD=1 SKIP_BUILD=--skip-build
	$(MAKE) test-otel TEST_BUILD=1 SKIP_BUILD=--skip-build
	$(MAKE) fuzz FUZZ_SECONDS=3
	$(MAKE) test-tsan

## The build that fault-matrix, test-libcurl8, test-otel, docs, samples and api build and read: with
## TEST_BUILD=1, make test's (TEST_BUILD_FLAGS, in .build-test), so that after `make test` they run
## on its build; otherwise the default debug build in .build (test-otel: its own, in .build-otel).
## test-asan always runs on make test's.
TEST_BUILD ?=
BUILD_FLAGS = $(if $(TEST_BUILD),$(TEST_BUILD_FLAGS))
SCRATCH = $(if $(TEST_BUILD),$(TEST_SCRATCH),.build)
## `--skip-build` runs fault-matrix, test-libcurl8 and test-otel on the build that is there, as
## `make test` does.
SKIP_BUILD ?=
## Leak detection is off and one report inside Foundation is suppressed (.asan-suppressions);
## docs/reliability.md says why. Harmless for a build without the sanitizer.
ASAN_ENV = ASAN_OPTIONS="detect_leaks=0 suppressions=$(CURDIR)/.asan-suppressions $$ASAN_OPTIONS"

## The whole suite under the address sanitizer, on make test's build (TEST_BUILD_FLAGS), four tests
## at a time (TEST_WIDTH), then the end-to-end tests; make test's first step. The fault
## matrix, the test of 5,000 connections and the exporter tests come later in make test.
test-asan: setup-tests
	$(ASAN_ENV) SWIFT=$(SWIFT) scripts/test.sh tests $(TEST_BUILD_FLAGS) $(PARALLEL_TESTS) \
	    --skip FaultMatrixTests --skip CurlTransportScaleTests --skip ReboundExportTests --skip '^EndToEndTests\.'
	$(ASAN_ENV) SWIFT=$(SWIFT) scripts/test.sh end-to-end --skip-build $(TEST_BUILD_FLAGS) --filter '^EndToEndTests\.'

## Every fault of docs/reliability.md through the recovery pipeline, alone in its process so that
## its count of open file descriptors is exact; prints chains, attempts and overshoots as a table.
fault-matrix: setup-tests
	$(ASAN_ENV) REBOUND_FAULT_MATRIX=1 SWIFT=$(SWIFT) scripts/test.sh fault-matrix $(SKIP_BUILD) $(BUILD_FLAGS) \
	    --filter FaultMatrixTests

## The transport's and the marketplace's tests (libcurl against loopback servers) and the fault
## matrix again, on libcurl 8 in place of Debian 12's 7.88: libcurl 8.14 as bookworm-backports
## ships it (Debian 13's), fetched into .build-libcurl8 without being installed
## (scripts/libcurl8.sh). The transport reads libcurl's result codes and texts, some of which
## changed between the two (docs/transport.md, "libcurl 8").
test-libcurl8: setup-tests
	$(if $(SKIP_BUILD),,$(SWIFT) build --build-tests $(BUILD_FLAGS))
	$(ASAN_ENV) LD_LIBRARY_PATH="$$(scripts/libcurl8.sh)" SWIFT=$(SWIFT) scripts/test.sh libcurl8 --skip-build \
	    $(BUILD_FLAGS) $(PARALLEL_TESTS) --filter '^ReboundCurlTests\.' --filter '^ReboundMarketplaceTests\.' \
	    --skip FaultMatrixTests --skip CurlTransportScaleTests
	$(ASAN_ENV) LD_LIBRARY_PATH="$$(scripts/libcurl8.sh)" REBOUND_FAULT_MATRIX=1 SWIFT=$(SWIFT) \
	    scripts/test.sh libcurl8-fault-matrix --skip-build $(BUILD_FLAGS) --filter FaultMatrixTests

## 200,000 calls through the recovery pipeline against the loopback server, 5% of them faulty
## (every fault of the matrix), 32 in flight; checks memory, descriptors, leftovers and every
## call's chain (docs/reliability.md). Not part of `make test`: it takes minutes. SOAK_CALLS=N
## runs another number.
soak: setup-tests
	REBOUND_SOAK=1 SWIFT=$(SWIFT) scripts/test.sh soak --filter SoakTests

## libFuzzer on every parser of untrusted input (docs/reliability.md, "Fuzzing"): builds the fuzz
## targets with the fuzzer and address sanitizers in .build-fuzz, runs each for FUZZ_SECONDS
## (60 by default) and prints the executions each ran; fails on any crash, hang or broken contract.
FUZZ_SECONDS ?= 60
fuzz: setup
	SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_SECONDS)

## What a non-fatal report costs in each delivery mode, in release mode (docs/reliability.md).
report-cost: setup
	$(SWIFT) build -c release --product reliability
	.build/release/reliability report-cost

## ReboundOTel and ReboundPrometheus against a real OTLP receiver and Prometheus, in a build with
## the package trait OTel and a scratch path of its own, .build-otel (swift-otel takes minutes to
## build, so the default build never includes it); with TEST_BUILD=1, on make test's build in
## .build-test, which has the trait.
test-otel: setup-tests
	$(ASAN_ENV) SWIFT=$(SWIFT) scripts/test.sh tests-otel $(SKIP_BUILD) \
	    $(if $(TEST_BUILD),$(TEST_BUILD_FLAGS),--traits OTel --scratch-path .build-otel) --filter ReboundExportTests

## The tests under the thread sanitizer, in a scratch path of its own, without the trait OTel: as
## under the address sanitizer, the suite four tests at a time, then the end-to-end tests.
test-tsan: setup-tests
	TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions $$TSAN_OPTIONS" SWIFT=$(SWIFT) \
		scripts/test.sh tests-tsan --sanitize=thread --scratch-path .build-tsan $(PARALLEL_TESTS) \
		--skip FaultMatrixTests --skip CurlTransportScaleTests --skip '^EndToEndTests\.'
	TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions $$TSAN_OPTIONS" SWIFT=$(SWIFT) \
		scripts/test.sh end-to-end-tsan --sanitize=thread --scratch-path .build-tsan --filter '^EndToEndTests\.'
	TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions $$TSAN_OPTIONS" SWIFT=$(SWIFT) \
		scripts/test.sh scale-tsan --sanitize=thread --scratch-path .build-tsan --filter CurlTransportScaleTests
	TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions $$TSAN_OPTIONS" SWIFT=$(SWIFT) \
		scripts/test.sh fault-matrix-tsan --sanitize=thread --scratch-path .build-tsan --filter FaultMatrixTests

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Examples Benchmarks/TransportBenchmark Benchmarks/DecodingBenchmark Benchmarks/Reliability Benchmarks/AsyncHTTPClientBenchmark/Package.swift Benchmarks/AsyncHTTPClientBenchmark/Sources Benchmarks/OverloadScenario

## The libraries' DocC documentation, in .build/docs/<module>.doccarchive; any warning (a broken
## link, an undocumented parameter) fails it. scripts/docs.py runs DocC on the symbol graphs of the
## debug build, as SwiftPM's DocC plugin would on a build of its own (seconds, against more than a
## minute and a half for the plugin's).
docs: setup
	$(SWIFT) build $(BUILD_FLAGS)
	scripts/docs.py --scratch-path $(SCRATCH)

## Every ```swift block of README.md, docs/ and the DocC catalog, type-checked page by page
## against the debug build (scripts/check-samples.py).
samples: setup
	$(SWIFT) build $(BUILD_FLAGS)
	scripts/check-samples.py --scratch-path $(SCRATCH) $(if $(TEST_BUILD),--traits OTel)

## The public API of each library product as sorted text in api/ (scripts/api-summary.py);
## `make test` fails when the built API differs from it, so a public change is always deliberate.
api: setup
	$(SWIFT) build $(BUILD_FLAGS)
	scripts/api-summary.py --scratch-path $(SCRATCH)

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Examples Benchmarks/TransportBenchmark Benchmarks/DecodingBenchmark Benchmarks/Reliability Benchmarks/AsyncHTTPClientBenchmark/Package.swift Benchmarks/AsyncHTTPClientBenchmark/Sources Benchmarks/OverloadScenario

## Release-mode transport benchmark against nginx, C libcurl and URLSession (see docs/performance.md).
benchmark: setup
	scripts/benchmark-transport.sh

## Instructions per successful in-process call through the three built-in handlers, counted by
## callgrind (Debian 13's valgrind, fetched into .build-valgrind; see docs/performance.md).
instructions: setup
	SWIFT=$(SWIFT) scripts/instructions.sh

## `rebound report --json` (release build) beside a plain Python script on a generated corpus of
## 500,000 reports: seconds, MB/s and peak memory of each (see docs/performance.md).
benchmark-report: setup
	scripts/benchmark-report.sh
