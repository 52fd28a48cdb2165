# The AArch64 firmware build (make ARCH=aarch64): build/aarch64/baremetric.efi with Debian's cross
# gcc (gcc-aarch64-linux-gnu) and gnu-efi's arm64 start-up files, unpacked by scripts/deps.sh into
# $(BUILD)/deps/gnu-efi-arm64 (Debian's gnu-efi cannot be installed for two architectures at once).
# Included from the Makefile when ARCH=aarch64, after the x86_64 lists: it replaces the firmware's
# source list, toolchain and flags; the hosted build and the unit tests stay the host's (x86_64).
#
# gnu-efi 3.0.15's crt0-efi-aarch64.o carries its own PE/COFF header (objcopy has no efi-app-aarch64
# target there): the .so is linked with EFI_SUBSYSTEM defined, copied out as a flat binary, and
# padded to _edata — without the padding the header's sizes point past the file's end and AAVMF
# rejects the image as "Unsupported".

CROSS        := aarch64-linux-gnu-
FW_CC        := $(CROSS)gcc
FW_LD        := $(CROSS)ld
FW_OBJCOPY   := $(CROSS)objcopy
FW_NM        := $(CROSS)nm
DEPS_BUILD   := build-aarch64
EFI_BOOT_NAME := BOOTAA64.EFI
DEPS_RUN     := run-aarch64

GNU_EFI_A64  := $(BUILD)/deps/gnu-efi-arm64
EFI_INC      := $(GNU_EFI_A64)/usr/include/efi
EFI_LIB      := $(GNU_EFI_A64)/usr/lib
EFI_CRT0     := $(EFI_LIB)/crt0-efi-aarch64.o
EFI_LDS      := efi/baremetric_aarch64.lds
EFI_SUBSYSTEM_APP := 0xa

# As the x86_64 flags, without the x86 ones (red zone, ms_abi); no FP/SIMD registers in the
# firmware (-mgeneral-regs-only); no outline atomics (they would call into libgcc); no unaligned
# accesses the compiler invents (device memory would fault on them).
FW_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fpic \
	-fno-stack-protector -fno-stack-check -fshort-wchar -mgeneral-regs-only -mno-outline-atomics \
	-mstrict-align -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
	-DBUILD_ID='"$(BUILD_ID)"' \
	-I. -I$(GEN) -I$(EFI_INC) -I$(EFI_INC)/aarch64
FW_LDFLAGS := -nostdlib -shared -Bsymbolic -znocombreloc --build-id=sha1 -T $(EFI_LDS) -L$(EFI_LIB) \
	--defsym=EFI_SUBSYSTEM=$(EFI_SUBSYSTEM_APP)
# gnu-efi's crt0 calls _relocate (libgnuefi's reloc_aarch64.c: R_AARCH64_RELATIVE only); libefi
# is not linked (efi/efi_util.c sets ST and BS, as on x86_64).
FW_LIBS := -lgnuefi
FW_RELATIVE_RELOC := R_AARCH64_RELATIVE

# The AArch64 sources: CPU specifics in arch/aarch64/, the portable lib/, drivers and bench/ units,
# efi/main.c with efi/platform_aarch64.c as the entry. Every probe of the x86_64 build is built here.
A64_ARCH_SRC   := arch/aarch64/tsc.c arch/aarch64/cpu_info.c arch/aarch64/id_regs.c arch/aarch64/id_decode.c arch/aarch64/traps.c \
	arch/aarch64/entry.S arch/aarch64/psci.c arch/aarch64/probe_ops.S \
	arch/aarch64/chase.S arch/aarch64/walk.c arch/aarch64/paging.c arch/aarch64/membw.S arch/aarch64/simd.c \
	arch/aarch64/smp.c arch/aarch64/ap_start.S arch/smp_all.c arch/smp_jobs.c
A64_ARCH_SRC   += arch/aarch64/cache_ops.c arch/aarch64/icache_gen.c arch/aarch64/icache_chain.c
A64_ARCH_SRC   += arch/aarch64/pmu.c arch/aarch64/pmu_encode.c arch/aarch64/pmu_plan.c arch/aarch64/insn_count.c
A64_ARCH_SRC   += arch/aarch64/irq.c arch/irq_table.c
A64_ARCH_SRC   += arch/aarch64/sysreg_safe.c arch/aarch64/sysreg_safe.S arch/aarch64/sysreg_gate.c
A64_ARCH_SRC   += arch/aarch64/mops.S
A64_ARCH_SRC   += arch/aarch64/work_clock.c
A64_ARCH_SRC   += arch/aarch64/pmu_pmi.c arch/aarch64/pmu_pmi_plan.c
A64_DRIVER_SRC := drivers/pl011.c drivers/acpi.c drivers/smbios.c drivers/prof_sampler_a64.c drivers/prof_sampler_common.c efi/image_id.c
A64_DRIVER_SRC += drivers/madt.c drivers/madt_gicc.c
A64_DRIVER_SRC += drivers/gicv3.c drivers/gicv3_hw.c drivers/irq_platform_a64.c drivers/gtimer.c drivers/gtimer_hw.c
A64_DRIVER_SRC += drivers/a64_platform_id.c
A64_BENCH_SRC  := bench/arena.c bench/calibrate.c bench/suite.c bench/summary.c bench/timer.c \
	bench/runner.c bench/counters.c bench/spin.c \
	bench/latency.c bench/mem_buffers.c bench/sweep.c bench/chain.c bench/noise.c bench/gap_detect.c \
	bench/membw.c \
	bench/fault_probes.c bench/platform_aarch64.c bench/platform_caches.c \
	bench/profile.c bench/prof_table.c bench/prof_period.c bench/prof_split.c
A64_BENCH_SRC  += bench/smp_probe.c bench/membw_mc.c bench/smp_facts.c bench/smp_facts_a64.c
A64_BENCH_SRC  += bench/cachefill.c bench/platform_a64_mem.c bench/membw_verify.c
A64_BENCH_SRC  += bench/pmu_probes.c bench/pmu_check_judge.c bench/platform_a64pmu.c
A64_BENCH_SRC  += bench/platform_a64sysreg.c
A64_EFI_SRC    := efi/main.c efi/platform_aarch64.c efi/efi_util.c efi/boot_options.c efi/discover.c efi/exit_bs.c \
	efi/facts.c
A64_EFI_SRC    += efi/smp_boot_a64.c
A64_BENCH_SRC  += bench/irq_common.c bench/irq_latency.c bench/irq_exception.c bench/irq_context_a64.c
A64_EFI_SRC    += efi/irq_boot_a64.c
# irq_displace (work on the PMU cycle counter: arch/aarch64/work_clock.c) and irq_footprint
# (PMUv3 miss counters where PMCEID offers them, else timed)
A64_BENCH_SRC  += bench/irq_displace.c bench/displace_stats.c
A64_BENCH_SRC  += bench/irq_footprint.c bench/fp_stats.c bench/fp_calib.c bench/fp_pmu.c bench/fp_code.c
FW_SRC := $(LIB_SRC) lib/string.c $(A64_ARCH_SRC) $(A64_DRIVER_SRC) $(A64_BENCH_SRC) $(A64_EFI_SRC)

$(OUT)/baremetric.efi: $(OUT)/baremetric.so
	$(FW_OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .rodata -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc -j .note.gnu.build-id -O binary \
		--pad-to=0x$$($(FW_NM) $< | awk '$$3 == "_edata" { print $$1 }') $< $@
	@# Keep every build's ELF by its build id: the profiler's symbols for older runs' logs.
	@id=$$($(CROSS)readelf -n $< | sed -n 's/.*Build ID: *//p'); mkdir -p $(OUT)/elf; cp $< $(OUT)/elf/$$id.elf
