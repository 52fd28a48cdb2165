# baremetric — build, image, run and test. `make help` lists the targets.

ARCH        := x86_64
BUILD       := build
OUT         := $(BUILD)/$(ARCH)
GEN         := $(BUILD)/gen
PY          := /usr/bin/python3
HARNESS     := harness/baremetric

EFI_INC     := /usr/include/efi
EFI_LIB     := /usr/lib
EFI_CRT0    := $(EFI_LIB)/crt0-efi-$(ARCH).o
# gnu-efi's linker script plus a .relr section (see the file).
EFI_LDS     := efi/baremetric.lds
FONT_PSF    := /usr/share/consolefonts/Lat15-Fixed16.psf.gz

BUILD_ID    := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# The firmware's toolchain (mk/aarch64.mk replaces it for ARCH=aarch64).
FW_CC       := gcc
FW_LD       := ld
FW_OBJCOPY  := objcopy
FW_NM       := nm
DEPS_BUILD  := build
FW_LIBS     :=
FW_RELATIVE_RELOC := R_X86_64_RELATIVE
EFI_BOOT_NAME := BOOTX64.EFI
DEPS_RUN    := run
IMAGE_MIB   := 64

# Freestanding, warnings as errors, no SSE anywhere in the firmware (interrupt and fault paths must
# not touch vector state); GNU-EFI calling convention via ms_abi.
FW_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fpic \
	-fno-stack-protector -fno-stack-check -fshort-wchar -mno-red-zone -mgeneral-regs-only \
	-maccumulate-outgoing-args -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
	-DGNU_EFI_USE_MS_ABI -DBUILD_ID='"$(BUILD_ID)"' \
	-I. -I$(GEN) -I$(EFI_INC) -I$(EFI_INC)/$(ARCH)
# -z pack-relative-relocs: pointer relocations as a packed DT_RELR table (efi/relocate.c applies it).
# --build-id: the profiler states it (efi/image_id.c reads the note), the harness finds the ELF by it.
FW_LDFLAGS := -nostdlib -shared -Bsymbolic -znocombreloc -z pack-relative-relocs --build-id=sha1 -T $(EFI_LDS)

LIB_SRC     := lib/crc32.c lib/fmt.c lib/record.c lib/emit.c lib/config.c lib/sort.c lib/rand.c lib/intmath.c
ARCH_SRC    := arch/x86_64/tsc.c arch/x86_64/traps.c arch/x86_64/cpu_info.c arch/x86_64/entry.S \
	arch/x86_64/probe_ops.S \
	arch/x86_64/membw.S arch/x86_64/simd.c arch/x86_64/icache_chain.c arch/x86_64/paging.c \
	arch/x86_64/smp.c arch/smp_all.c arch/smp_jobs.c arch/x86_64/ap_start.S arch/x86_64/irq.c arch/irq_table.c arch/x86_64/irq_entry.S \
	arch/x86_64/pmu.c arch/x86_64/pmu_events.c arch/x86_64/pmu_hw.c arch/x86_64/insn_count_hw.c \
	arch/x86_64/pmu_freerun.c arch/x86_64/pmu_quirks.c arch/x86_64/pmu_plan.c
ARCH_SRC    += arch/x86_64/trap_names.c arch/x86_64/irq_raise.c
ARCH_SRC    += arch/x86_64/pmu_pmi.c
DRIVER_SRC  := drivers/uart16550.c drivers/acpi.c drivers/pm_timer.c drivers/hpet.c \
	drivers/power.c drivers/smbios.c drivers/fbcon.c drivers/i8042.c drivers/lapic.c drivers/madt.c \
	drivers/lapic_timer.c drivers/ioapic.c drivers/pic.c drivers/irq_platform.c \
	drivers/lapic_mode.c
DRIVER_SRC  += drivers/prof_sampler.c drivers/prof_sampler_common.c
DRIVER_SRC  += drivers/lapic_perf.c
# The interrupt probes (built hosted too, on the signal stand-ins of hosted/irq_*.c).
IRQ_BENCH_SRC := bench/irq_common.c bench/irq_latency.c bench/irq_exception.c bench/irq_displace.c bench/irq_footprint.c \
	bench/irq_context.c
IRQ_BENCH_SRC += bench/displace_stats.c
BENCH_SRC   := bench/arena.c bench/calibrate.c bench/runner.c bench/suite.c bench/summary.c \
	bench/timer.c bench/spin.c bench/fault_probes.c bench/platform.c bench/platform_caches.c bench/tsc_cal.c \
	bench/sweep.c bench/chain.c bench/mem_buffers.c bench/membw.c bench/latency.c bench/cachefill.c \
	bench/smp_probe.c bench/smp_facts.c bench/smp_facts_x86.c bench/membw_mc.c bench/counters.c bench/pmu_probes.c \
	bench/gap_detect.c bench/noise.c $(IRQ_BENCH_SRC) \
	bench/fp_stats.c bench/fp_calib.c \
	bench/fp_pmu.c \
	bench/fp_code.c \
	bench/pmu_check_judge.c
BENCH_SRC   += bench/profile.c bench/prof_table.c bench/prof_period.c bench/prof_split.c
EFI_SRC     := efi/main.c efi/platform_x86_64.c efi/efi_util.c efi/boot_options.c efi/discover.c efi/exit_bs.c \
	efi/facts.c efi/finish.c efi/lowmem.c efi/smp_boot.c efi/irq_boot.c \
	efi/apic_mode_boot.c \
	efi/madt_boot.c \
	efi/relocate.c
EFI_SRC     += efi/image_id.c
FW_SRC      := $(LIB_SRC) lib/string.c $(ARCH_SRC) $(DRIVER_SRC) $(BENCH_SRC) $(EFI_SRC)
# The lists above are x86_64's (the hosted build and the unit tests use them whatever ARCH is);
# another ARCH replaces the firmware's FW_SRC, toolchain and flags in mk/$(ARCH).mk.
ifneq ($(ARCH),x86_64)
include mk/$(ARCH).mk
endif
FW_OBJ      := $(patsubst %,$(OUT)/obj/%.o,$(FW_SRC))
# Compiled for size (-Os): code that runs only before or after the measurements, never inside a
# timed window (the UEFI layer, option parsing, record formatting and the serial line, table
# parsers, CPU identification, counter planning, the report and the statistics on finished
# samples). Probes, timed kernels and what they call while timing (arch/, drivers/ on the
# interrupt paths, the runner and calibration) stay -O2. Keeps the .efi small (see README).
FW_SIZE_SRC := $(EFI_SRC) lib/fmt.c lib/record.c lib/emit.c lib/config.c lib/crc32.c lib/sort.c \
	drivers/uart16550.c drivers/acpi.c drivers/smbios.c drivers/madt.c drivers/fbcon.c drivers/power.c \
	drivers/i8042.c drivers/lapic_mode.c \
	arch/x86_64/cpu_info.c arch/x86_64/pmu_events.c arch/x86_64/pmu_plan.c arch/x86_64/pmu_quirks.c \
	bench/summary.c bench/smp_facts.c bench/smp_facts_x86.c bench/suite.c bench/pmu_check_judge.c bench/displace_stats.c \
	bench/fp_stats.c
$(patsubst %,$(OUT)/obj/%.o,$(FW_SIZE_SRC)): FW_CFLAGS += -Os

# Host unit tests: the portable units compiled for Linux.
UNIT_SRC    := tests/unit/run_tests.c tests/unit/test_crc32.c tests/unit/test_fmt.c \
	tests/unit/test_record.c tests/unit/test_config.c tests/unit/test_calibrate.c \
	tests/unit/test_tsc_cal.c tests/unit/test_sort.c tests/unit/test_acpi.c tests/unit/test_smbios.c \
	tests/unit/test_memory.c tests/unit/test_madt.c tests/unit/test_pmu.c tests/unit/pmu_model.c \
	tests/unit/test_counters.c tests/unit/test_irq_drivers.c tests/unit/regmodel.c \
	tests/unit/test_gap_detect.c tests/unit/test_irq_platform.c \
	tests/unit/test_fp_stats.c \
	tests/unit/test_fp_pmu.c \
	tests/unit/test_icache_pair.c \
	tests/unit/test_pmu_vendor.c \
	tests/unit/test_lapic_mode.c
UNIT_SRC    += tests/unit/test_displace_stats.c
UNIT_SRC    += tests/unit/test_a64_decode.c tests/unit/test_a64_walk.c
UNIT_SRC    += tests/unit/test_a64_cache.c
UNIT_SRC    += tests/unit/test_prof_table.c
UNIT_SRC    += tests/unit/test_pmu_pmi.c
UNIT_SRC    += tests/unit/test_madt_gicc.c
UNIT_SRC    += tests/unit/test_a64_pmu.c
UNIT_SRC    += tests/unit/test_a64_sysreg.c
UNIT_SRC    += tests/unit/test_gicv3.c tests/unit/test_gtimer.c
UNIT_SRC    += tests/unit/test_a64_irq2.c
UNIT_SRC    += tests/unit/test_a64_pmi.c
UNIT_SRC    += tests/unit/test_a64_platform_id.c
UNIT_UNDER  := lib/crc32.c lib/fmt.c lib/record.c lib/emit.c lib/config.c lib/sort.c lib/rand.c lib/intmath.c \
	bench/calibrate.c bench/tsc_cal.c bench/sweep.c bench/chain.c bench/gap_detect.c drivers/acpi.c \
	drivers/smbios.c drivers/madt.c drivers/lapic.c drivers/lapic_timer.c drivers/ioapic.c drivers/pic.c \
	drivers/hpet.c drivers/irq_platform.c arch/x86_64/pmu.c arch/x86_64/pmu_events.c arch/x86_64/tsc.c \
	bench/arena.c bench/runner.c bench/counters.c \
	bench/fp_stats.c \
	bench/fp_pmu.c \
	arch/x86_64/icache_chain.c \
	arch/x86_64/pmu_freerun.c arch/x86_64/pmu_quirks.c arch/x86_64/pmu_plan.c bench/pmu_check_judge.c \
	drivers/lapic_mode.c
UNIT_UNDER  += bench/displace_stats.c
UNIT_UNDER  += arch/aarch64/id_decode.c arch/aarch64/walk.c
UNIT_UNDER  += arch/aarch64/icache_gen.c
UNIT_UNDER  += bench/prof_table.c bench/prof_period.c
UNIT_UNDER  += arch/x86_64/pmu_pmi.c drivers/lapic_perf.c
UNIT_UNDER  += drivers/madt_gicc.c
UNIT_UNDER  += arch/aarch64/pmu_encode.c arch/aarch64/pmu_plan.c
UNIT_UNDER  += drivers/gicv3.c drivers/gtimer.c
UNIT_UNDER  += arch/aarch64/sysreg_gate.c
UNIT_UNDER  += arch/aarch64/pmu_pmi_plan.c
UNIT_UNDER  += drivers/a64_platform_id.c
UNIT_BIN    := $(BUILD)/host/unit_tests

.PHONY: all image image-aarch64 run test unit pytest integration deps clean help
all: $(OUT)/baremetric.efi

help:
	@echo "make            build $(OUT)/baremetric.efi"
	@echo "make image      build $(OUT)/baremetric.img (GPT + FAT32 ESP, dd it onto a USB stick)"
	@echo "make ... ARCH=aarch64   the same for AArch64 (build/aarch64/, BOOTAA64.EFI; QEMU virt + AAVMF)"
	@echo "make run [SET=\"key=value ...\"]   build, boot under QEMU + OVMF, print the report (results/<run-id>/)"
	@echo "make test       unit tests (C, Python) and QEMU integration tests"
	@echo "make unit | pytest | integration   one part of the tests"
	@echo "make hosted     build build/hosted/baremetric: the probes as a Linux program (stdout: records)"
	@echo "make run-hosted [ARGS=\"key=value ...\"]   run it here, parse and report into results/"

deps-%:
	@BAREMETRIC_BUILD=$(BUILD) scripts/deps.sh $*

$(GEN)/font8x16.h: scripts/psf2c.py | deps-build
	@mkdir -p $(GEN)
	$(PY) scripts/psf2c.py $(FONT_PSF) $@

$(OUT)/obj/%.c.o: %.c $(GEN)/font8x16.h | deps-$(DEPS_BUILD)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -MMD -MP -c $< -o $@

$(OUT)/obj/%.S.o: %.S | deps-$(DEPS_BUILD)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -c $< -o $@

# No libefi or libgnuefi: efi/efi_util.c and efi/relocate.c stand in for the little this program
# used of them (their device-path and printing code was ~27 KB of the .efi), so a libefi call
# fails here as an undefined symbol. (AArch64: FW_LIBS = gnu-efi's _relocate, see mk/aarch64.mk.)
$(OUT)/baremetric.so: $(FW_OBJ) $(EFI_LDS)
	$(FW_LD) $(FW_LDFLAGS) $(EFI_CRT0) $(FW_OBJ) -o $@ $(FW_LIBS)
	@# Any undefined symbol would only fail at load time in the firmware: refuse it here.
	@if $(FW_NM) -u $@ | grep -v -e '^ *w ' | grep -q .; then $(FW_NM) -u $@; echo "undefined symbols" >&2; exit 1; fi
	@# The relocator applies relative relocations only: refuse any other kind here.
	@if readelf -rW $@ | awk '/^ *[0-9a-f]+ +[0-9a-f]+ R_/ && $$3 != "$(FW_RELATIVE_RELOC)"' | grep -q .; then \
		readelf -rW $@; echo "relocations other than $(FW_RELATIVE_RELOC)" >&2; exit 1; fi

ifeq ($(ARCH),x86_64)
# Only what the loaded image uses: _relocate (efi/relocate.c) reads .dynamic for the .rela and
# .relr tables and applies relative relocations, which name no symbol, so .dynsym stays behind
# (and .dynstr always did). --strip-all drops the COFF symbol table objcopy would otherwise write
# (~30 KB): symbols are for the host, which reads them from baremetric.so.
$(OUT)/baremetric.efi: $(OUT)/baremetric.so
	objcopy -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .rel -j .rela -j .relr \
		-j '.rel.*' -j '.rela.*' -j .reloc -j .note.gnu.build-id --strip-all \
		--target=efi-app-$(ARCH) --subsystem=10 $< $@
	@# Keep the unstripped ELF of every build, named by its build id: the profiler's symbols.
	@id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); mkdir -p $(OUT)/elf; cp $< $(OUT)/elf/$$id.elf
endif

image: $(OUT)/baremetric.img
$(OUT)/baremetric.img: $(OUT)/baremetric.efi scripts/mkimage.sh | deps-image
	scripts/mkimage.sh $< $@ $(IMAGE_MIB) $(EFI_BOOT_NAME)

# make run [SET="profile=membw samples=32"]: each word becomes a --set of the harness.
run: image | deps-$(DEPS_RUN)
	$(PY) $(HARNESS) run --arch $(ARCH) $(foreach s,$(SET),--set $(s))

$(UNIT_BIN): $(UNIT_SRC) $(UNIT_UNDER) $(wildcard tests/unit/*.h lib/*.h bench/*.h drivers/*.h arch/*.h arch/x86_64/*.h arch/aarch64/*.h)
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -I. \
		$(UNIT_SRC) $(UNIT_UNDER) -o $@

unit: $(UNIT_BIN)
	$(UNIT_BIN)

pytest: | deps-test
	$(PY) -m pytest -q tests/python

# The AArch64 image, for tests/integration/test_qemu_aarch64.py.
image-aarch64:
	$(MAKE) ARCH=aarch64 image

integration: image image-aarch64 hosted | deps-test
	$(PY) -m pytest -q tests/integration

test: deps-test
	$(MAKE) unit
	$(MAKE) pytest
	$(MAKE) integration

clean:
	rm -rf $(BUILD)

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

include mk/hosted.mk
