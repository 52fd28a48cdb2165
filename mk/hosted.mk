# The hosted build: the same lib/ and bench/ sources (and the unprivileged arch/ code) as a Linux
# program, build/hosted/baremetric. Included from the Makefile after LIB_SRC, ARCH_SRC and
# BENCH_SRC are defined: new probes and arch files added there are picked up here, except the ones
# that need the bare machine (descriptor tables and IDT stubs, port-I/O drivers, efi/).

HOSTED_OUT    := $(BUILD)/hosted
HOSTED_BIN    := $(HOSTED_OUT)/baremetric

# Normal user-space code: libc, SSE allowed; warnings as errors like the firmware.
HOSTED_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-strict-aliasing \
	-DBUILD_ID='"$(BUILD_ID)"' -I.

# Files that need the bare machine are swapped for the hosted platform's, which lives in hosted/
# (CPU-neutral) and hosted/$(HOSTED_CPU)/ (the CPU's side of Linux signals, stubs for ring-0-only
# interfaces of that CPU); arch/ keeps only CPU specifics, shared by both builds.
# traps.c/entry.S are the firmware's IDT and recovery points: replaced by hosted/traps.c (fault
# signals) with hosted/x86_64/signal_frame.c (the frame's registers) and hosted/x86_64/msr.c (MSRs
# refused). probe_ops.S (arch_spin, the provoke routines) is listed once whether or not ARCH_SRC has it.
# smp.c/ap_start.S start processors through the APIC and smp_jobs.c dispatches to them: replaced by
# hosted/smp.c (pinned threads).
# pmu_hw.c (MSRs, rdpmc: ring 0) is replaced by hosted/x86_64/pmu_ops.c, which reports the PMU
# unavailable; insn_count_hw.c (pmu_check's counter) by hosted/insn_count.c, which uses perf_event.
# irq.c/irq_table.c/irq_entry.S take interrupts: replaced by hosted/irq_signal.c (signals stand in for them).
HOSTED_CPU    := x86_64
HOSTED_ARCH_SRC := $(filter-out arch/x86_64/traps.c arch/x86_64/entry.S arch/x86_64/probe_ops.S \
	arch/x86_64/smp.c arch/smp_jobs.c arch/x86_64/ap_start.S arch/x86_64/pmu_hw.c arch/x86_64/insn_count_hw.c \
	arch/x86_64/irq.c arch/irq_table.c arch/x86_64/irq_entry.S,$(ARCH_SRC)) \
	arch/x86_64/probe_ops.S
HOSTED_PLATFORM_SRC := hosted/traps.c hosted/smp.c hosted/insn_count.c \
	hosted/$(HOSTED_CPU)/signal_frame.c hosted/$(HOSTED_CPU)/msr.c hosted/$(HOSTED_CPU)/pmu_ops.c
# The interrupt probes (IRQ_BENCH_SRC) are built here too. Their environment: the arch/irq.h
# interface (handlers by vector, masking, the hlt wait) in hosted/irq_signal.c, and the
# drivers/irq_platform.h sources (drivers/irq_platform.c programs the APIC/HPET: not built here)
# in hosted/irq_sources.c.
HOSTED_IRQ_SRC := hosted/irq_signal.c \
	hosted/irq_sources.c \
	hosted/irq_facts.c
# The profiler's sampling sources (drivers/prof_sampler.h): drivers/prof_sampler.c (the APIC's
# perf LVT and one-shot timer) is replaced by hosted/prof_sampler.c (perf_event, CPU-time timers)
# whichever list it is in; hosted/prof_image.c gives the executable's base and build id.
HOSTED_PROF_SRC := hosted/prof_sampler.c \
	hosted/prof_image.c
HOSTED_SWAPPED_OUT := drivers/prof_sampler.c drivers/prof_sampler_common.c
HOSTED_SRC    := $(filter-out $(HOSTED_SWAPPED_OUT),$(LIB_SRC) $(HOSTED_ARCH_SRC) $(BENCH_SRC) \
	$(HOSTED_PLATFORM_SRC) $(HOSTED_IRQ_SRC)) \
	$(HOSTED_PROF_SRC) hosted/main.c hosted/setup.c hosted/facts.c
HOSTED_OBJ    := $(patsubst %,$(HOSTED_OUT)/obj/%.o,$(HOSTED_SRC))

.PHONY: hosted hosted-test run-hosted
hosted: $(HOSTED_BIN)

$(HOSTED_OUT)/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	gcc $(HOSTED_CFLAGS) -MMD -MP -c $< -o $@

$(HOSTED_OUT)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	gcc $(HOSTED_CFLAGS) -c $< -o $@

$(HOSTED_BIN): $(HOSTED_OBJ)
	gcc $(HOSTED_CFLAGS) -Wl,--build-id=sha1 $(HOSTED_OBJ) -pthread -o $@
	@# Keep every build's binary by its build id: the profiler's symbols for older runs' logs.
	@id=$$(readelf -n $@ | sed -n 's/.*Build ID: *//p'); mkdir -p $(HOSTED_OUT)/elf; cp $@ $(HOSTED_OUT)/elf/$$id.elf

hosted-test: hosted
	$(PY) -m pytest -q tests/integration/test_hosted.py

# make hosted-prof-test: checks of the profiler's hosted sampling sources on this machine's CPU
# (tests/hosted/test_prof_sampler.c): a known 30/70 split recovered within 2 points, a worker
# thread's samples, the fallbacks, the overhead at the default period; the image's build id
# against readelf's. Pins itself to the last allowed CPU; about 40 s.
HOSTED_PROF_TEST     := $(HOSTED_OUT)/test_prof_sampler
HOSTED_PROF_TEST_SRC := tests/hosted/test_prof_sampler.c $(HOSTED_PROF_SRC) \
	hosted/smp.c arch/x86_64/cpu_info.c hosted/$(HOSTED_CPU)/msr.c \
	lib/rand.c bench/prof_period.c

.PHONY: hosted-prof-test
$(HOSTED_PROF_TEST): $(HOSTED_PROF_TEST_SRC) drivers/prof_sampler.h bench/prof_period.h
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
