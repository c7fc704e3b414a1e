# Hayanagi - one Makefile for the whole tree, with automatic header dependencies.
#
#   make          optimised engine at build/hayanagi
#   make run      build and start the engine (USI on stdin/stdout; make's own output goes to stderr)
#   make install  PREFIX=/usr/local (and DESTDIR): the engine and its book, see below
#   make test     install missing Debian packages, build, run every test (also under ASan+UBSan)
#   make bench    benchmarks (never part of make test); BIGBOOK_N=100000000 for the 10^8
#                 book of bench/bigbook.sh (about 45 GB of disk in BIGBOOK_DIR, over an hour)
#   make lint     include layers (tests/lint/layers.sh), one-way calls in src/cli (cli_graph.sh), clang-format check and cppcheck
#   make fuzz     build the libFuzzer targets (clang) into build/fuzz/
#
# ARCH=avx2 or ARCH=portable overrides the CPU detection. The release flavour is built
# with $(CC) (gcc by default) and the sanitized one with $(SAN_CC) (clang by default), so
# `make test` proves the tree clean under both compilers; a third, portable flavour
# (no AVX2/BMI2) runs the bitboard and perft tests to keep the fallback honest.

CC      ?= cc
ifeq ($(origin CC),default)
CC      := cc
endif

# Quiet builds: one short line per file (`CC src/...`); `make V=1` prints the full commands.
ifeq ($(V),1)
Q     :=
say    = @true
else
Q     := @
say    = @printf '  %-6s %s\n' '$(1)' '$(2)'
endif
ARCH    ?= $(shell grep -qw bmi2 /proc/cpuinfo 2>/dev/null && grep -qw avx2 /proc/cpuinfo && echo avx2 || echo portable)
ifeq ($(ARCH),avx2)
ARCHFLAGS := -mavx2 -mbmi -mbmi2 -mpopcnt
else
ARCHFLAGS :=
endif

SAN_CC  ?= clang
WARN    := -Wall -Wextra -Wpedantic -Werror
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
CFLAGS_COMMON := $(CSTD) $(WARN) -Isrc -Ibuild/gen -pthread -MMD -MP
LDLIBS  := -pthread -lm -lprotobuf-c

PKGS    := libcmocka-dev clang libclang-rt-14-dev fairy-stockfish gpsshogi gpsshogi-data cppcheck clang-format \
           libprotobuf-c-dev protobuf-c-compiler

# Protocol Buffers schemas (proto/*.proto) compile with protoc-c into build/gen/proto/, which
# is on the include path; the generated C is part of the library in every flavour.
PROTO_C  := build/gen/proto/sbk.pb-c.c
PROTO_H  := $(PROTO_C:.c=.h)
LIB_SRC  := $(filter-out src/cli/main.c,$(shell find src -name '*.c' | sort)) $(PROTO_C)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))

# Two flavours share one rule set: release (build/rel) and sanitized (build/asan).
REL_CFLAGS  := $(CFLAGS_COMMON) -O3 -g $(ARCHFLAGS) -DNDEBUG
ASAN_CFLAGS := $(CFLAGS_COMMON) -O1 -g $(ARCHFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=all
ASAN_LDFLAGS := -fsanitize=address,undefined

PORT_CFLAGS := $(CFLAGS_COMMON) -O2 -g -DNDEBUG

REL_LIB_OBJ  := $(LIB_SRC:%.c=build/rel/%.o)
PORT_LIB_OBJ := $(LIB_SRC:%.c=build/port/%.o)
PORT_TESTS   := build/port/tests/test_bitboard build/port/tests/test_perft
ASAN_LIB_OBJ := $(LIB_SRC:%.c=build/asan/%.o)
REL_TESTS    := $(TEST_SRC:tests/unit/%.c=build/rel/tests/%)
ASAN_TESTS   := $(TEST_SRC:tests/unit/%.c=build/asan/tests/%)
BENCHES      := $(BENCH_SRC:bench/%.c=build/rel/bench/%)

.SECONDARY:
.PHONY: all run install uninstall test test-port test-rel test-asan bench lint format fuzz deps clean
all: build/hayanagi build/book/standard_book.db

# The engine finds its default book through BookDir "book" next to the executable.
build/book/standard_book.db: book/standard_book.db
	@mkdir -p $(@D)
	$(call say,CP,$@)
	$(Q)cp $< $@

build/gen/proto/%.pb-c.c build/gen/proto/%.pb-c.h: proto/%.proto
	@mkdir -p build/gen
	@command -v protoc-c >/dev/null || { echo "protoc-c not found: run 'make deps' first (make run and make test do)" >&2; exit 1; }
	$(call say,PROTOC,$<)
	$(Q)protoc-c --c_out=build/gen $<

# Order-only: on a clean tree every object waits for the generated headers; afterwards the
# .d files track who includes them.
build/rel/%.o: %.c | $(PROTO_H)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(REL_CFLAGS) -c $< -o $@

build/asan/%.o: %.c | $(PROTO_H)
	@mkdir -p $(@D)
	$(call say,CC-SAN,$<)
	$(Q)$(SAN_CC) $(ASAN_CFLAGS) -c $< -o $@

build/port/%.o: %.c | $(PROTO_H)
	@mkdir -p $(@D)
	$(call say,CC-PRT,$<)
	$(Q)$(CC) $(PORT_CFLAGS) -c $< -o $@

build/port/tests/%: build/port/tests/unit/%.o $(PORT_LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS) -lcmocka

build/hayanagi: build/rel/src/cli/main.o $(REL_LIB_OBJ)
	$(call say,LD,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS)

build/asan/book/standard_book.db: book/standard_book.db
	@mkdir -p $(@D)
	$(call say,CP,$@)
	$(Q)cp $< $@

build/asan/hayanagi: build/asan/src/cli/main.o $(ASAN_LIB_OBJ)
	$(call say,LD,$@)
	$(Q)$(SAN_CC) $(ASAN_LDFLAGS) $^ -o $@ $(LDLIBS)

build/rel/tests/%: build/rel/tests/unit/%.o $(REL_LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS) -lcmocka

build/asan/tests/%: build/asan/tests/unit/%.o $(ASAN_LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(SAN_CC) $(ASAN_LDFLAGS) $^ -o $@ $(LDLIBS) -lcmocka

build/rel/bench/%: build/rel/bench/%.o build/rel/bench/common.o $(REL_LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS)

# stdout belongs to the engine (a GUI may run `make run`): everything make says goes to
# stderr, and the engine is started without an echo of its command line.
run:
	@$(MAKE) --no-print-directory $(PARALLEL) deps build/hayanagi build/book/standard_book.db >&2
	@exec ./build/hayanagi

# The engine finds its book (BookDir "book") and its net (EvalDir "eval") beside its real
# executable (/proc/self/exe), so both go to $(PREFIX)/lib/hayanagi and bin/hayanagi is a
# relative symlink to it: the installed engine finds its book from any directory.
PREFIX  ?= /usr/local
LIBDIR_HY := $(DESTDIR)$(PREFIX)/lib/hayanagi
install: build/hayanagi build/book/standard_book.db
	install -d $(LIBDIR_HY)/book $(DESTDIR)$(PREFIX)/bin
	install -m 755 build/hayanagi $(LIBDIR_HY)/hayanagi
	install -m 644 build/book/standard_book.db $(LIBDIR_HY)/book/standard_book.db
	ln -sfn ../lib/hayanagi/hayanagi $(DESTDIR)$(PREFIX)/bin/hayanagi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hayanagi $(LIBDIR_HY)/hayanagi $(LIBDIR_HY)/book/standard_book.db
	-rmdir $(LIBDIR_HY)/book $(LIBDIR_HY) 2>/dev/null

# Missing Debian packages are installed when we are root; otherwise we say what to install.
deps:
	@missing=""; for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing" >&2; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else echo "please install:$$missing (sudo apt-get install -y$$missing)" >&2; exit 1; fi; \
	fi

# `make test` and `make run` build in parallel (one job per core) unless make was already
# given -j; so every CI run, on a clean clone, is also a parallel build from scratch.
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
PARALLEL  = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))

# The three flavours' summaries are repeated at the end, so a passing run ends with them
# in view (the build lines scroll by above); the last line is the total.
test: deps
	@rm -f build/logs/summary.*
	@$(MAKE) --no-print-directory $(PARALLEL) test-port
	@$(MAKE) --no-print-directory $(PARALLEL) test-rel
	@$(MAKE) --no-print-directory $(PARALLEL) test-asan
	@tests/summarize.sh portable release sanitized

test-port: $(PORT_TESTS)
	@HAYANAGI=build/hayanagi tests/run_tests.sh portable --no-e2e $(PORT_TESTS)

test-rel: build/hayanagi build/book/standard_book.db $(REL_TESTS)
	@HAYANAGI=build/hayanagi tests/run_tests.sh release $(REL_TESTS)

test-asan: build/asan/hayanagi build/asan/book/standard_book.db $(ASAN_TESTS)
	@HAYANAGI=build/asan/hayanagi HAYANAGI_SANITIZED=1 tests/run_tests.sh sanitized $(ASAN_TESTS)

BIGBOOK_N ?= 1000000
BIGBOOK_DIR ?= /tmp/hayanagi_bigbook
bench: build/hayanagi $(BENCHES) build/rel/bench/peers_driver
	@bench/run_bench.sh $(BENCHES)
	@bench/bench_grow.sh
	@bench/peers.sh
	@HAYANAGI=build/hayanagi bench/bigbook.sh $(BIGBOOK_N) $(BIGBOOK_DIR)

# classic_weights.c is written by `hayanagi tune fit` (its table inside clang-format off):
# clang-format takes some 14 GB of memory on its 730 kB, so it is left out
FORMAT_FILES = $(filter-out src/eval/classic_weights.c,$(shell find src tests bench fuzz -name '*.[ch]' | sort))
lint:
	bash tests/lint/layers.sh src
	bash tests/lint/cli_graph.sh src
	$(call say,FORMAT,$(words $(FORMAT_FILES)) files)
	$(Q)clang-format --dry-run -Werror $(FORMAT_FILES)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --std=c11 \
	  --suppress=missingIncludeSystem -Isrc src

format:
	clang-format -i $(FORMAT_FILES)

# The fuzz flavour: the library objects are compiled once (build/fuzzlib/, instrumented for
# libFuzzer without its main) and every target links against them.
FUZZ_CFLAGS  := $(CFLAGS_COMMON) -g -O1 $(ARCHFLAGS) -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build/fuzzlib/%.o)
fuzz: $(FUZZ_SRC:fuzz/%.c=build/fuzz/%)
build/fuzzlib/%.o: %.c | $(PROTO_H)
	@mkdir -p $(@D)
	$(call say,CC-FUZ,$<)
	$(Q)clang $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/%: build/fuzzlib/fuzz/%.o $(FUZZ_LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)clang -fsanitize=fuzzer,address,undefined $^ -o $@ $(LDLIBS)

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
