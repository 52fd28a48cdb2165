# The hosted build: the same lib/, arch/ and bench/ sources as the firmware, with hosted/ as the
# environment, as a Linux program, build/hosted/baremetric. Sources by the Makefile's rule, for the
# host's CPU; what needs the bare machine is left out by where it lives: efi/ and drivers/ (the
# bare-metal environment and its devices) and arch/priv/ (descriptor tables, interrupt entry, other
# processors' start, ring-0 counters). hosted/ implements those contracts (arch/traps.h, arch/irq.h,
# arch/smp.h, the PMU's hardware operations, bench/core/irq_platform.h, bench/profile/sampler.h) on
# Linux: signals for interrupts and faults, pinned threads for processors, perf_event for counters.
#
# HOSTED_CPU=aarch64 (make hosted-aarch64): the same for AArch64 Linux, cross-compiled with Debian's
# gcc-aarch64-linux-gnu into build/hosted-aarch64/baremetric, linked statically so that qemu-aarch64
# (user mode) runs it without an arm64 sysroot; what needs EL1 lives in arch/priv/aarch64 and is
# replaced by hosted/aarch64 (refusals with reasons, like the MSRs on x86_64).
HOSTED_CPU    := x86_64
ifeq ($(HOSTED_CPU),x86_64)
HOSTED_OUT    := $(BUILD)/hosted
HOSTED_CC     := gcc
HOSTED_LDFLAGS :=
else
HOSTED_OUT    := $(BUILD)/hosted-$(HOSTED_CPU)
HOSTED_CC     := $(HOSTED_CPU)-linux-gnu-gcc
HOSTED_LDFLAGS := -static
endif
HOSTED_BIN    := $(HOSTED_OUT)/baremetric

# Normal user-space code: libc, SSE allowed; warnings as errors like the firmware. The CPU's
# part of each arch/ contract through the include path, as in the firmware (the Makefile's CPU_INC).
HOSTED_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-strict-aliasing \
	-DBUILD_ID='"$(BUILD_ID)"' -I. -Iarch/$(HOSTED_CPU)/include -I$(GEN)

HOSTED_DIRS   := $(filter-out arch/priv%,$(call src_dirs,lib arch bench)) $(call src_dirs,hosted)
HOSTED_SRC    := $(call sources_in,$(HOSTED_DIRS),$(HOSTED_CPU))
HOSTED_OBJ    := $(patsubst %,$(HOSTED_OUT)/obj/%.o,$(HOSTED_SRC))

.PHONY: hosted hosted-aarch64 hosted-test run-hosted
hosted: $(HOSTED_BIN) registry

# The AArch64 hosted build (tests/integration/test_hosted_aarch64.py runs it under qemu-aarch64).
hosted-aarch64: | deps-hosted-aarch64
	$(MAKE) --no-print-directory hosted HOSTED_CPU=aarch64

$(HOSTED_OUT)/obj/hosted/main.c.o: $(BUILD_ID_FILE)
$(HOSTED_OUT)/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(HOSTED_CC) $(HOSTED_CFLAGS) -MMD -MP -c $< -o $@

$(HOSTED_OUT)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(HOSTED_CC) $(HOSTED_CFLAGS) -c $< -o $@

# The generated PMU event tables (the Makefile's PMU_EVENTS_GEN).
$(HOSTED_OUT)/obj/arch/x86_64/pmu_events.c.o: $(PMU_EVENTS_GEN)

$(HOSTED_BIN): $(HOSTED_OBJ)
	$(HOSTED_CC) $(HOSTED_CFLAGS) $(HOSTED_LDFLAGS) -Wl,--build-id=sha1 $(HOSTED_OBJ) -pthread -o $@
	@# Keep every build's binary by its build id: the profiler's symbols for older runs' logs.
	@id=$$(readelf -n $@ | sed -n 's/.*Build ID: *//p'); mkdir -p $(HOSTED_OUT)/elf; cp $@ $(HOSTED_OUT)/elf/$$id.elf

# The registry's unit checks need every probe: the unit runner linked with the hosted objects but
# main and the one suite that needs them (tests/hosted/test_registry.c). Run by `make unit`.
REGISTRY_TEST := $(HOSTED_OUT)/registry_tests
REGISTRY_TEST_OBJ := $(filter-out $(HOSTED_OUT)/obj/hosted/main.c.o,$(HOSTED_OBJ))

.PHONY: unit-registry
$(REGISTRY_TEST): tests/hosted/test_registry.c tests/unit/run_tests.c tests/unit/test.h $(REGISTRY_TEST_OBJ)
	gcc $(HOSTED_CFLAGS) tests/unit/run_tests.c tests/hosted/test_registry.c \
		$(REGISTRY_TEST_OBJ) -pthread -o $@

unit-registry: $(REGISTRY_TEST)
	$(REGISTRY_TEST)

hosted-test: hosted
	$(PY) -m pytest -q tests/integration/test_hosted.py

# make hosted-prof-test: checks of the profiler's hosted sampling sources on this machine's CPU
# (tests/hosted/test_prof_sampler.c): a known 30/70 split recovered within 2 points, a worker
# thread's samples, the fallbacks, the overhead at the default period; the image's build id
# against readelf's. Pins itself to the last allowed CPU; about 40 s.
HOSTED_PROF_TEST     := $(HOSTED_OUT)/test_prof_sampler
HOSTED_PROF_TEST_SRC := tests/hosted/test_prof_sampler.c hosted/prof_sampler.c hosted/prof_image.c \
	hosted/smp.c arch/x86_64/cpu_info.c arch/x86_64/cache_judge.c hosted/$(HOSTED_CPU)/msr.c hosted/$(HOSTED_CPU)/signal_frame.c \
	arch/x86_64/trap_names.c \
	lib/rand.c bench/profile/period.c

.PHONY: hosted-prof-test
$(HOSTED_PROF_TEST): $(HOSTED_PROF_TEST_SRC) bench/profile/sampler.h bench/profile/period.h
	@mkdir -p $(dir $@)
	gcc $(HOSTED_CFLAGS) $(HOSTED_PROF_TEST_SRC) -pthread -o $@

hosted-prof-test: $(HOSTED_PROF_TEST)
	@out=$$($(HOSTED_PROF_TEST)); rc=$$?; echo "$$out"; \
	want=$$(readelf -n $(HOSTED_PROF_TEST) | sed -n 's/.*Build ID: //p'); \
	got=$$(echo "$$out" | sed -n 's/^build_id=//p'); \
	if [ -z "$$want" ] || [ "$$want" != "$$got" ]; then echo "FAIL build_id: readelf '$$want', program '$$got'"; exit 1; fi; \
	echo "PASS build_id: the program's matches readelf's"; exit $$rc

# make run-hosted [ARGS="probes=timer,spin,membw samples=32"]: run on this machine, then parse and
# report into results/hosted-<UTC time>/ (hosted.log is the raw record stream). Exit status: the
# program's (0 ok, 1 fail, 2 fatal), or the harness's when the log has problems.
run-hosted: hosted
	@d=results/hosted-$$(date -u +%Y%m%d-%H%M%S); mkdir -p $$d; \
	echo "running $(HOSTED_BIN) $(ARGS) > $$d/hosted.log"; \
	$(HOSTED_BIN) $(ARGS) > $$d/hosted.log; rc=$$?; \
	$(PY) $(HARNESS) parse $$d/hosted.log --out $$d && $(PY) $(HARNESS) report $$d || exit $$?; \
	echo "results in $$d"; exit $$rc

-include $(shell find $(HOSTED_OUT)/obj -name '*.d' 2>/dev/null)
