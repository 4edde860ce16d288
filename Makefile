# Couchbase Lite for Swift on Linux. `make demo` and `make test` are the two commands a fresh
# machine needs (README.md); everything else is for day-to-day work.
SWIFT ?= swift
DEBIAN_PACKAGES := libsqlite3-dev librocksdb-dev libssl-dev libstemmer-dev zlib1g-dev sqlite3 pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test tsan tsan-subset soak fuzz demo tools bench bench-record docs clean

## deps: installs the Debian packages the build links against (only those missing).
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## test: the whole suite, in one run; every storage behaviour runs once per engine. Replication
## and the listener run on threads of their own, and tests with time limits take the
## `.ownThreads` trait, so nothing waits for the cooperative pool that the CPU-heavy synchronous
## suites hold (docs/decisions.md, Replication-31).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## tsan: the whole suite under the thread sanitizer (its own build folder); any report fails it
## (.tsan-suppressions lists the one known false positive of the Swift runtime). The suites with
## time limits run first, by themselves: beside the CPU-heavy suites, which the sanitizer slows
## tenfold, they get too little CPU to finish in time (docs/reliability.md). Time budgets stretch
## sixfold under the sanitizer (Tests/TestSupport/TestTimeScale.swift). TSAN_FILTER narrows it.
## tsan-subset: the concurrency-heavy suites only, which is what fits CI's 90 minutes.
TSAN_FILTER ?= .
TSAN_SUBSET := LiteReplicatorTests|BLIPTests|BLIPWebSocketTests|FaultInjectionTests|HeartbeatTests|LiveQuery|Listener|NetworkReplication|LocalReplication|StreamingImport|SoakTests|BlobStreaming|ConnectionFault|FullTextModel
TSAN_TIMED := HeartbeatTests|FaultInjectionTests|ContinuousPullDeletionTests|BLIPWebSocketTests|MessageBodyFuzzTests|BusyApplicationTests|RevisionsInFlightTests
TSAN_RUN = TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/.tsan-suppressions" \
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(TSAN_RUN) --filter "$(TSAN_TIMED)"
	$(TSAN_RUN) --filter "$(TSAN_FILTER)" --skip "$(TSAN_TIMED)"
tsan-subset:
	$(MAKE) tsan TSAN_FILTER="$(TSAN_SUBSET)"

## soak: the soak test for SOAK_SECONDS (default 600): replication through a connection-dropping
## proxy, writers and readers, a live query and a SIGKILLed writer process (docs/reliability.md).
soak: deps
	$(SWIFT) build --build-tests
	SOAK_SECONDS=$${SOAK_SECONDS:-600} $(SWIFT) test --skip-build --filter SoakTests

## fuzz: every decoder's fuzzer in its long mode, FUZZ_SECONDS (default 600) each, one after
## another; the figures go to FUZZ_REPORT (default .build/fuzz-report.txt).
fuzz: deps
	$(SWIFT) build --build-tests
	for suite in FleeceTests.FuzzTests SharedKeysFuzzTests JSONDeltaFuzzTests RevisionTreeFuzzTests FrameFuzzTests UpgradeRequestFuzzTests MessageBodyFuzzTests \
	             QueryParserFuzzTests MatchSyntaxFuzzTests LegacyRowFuzzTests; do \
	  FUZZ_SECONDS=$${FUZZ_SECONDS:-600} FUZZ_REPORT=$${FUZZ_REPORT:-.build/fuzz-report.txt} \
	    $(SWIFT) test --skip-build --filter "$$suite" || exit 1; \
	done

## demo: the getting-started example (create a database, save, update and read a document).
demo: deps
	$(SWIFT) run getting-started

## tools: release builds of cblite (and its cblite-replicate), cblite-convert and cblite-bench with the Swift runtime and
## Foundation linked in (no dynamic loading of them at start-up: see docs/decisions.md, Tools-9), and
## libCRocksDBEncryption.so beside them, which they load to open an encrypted RocksDB database (Storage-27).
tools: deps
	for product in cblite cblite-replicate cblite-convert cblite-bench CRocksDBEncryption; do \
	  $(SWIFT) build -c release --static-swift-stdlib --product $$product || exit 1; done

## bench: every benchmark area, release build, ratios against baselines run in the same process
## (the `cli` area runs the tools as processes).
bench: tools
	.build/release/cblite-bench all

## bench-record: as bench, and writes the tables into docs/performance.md.
bench-record: tools
	.build/release/cblite-bench all --markdown docs/performance.md

## docs: the DocC documentation of CouchbaseLiteSwift; its articles follow the 2.0 guide and
## their code is GuideExamplesTests' (checked by GuideArticleTests in `make test`).
docs: deps
	$(SWIFT) package --disable-sandbox generate-documentation --target CouchbaseLiteSwift
	@echo "open .build/plugins/Swift-DocC/outputs/CouchbaseLiteSwift.doccarchive (or add --transform-for-static-hosting)"

clean:
	rm -rf .build
