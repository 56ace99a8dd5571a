# Thin wrapper over meson. Every target installs missing Debian packages first.
BUILD ?= build

FUZZ_SECONDS ?= 20
# `make test` fuzzes a fixed number of inputs from a fixed seed (the verdict does not hang on
# machine speed or luck; thread-side coverage still varies the corpus a little);
# `make fuzz` explores with a random seed for FUZZ_SECONDS per target.
FUZZ_RUNS ?= 250000

.PHONY: all deps test-deps build demo docs test tsan fuzz bench install clean

all: build

# What the library, the sensim command and `make demo` need; `make test`
# adds cmocka, numpy, Slurm, clang, valgrind, chromium and the test npm packages.
deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

# Tests are configured in when cmocka is installed (make test installs it and turns them on).
$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --buildtype=debugoptimized -Dtests=$$(pkg-config --exists cmocka && echo true || echo false)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Main job: procedural street scene, Pandar64 on a car roof, one frame to PLY.
demo: build
	$(BUILD)/src/cli/sensim demo --out out/demo

# API reference from the public headers (Doxygen): $(BUILD)/docs/html/index.html.
# Warnings are errors, so an undocumented public function, field, macro or type fails it.
docs:
	@scripts/install-deps.sh docs
	@mkdir -p $(BUILD)/docs
	SENSIM_DOCS_OUT=$(BUILD)/docs doxygen docs/Doxyfile
	@echo "docs: $(BUILD)/docs/html/index.html"

SAN_BUILD ?= build-sanitize

# Whole test suite (scripts/test_suite.sh): the API reference with warnings as errors; the
# suite (cmocka, Python, CLI end-to-end, every command and code block of README.md and docs/,
# headers, exported symbols, the installed SDK, corpus replays, Slurm array); the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer; the concurrency tests under
# ThreadSanitizer; every libFuzzer target for FUZZ_RUNS inputs from seed 1. Every stage runs
# and reports even when an earlier one failed; the summary names each stage's verdict.
test: test-deps
	@BUILD=$(BUILD) SAN_BUILD=$(SAN_BUILD) FUZZ_RUNS=$(FUZZ_RUNS) MAKE="$(MAKE)" scripts/test_suite.sh

# Threads scanning one scene, edits during scans, forbidden threading,
# cancel and rig transactions, and the image sink's encoder threads
# (tests/test_sinks.c), under ThreadSanitizer, TSAN_RUNS times: the
# scene race that failed 3 clean-clone runs in 10 fails 20 runs with
# probability 1 - 0.7^20 = 99.9 %, a 1-in-10 race with 1 - 0.9^20 = 88 %.
# The runs go side by side, one per core (each is its own process). Then the
# Python thread-safety tests (every class owning native state, two threads,
# 100 rounds) with the instrumented library in an uninstrumented interpreter
# (libtsan preloaded).
# tests/tsan.supp leaves Embree's own malloc/free uninstrumented (its TBB
# workers allocate what the caller frees; TSan cannot see TBB's ordering).
TSAN_RUNS ?= 20
tsan: test-deps
	@[ -f build-tsan/build.ninja ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dtests=true >/dev/null
	meson compile -C build-tsan sensim:shared_library test_concurrency test_sinks
	@c=0; seq $(TSAN_RUNS) | xargs -P $$(nproc) -I{} sh -c 'for t in concurrency sinks; do \
	  SENSIM_PRESET_PATH=$(CURDIR)/scan_patterns \
	    TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	    build-tsan/tests/test_$$t > build-tsan/$$t.{}.log 2>&1 \
	    || { cat build-tsan/$$t.{}.log; echo "tsan: test_$$t run {} of $(TSAN_RUNS) failed"; exit 1; }; \
	  rm -f build-tsan/$$t.{}.log; done' \
	  && echo "tsan: test_concurrency and test_sinks passed $(TSAN_RUNS) runs under ThreadSanitizer, $$(nproc) at a time" \
	  || c=1; \
	cd python && SENSIM_LIBRARY=$(CURDIR)/build-tsan/libsensim.so SENSIM_PRESET_PATH=$(CURDIR)/scan_patterns \
	  LD_PRELOAD=$$(gcc -print-file-name=libtsan.so) \
	  TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  /usr/bin/python3 -m unittest tests.test_threads_shared > ../build-tsan/python.log 2>&1 \
	  && echo "tsan: python/tests/test_threads_shared.py passed under ThreadSanitizer (the library instrumented)" \
	  || { cat ../build-tsan/python.log; echo "tsan: python/tests/test_threads_shared.py failed"; c=1; }; \
	exit $$c

fuzz: test-deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

$(SAN_BUILD)/build.ninja: | test-deps
	meson setup $(SAN_BUILD) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dtests=true

bench: test-deps build
	meson configure $(BUILD) -Dtests=true
	meson test -C $(BUILD) --benchmark --verbose

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) build-fuzz build-tsan out
