# streamlab: plain GNU make.  `make run` opens the workbench, `make test` runs
# every test under prove.  Missing Debian packages are installed when run as
# root; otherwise the one apt command to run is printed.

PKGS     := lua5.4 rdkafka ncursesw readline liblz4 snappy libzstd zlib
DEB_PKGS := liblua5.4-dev librdkafka-dev libncurses-dev libreadline-dev liblz4-dev libsnappy-dev libzstd-dev zlib1g-dev tmux sqlite3 kcat
CC       ?= cc
OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wformat=2
BUILD    ?= build

# plain `make` builds the program (the deps check below is a file target
# and would otherwise be the first goal)
.DEFAULT_GOAL := all

# ---- dependency bootstrap (runs before anything is compiled) ----
# The check is a file target so it runs once per build dir, not on every make.
$(BUILD)/.deps-ok:
	@mkdir -p $(BUILD)
	@missing=""; \
	for p in $(PKGS); do pkg-config --exists $$p || missing="$$missing $$p"; done; \
	for c in tmux sqlite3 prove; do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	  echo "streamlab: missing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "streamlab: installing: $(DEB_PKGS)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq $(DEB_PKGS) pkg-config perl >/dev/null || \
	      { echo "streamlab: apt-get install failed"; exit 1; }; \
	  else \
	    echo "streamlab: run: sudo apt-get update && sudo apt-get install -y $(DEB_PKGS)"; \
	    exit 1; \
	  fi; \
	fi
	@touch $@

ifneq ($(MAKECMDGOALS),clean)
DEPS_READY := $(shell [ -f $(BUILD)/.deps-ok ] && echo yes)
endif
ifeq ($(DEPS_READY),yes)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
endif

CFLAGS   += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -MMD -MP -Iengine -Ilua -Irepl
LDLIBS   += -lm -lpthread

ENGINE_SRC := $(sort $(wildcard engine/*/*.c))
ENGINE_HDR := $(sort $(wildcard engine/*/*.h))
LUA_SRC    := $(sort $(wildcard lua/*.c))
REPL_SRC   := $(sort $(wildcard repl/*.c))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
LUA_OBJ    := $(LUA_SRC:%.c=$(BUILD)/%.o)
REPL_OBJ   := $(REPL_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(sort $(wildcard tests/unit/t*.c))
UNIT_BIN   := $(UNIT_SRC:%.c=$(BUILD)/%)
# tests/fuzz: libFuzzer targets; `make test` replays their corpus (fuzz.h)
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay-%)
TOOL_BIN   := $(BUILD)/tests/tools/parquet-tool

# streamlab is phony: the sub-make decides whether to relink.
.PHONY: streamlab units duckdb test-readers all run test bench bench-peers bench-engine tidy-run asan valgrind tidy format format-check layers compdb clean deps fuzz asan-quick check-units

all: deps streamlab

deps: $(BUILD)/.deps-ok

# Re-invoke make once the packages are known to be there, so pkg-config
# flags are read after a fresh install.
streamlab: $(BUILD)/.deps-ok
	@$(MAKE) --no-print-directory DEPS_READY=yes $(BUILD)/streamlab
	@cp $(BUILD)/streamlab streamlab.tmp && mv -f streamlab.tmp streamlab

$(BUILD)/streamlab: $(REPL_OBJ) $(LUA_OBJ) $(BUILD)/libengine.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(REPL_OBJ) $(LUA_OBJ) $(BUILD)/libengine.a $(PKG_LIBS) $(LDLIBS)

$(BUILD)/libengine.a: $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/engine/%.o: engine/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The Kafka files (engine/kafka/, the Kafka source and sink) see librdkafka.
KAFKA_SRC := $(sort $(wildcard engine/kafka/*.c engine/*/kafka_*.c))
$(KAFKA_SRC:%.c=$(BUILD)/%.o): CFLAGS += $(shell pkg-config --cflags rdkafka)

$(BUILD)/lua/%.o: lua/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/repl/%.o: repl/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c tests/tap.h $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/libengine.a $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/fuzz/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz -DFUZZ_NAME=$* -o $@ $< tests/fuzz/replay.c $(BUILD)/libengine.a $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libengine.a $(PKG_LIBS) $(LDLIBS)

# After streamlab: two sub-makes at once (make -j2 streamlab units) would
# both rebuild libengine.a, one removing it while the other links.
units: $(BUILD)/.deps-ok streamlab
	@$(MAKE) --no-print-directory DEPS_READY=yes $(UNIT_BIN) $(REPLAY_BIN) $(TOOL_BIN)

# DuckDB, the independent Parquet reader and writer of the tests: npm's
# @duckdb/node-api under $(BUILD)/node_modules, when node is there.
DUCKDB_JS := $(BUILD)/node_modules/@duckdb/node-api/package.json
$(DUCKDB_JS):
	@if ! command -v node >/dev/null 2>&1; then \
	  echo "streamlab: node not found: the DuckDB tests will skip"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  mkdir -p $(BUILD) && npm install --silent --no-audit --no-fund --prefix $(BUILD) @duckdb/node-api || \
	    echo "streamlab: npm install @duckdb/node-api failed: the DuckDB tests will skip"; \
	else \
	  echo "streamlab: run: npm install --prefix $(BUILD) @duckdb/node-api"; \
	fi

duckdb: $(DUCKDB_JS)

test-readers: streamlab units duckdb
	@LC_ALL=C TZ=UTC STREAMLAB=$(CURDIR)/streamlab BUILD=$(BUILD) \
	  prove --exec tests/run1 tests/repl/040-parquet-duckdb.t tests/repl/041-seed-lake-duckdb.t \
	    tests/repl/042-partition-duckdb.t

run: streamlab
	./streamlab

# Every kind of test, TAP, under one prove run: tests/run1 dispatches by
# file type (C unit binary, Lua script, Perl .t).
test: streamlab units duckdb
	@LC_ALL=C TZ=UTC STREAMLAB=$(CURDIR)/streamlab BUILD=$(BUILD) \
	  prove -j2 --exec tests/run1 $(UNIT_BIN) $(REPLAY_BIN) $(sort $(wildcard tests/lua/*.lua)) \
	    $(sort $(wildcard tests/repl/*.t tests/tui/*.t))

$(BUILD)/bench/%: bench/%.c $(BUILD)/libengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O3 -DNDEBUG -o $@ $< $(BUILD)/libengine.a $(PKG_LIBS) $(LDLIBS)

# make bench: every workload of BENCH.md as a Lua script through
# `streamlab run bench/wN.lua`, beside the hand-written C loop
# (bench/peer_loop.c) and DuckDB on one thread (when `make bench-peers`
# has installed it), interleaved rounds, medians and ratios (bench/run.pl).
# BENCH_ROUNDS=N rounds (3); BENCH_ONLY=W1,W2-json runs only those.
# make bench-engine: the C harnesses that build their plans in C.
BENCH_ROUNDS ?= 3
BENCH_ONLY   ?=
ENGINE_BENCH := bench/bench bench/stream_bench bench/kafka_bench
bench: streamlab
	@$(MAKE) --no-print-directory DEPS_READY=yes $(BUILD)/bench/peer_loop $(BUILD)/bench/kafka_bench $(BUILD)/bench/stream_bench
	@nice perl bench/run.pl $(CURDIR)/streamlab $(BUILD) $(BENCH_ROUNDS) $(BENCH_ONLY)

bench-peers: $(DUCKDB_JS)

bench-engine: streamlab
	@$(MAKE) --no-print-directory DEPS_READY=yes $(ENGINE_BENCH:%=$(BUILD)/%)
	@for b in $(ENGINE_BENCH:%=$(BUILD)/%); do $$b || exit 1; done

ASAN_OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan:
	$(MAKE) BUILD=build-asan OPT="$(ASAN_OPT)" LDFLAGS="-fsanitize=address,undefined" test

# The C units, the fuzz corpus replays and the Lua scripts under ASan +
# UBSan (what .ci/run adds after `make test`: a memory error cannot land).
asan-quick:
	$(MAKE) BUILD=build-asan OPT="$(ASAN_OPT)" LDFLAGS="-fsanitize=address,undefined" check-units

# Tests that need no terminal or long fault runs, against $(BUILD)'s own
# program (not ./streamlab, which stays the plain build).
check-units: $(BUILD)/.deps-ok
	@$(MAKE) --no-print-directory DEPS_READY=yes $(BUILD)/streamlab $(UNIT_BIN) $(REPLAY_BIN)
	@LC_ALL=C TZ=UTC STREAMLAB=$(CURDIR)/$(BUILD)/streamlab BUILD=$(BUILD) \
	  prove -j2 --exec tests/run1 $(UNIT_BIN) $(REPLAY_BIN) $(sort $(wildcard tests/lua/*.lua))

# libFuzzer over every target for FUZZ_S seconds each (clang, ASan +
# UBSan), starting from the checked-in corpus; what it finds lands in
# build-fuzz/crashes/NAME/ (copy a crash into tests/fuzz/corpus/NAME/ as
# crash-<what> once fixed, and `make test` replays it from then on).
# FUZZ_ONLY="sql sqlexpr" runs only those targets.
FUZZ_S  ?= 60
FUZZ_CC ?= clang
FUZZ_ONLY ?= $(FUZZ_NAMES)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: needs clang (apt-get install -y clang)"; exit 1; }
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" build-fuzz/libengine.a
	@set -e; for t in $(FUZZ_ONLY); do \
	  mkdir -p build-fuzz/corpus/$$t build-fuzz/crashes/$$t; \
	  cp -n tests/fuzz/corpus/$$t/* build-fuzz/corpus/$$t/ 2>/dev/null || true; \
	  $(FUZZ_CC) -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -Iengine -Itests/fuzz \
	    -o build-fuzz/fuzz-$$t tests/fuzz/fuzz_$$t.c build-fuzz/libengine.a $(LDLIBS) $$(pkg-config --libs $(PKGS)); \
	  echo "fuzz: $$t for $(FUZZ_S) s"; \
	  build-fuzz/fuzz-$$t -max_total_time=$(FUZZ_S) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix=build-fuzz/crashes/$$t/ -print_final_stats=1 build-fuzz/corpus/$$t 2>&1 | \
	    grep -E "^(stat::|#[0-9]+.*DONE|==[0-9]+==ERROR|SUMMARY|artifact)" || true; \
	done

valgrind: streamlab units
	@for t in $(UNIT_BIN); do valgrind -q --error-exitcode=9 --leak-check=full $$t >/dev/null || exit 1; done
	@echo "valgrind: unit tests clean"

# clang-tidy with the checks in .clang-tidy; flags read after the
# dependency check so a fresh clone finds lua.h.
tidy: $(BUILD)/.deps-ok
	@$(MAKE) --no-print-directory DEPS_READY=yes tidy-run

tidy-run:
	clang-tidy --quiet $(ENGINE_SRC) $(LUA_SRC) $(REPL_SRC) -- -std=c11 -D_GNU_SOURCE -Iengine -Ilua -Irepl $(PKG_CFLAGS)

format:
	clang-format -i $(ENGINE_SRC) $(LUA_SRC) $(REPL_SRC) $(ENGINE_HDR) lua/*.h repl/*.h

format-check:
	clang-format --dry-run --Werror $(ENGINE_SRC) $(LUA_SRC) $(REPL_SRC) $(ENGINE_HDR) lua/*.h repl/*.h

# The layering rule of STYLE.md, checked by grep.
layers:
	@sh tests/layers.sh

compdb:
	bear -- $(MAKE) -B all

clean:
	rm -rf build build-asan build-fuzz streamlab

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
