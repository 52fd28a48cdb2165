# The hosted build: the same lib/ and bench/ sources (and the unprivileged arch/ code) as a Linux
# program, build/hosted/baremetric. Included from the Makefile after LIB_SRC, ARCH_SRC and
# BENCH_SRC are defined: new probes and arch files added there are picked up here, except the ones
# that need the bare machine (descriptor tables and IDT stubs, port-I/O drivers, efi/).

HOSTED_OUT    := $(BUILD)/hosted
HOSTED_BIN    := $(HOSTED_OUT)/baremetric

# Normal user-space code: libc, SSE allowed; warnings as errors like the firmware.
HOSTED_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-strict-aliasing \
	-DBUILD_ID='"$(BUILD_ID)"' -I.

# traps.c/entry.S are the firmware's IDT and recovery points: replaced by traps_hosted.c.
# probe_ops.S (arch_spin, the provoke routines) is listed once whether or not ARCH_SRC has it.
# smp.c/ap_start.S start processors through the APIC: replaced by smp_hosted.c (pinned threads).
# pmu_hw.c (MSRs, rdpmc: ring 0) is replaced by pmu_hosted.c, which reports the PMU unavailable;
# insn_count_hw.c (pmu_check's counter) by insn_count_hosted.c, which uses perf_event.
# irq.c/irq_entry.S take interrupts: replaced by hosted/irq_signal.c (signals stand in for them).
HOSTED_ARCH_SRC := $(filter-out arch/x86_64/traps.c arch/x86_64/entry.S arch/x86_64/probe_ops.S \
	arch/x86_64/smp.c arch/x86_64/ap_start.S arch/x86_64/pmu_hw.c arch/x86_64/insn_count_hw.c \
	arch/x86_64/irq.c arch/x86_64/irq_entry.S,$(ARCH_SRC)) \
	arch/x86_64/probe_ops.S arch/x86_64/traps_hosted.c arch/x86_64/smp_hosted.c arch/x86_64/pmu_hosted.c \
	arch/x86_64/insn_count_hosted.c
# The interrupt probes (IRQ_BENCH_SRC) are built here too. Their environment: the arch/irq.h
# interface (handlers by vector, masking, the hlt wait) in hosted/irq_signal.c, and the
# drivers/irq_platform.h sources (drivers/irq_platform.c programs the APIC/HPET: not built here)
# in hosted/irq_sources.c.
HOSTED_IRQ_SRC := hosted/irq_signal.c hosted/prof_sampler.c \
	hosted/irq_sources.c \
	hosted/irq_facts.c
HOSTED_SRC    := $(LIB_SRC) $(HOSTED_ARCH_SRC) $(BENCH_SRC) $(HOSTED_IRQ_SRC) \
	hosted/main.c hosted/setup.c hosted/facts.c
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
	gcc $(HOSTED_CFLAGS) $(HOSTED_OBJ) -pthread -o $@

hosted-test: hosted
	$(PY) -m pytest -q tests/integration/test_hosted.py

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
