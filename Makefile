# Thin wrapper over meson. Every target installs missing Debian packages first.
BUILD ?= build

.PHONY: all deps build demo test bench install clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --buildtype=debugoptimized

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Main job: procedural street scene, Pandar64 on a car roof, one frame to PLY.
demo: build
	$(BUILD)/src/cli/sensim demo --out out/demo

# Whole test suite (cmocka, CLI end-to-end, headers, exported symbols).
test: build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	meson test -C $(BUILD) --benchmark --verbose

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) out
