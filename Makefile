# baremetric — build, image, run and test. `make help` lists the targets.

ARCH        := x86_64
BUILD       := build
OUT         := $(BUILD)/$(ARCH)
GEN         := $(BUILD)/gen
PY          := /usr/bin/python3
HARNESS     := harness/baremetric

FONT_PSF    := /usr/share/consolefonts/Lat15-Fixed16.psf.gz
IMAGE_MIB   := 64

BUILD_ID    := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The begin record's build id is compiled in (-DBUILD_ID, efi/main.c and hosted/main.c): those
# objects depend on this file, rewritten only when the id changes (as build/host/unit_src.list),
# so an incremental build after a commit does not state the older id.
BUILD_ID_FILE := $(BUILD)/build_id
$(shell mkdir -p $(BUILD) && echo '$(BUILD_ID)' | cmp -s - $(BUILD_ID_FILE) || echo '$(BUILD_ID)' > $(BUILD_ID_FILE))

# Which sources a build takes is decided by where they live, never by a list (docs/hacking.md):
# every folder of a layer contributes its own files and those of its subfolder named after the
# CPU being built; the folders named after the other CPUs are left out. A CPU is known by its
# mk/<cpu>.mk (toolchain and flags only), so adding a CPU is that file plus its subfolders.
CPUS        := $(filter-out hosted,$(basename $(notdir $(wildcard mk/*.mk))))
# src_dirs(layers): every folder under the layers except the CPU folders (and what is below them).
src_dirs     = $(shell find $(1) \( $(foreach c,$(CPUS),-name $(c) -o) -false \) -prune -o -type d -print)
# sources_in(dirs, cpu): the C and assembly files of the folders and of their <cpu> subfolders.
sources_in   = $(sort $(foreach d,$(1),$(wildcard $(d)/*.c $(d)/*.S $(d)/$(2)/*.c $(d)/$(2)/*.S)))

# The firmware: every layer. efi/ is the bare-metal environment (the hosted build's is hosted/).
# efi/unpack/ is a program of its own, the packed .efi's start-up (FW_PACK below).
UNPACK_DIR  := efi/unpack
FW_SRC      := $(filter-out $(UNPACK_DIR)/%,$(call sources_in,$(call src_dirs,lib arch drivers bench efi),$(ARCH)))

# The CPU's part of each CPU-neutral contract arch/<name>.h: arch/<cpu>/include/cpu/<name>.h, which
# the contract includes as <cpu/<name>.h> through this include path (as kvm-unit-tests puts
# lib/<arch>/asm/ on its path): the build picks the CPU, no header tests for it. Every CPU folder
# provides the same set (tests/python/test_cpu_neutral.py checks it). The mk/<cpu>.mk files and the
# hosted build (mk/hosted.mk, for HOSTED_CPU) pass it; the host tools below pass UNIT_CPU's.
CPU_INC     := arch/$(ARCH)/include
# The host's unit tests and tools are built for this CPU (their x86_64 units are listed below; the
# AArch64 units they test beside them include their own headers by path, never a contract's
# <cpu/...> part, which is UNIT_CPU's here).
UNIT_CPU    := x86_64
UNIT_INC    := -I. -Iarch/$(UNIT_CPU)/include

# The firmware's toolchain, flags and .efi step: the CPU's own make file.
include mk/$(ARCH).mk
FW_OBJ      := $(patsubst %,$(OUT)/obj/%.o,$(FW_SRC))
# Optimisation by marker, for every CPU alike (memtest86+'s OPT_SMALL/OPT_FAST): a firmware C file
# is compiled for size (-Os) unless it carries a line starting `/* OPT_FAST:` saying why it is
# fast (-O2): probes' timed windows and what runs inside them, the interrupt paths, the profiler's
# sampling path, the other processors' dispatch. Everything else runs before or after the
# measurements (the UEFI layer, options, records, the serial line, table parsers, identification,
# counter planning, the report, the boot stick's USB path) and only has to be small. A file that
# reads the cycle counter without being fast says so with `/* OPT_SMALL: why */`
# (tests/python/test_opt_markers.py holds every file to one or the other).
FW_FAST_SRC := $(shell grep -l '^/\* OPT_FAST:' $(filter %.c,$(FW_SRC)))
$(patsubst %,$(OUT)/obj/%.o,$(filter-out $(FW_FAST_SRC),$(filter %.c,$(FW_SRC)))): FW_CFLAGS += -Os
# Every function and object in a section of its own, and the link keeps only what is reached from
# the entry point (--gc-sections). -shared would export every global and so keep it: hidden
# visibility leaves the linker free to drop what nothing calls (and the code need not go through
# the GOT). The linker scripts KEEP what is reached by no reference (.sbat, .reloc).
FW_CFLAGS   += -ffunction-sections -fdata-sections -fvisibility=hidden
FW_LDFLAGS  += --gc-sections

# Host unit tests: the portable units compiled for Linux.
# Every file of tests/unit/ is linked in; each test file registers its own suite (TEST_SUITE in
# tests/unit/test.h), so the runner keeps no list. Suites run in this (sorted) link order.
UNIT_SRC    := $(sort $(wildcard tests/unit/*.c $(foreach c,$(CPUS),tests/unit/$(c)/*.c)))
# The file list as a prerequisite: a test file removed or renamed relinks the runner too.
UNIT_LIST   := $(BUILD)/host/unit_src.list
$(shell mkdir -p $(dir $(UNIT_LIST)) && echo '$(UNIT_SRC)' | cmp -s - $(UNIT_LIST) || echo '$(UNIT_SRC)' > $(UNIT_LIST))
UNIT_UNDER  := lib/crc32.c lib/lz_unpack.c lib/sha256.c lib/fmt.c lib/record.c lib/emit.c lib/config.c lib/sort.c lib/rand.c lib/intmath.c \
	bench/core/options.c bench/core/registry_names.c \
	bench/core/calibrate.c bench/facts/x86_64/tsc_cal.c bench/probes/mem/sweep.c bench/probes/mem/chain.c bench/stats/gap_detect.c drivers/fw/acpi.c \
	drivers/fw/smbios.c drivers/fw/madt.c drivers/irqchip/x86_64/lapic.c drivers/irqchip/x86_64/lapic_timer.c drivers/irqchip/x86_64/ioapic.c drivers/irqchip/x86_64/pic.c \
	drivers/timer/x86_64/hpet.c bench/core/irq_platform.c efi/x86_64/irq_platform.c arch/x86_64/pmu.c arch/x86_64/pmu_discover.c arch/x86_64/pmu_events.c arch/x86_64/cycles.c \
	bench/core/arena.c bench/core/runner.c bench/core/core_clock.c bench/core/counters.c \
	bench/stats/footprint.c \
	bench/probes/irq/footprint_pmu.c \
	arch/x86_64/icache_chain.c \
	arch/x86_64/pmu_freerun.c arch/x86_64/pmu_quirks.c arch/x86_64/pmu_constraints.c arch/x86_64/pmu_plan.c bench/stats/pmu_check.c \
	drivers/irqchip/x86_64/lapic_mode.c arch/x86_64/tsc_deadline_errata.c bench/probes/irq/x86_64/context.c
UNIT_UNDER  += bench/stats/displace.c bench/facts/ident.c bench/probes/mem/evict_method.c arch/x86_64/cache_judge.c
UNIT_UNDER  += arch/aarch64/id_decode.c arch/aarch64/walk.c arch/aarch64/cache_geom.c
UNIT_UNDER  += arch/aarch64/icache_gen.c arch/aarch64/el2_plan.c
UNIT_UNDER  += bench/profile/table.c bench/profile/period.c bench/profile/extend.c bench/profile/region.c
UNIT_UNDER  += arch/x86_64/pmu_pmi.c drivers/irqchip/x86_64/lapic_perf.c
UNIT_UNDER  += arch/x86_64/dma_granule.c
UNIT_UNDER  += drivers/fw/aarch64/madt_gicc.c
UNIT_UNDER  += arch/aarch64/pmu_encode.c arch/aarch64/pmu_plan.c
UNIT_UNDER  += drivers/irqchip/aarch64/gicv3.c drivers/irqchip/aarch64/gicv2.c drivers/timer/aarch64/gtimer.c
UNIT_UNDER  += drivers/serial/x86_64/uart16550.c
UNIT_UNDER  += arch/aarch64/sysreg_gate.c
UNIT_UNDER  += arch/aarch64/pmu_pmi_plan.c
UNIT_UNDER  += drivers/fw/aarch64/platform_id.c
UNIT_UNDER  += bench/facts/aarch64/emulator.c
UNIT_UNDER  += $(wildcard drivers/storage/*.c drivers/usb/*.c drivers/pci/*.c) drivers/fw/iommu.c
UNIT_UNDER  += bench/core/summary.c bench/core/summary_head.c bench/core/progress.c
UNIT_BIN    := $(BUILD)/host/unit_tests

.PHONY: all image image-aarch64 image-secboot run test check unit pytest integration deps clean help docs registry
all: $(OUT)/baremetric.efi registry

help:
	@echo "make            build $(OUT)/baremetric.efi"
	@echo "make image      build $(OUT)/baremetric.img (GPT + FAT32 ESP, dd it onto a USB stick)"
	@echo "make image SIGN_KEY=key.pem SIGN_CERT=cert.pem   the image with the .efi signed (Secure Boot)"
	@echo "make image SHIM=1   the image with Debian's signed shim loading our signed .efi (docs/secure_boot.md)"
	@echo "make ... ARCH=aarch64   the same for AArch64 (build/aarch64/, BOOTAA64.EFI; QEMU virt + AAVMF)"
	@echo "make run [SET=\"key=value ...\"]   build, boot under QEMU + OVMF, print the report (results/<run-id>/)"
	@echo "make check      the short loop: C unit, Python, the default boot's record shape, a hosted run"
	@echo "make test       unit tests (C, Python) and QEMU integration tests (what CI runs)"
	@echo "make unit | pytest | integration   one part of the tests"
	@echo "make hosted     build build/hosted/baremetric: the probes as a Linux program (stdout: records)"
	@echo "make docs       regenerate docs/options.md from bench/core/options.def and the probe registry"
	@echo "make registry   build/gen/registry.json (probes, options, record types, field classes) for the harness"
	@echo "make run-hosted [ARGS=\"key=value ...\"]   run it here, parse and report into results/"
	@echo "make hosted-aarch64   build build/hosted-aarch64/baremetric for AArch64 Linux (runs under qemu-aarch64)"

deps-%:
	@BAREMETRIC_BUILD=$(BUILD) scripts/deps.sh $*

$(GEN)/font8x16.h: scripts/psf2c.py | deps-build
	@mkdir -p $(GEN)
	$(PY) scripts/psf2c.py $(FONT_PSF) $@

# The x86 PMU's event tables, generated from their data file (docs/hacking.md "PMU event tables")
# for every build that compiles arch/x86_64 (the x86_64 firmware, hosted, the unit tests); only
# arch/x86_64/pmu_events.c (and the unit tests) include them.
PMU_EVENTS_DATA := data/pmu_events_x86.json
PMU_EVENTS_GEN  := $(GEN)/pmu_events_tables.h $(GEN)/pmu_events_tables.inc
$(PMU_EVENTS_GEN) &: $(PMU_EVENTS_DATA) scripts/gen_pmu_events.py
	$(PY) scripts/gen_pmu_events.py $(PMU_EVENTS_DATA) $(GEN)
$(OUT)/obj/arch/x86_64/pmu_events.c.o: $(PMU_EVENTS_GEN)

# registry.json: the probes, options (types, ranges, defaults), record types and probe-record field
# classes the harness reads (harness/bmharness/stream/registry.py), made from the C sources by
# scripts/gen_registry.py on every build (make, make unit, make hosted) and installed as the
# harness's copy, harness/bmharness/registry.json, when it differs. That copy is committed: a fresh
# clone's harness (and `pip install ./harness`) reads it without a build, and
# tests/python/test_registry_json.py fails when it is not what the sources make.
REGISTRY_JSON := harness/bmharness/registry.json
$(GEN)/registry.json: scripts/gen_registry.py scripts/gen_docs.py bench/core/options.h lib/config.h \
		$(shell find lib arch drivers bench efi hosted -name '*.c' -o -name '*.def')
	@mkdir -p $(GEN)
	$(PY) scripts/gen_registry.py $@
$(REGISTRY_JSON): $(GEN)/registry.json
	@if cmp -s $< $@; then touch $@; else cp $< $@ && echo "installed $@ (commit it with the sources)"; fi
registry: $(REGISTRY_JSON)

# The packed .efi (a CPU's make file sets FW_PACK := yes; docs/hacking.md, "Image size"): the
# loaded image of baremetric.so (the sections the plain .efi carries, FW_PE_SECTIONS) compressed by
# scripts/lz_pack.py, linked as data into the start-up program efi/unpack/, which decodes it into
# memory of its own at boot and enters it. The program is linked as the firmware is (the same
# crt0, linker script, self-relocation and .sbat), from its own folder and the few units it uses.
ifeq ($(FW_PACK),yes)
UNPACK_SRC  := $(call sources_in,$(UNPACK_DIR),$(ARCH)) lib/lz_unpack.c lib/crc32.c efi/string.c efi/efi_util.c \
	$(wildcard efi/$(ARCH)/relocate.c)
UNPACK_OBJ  := $(patsubst %,$(OUT)/obj/%.o,$(UNPACK_SRC))
$(patsubst %,$(OUT)/obj/%.o,$(call sources_in,$(UNPACK_DIR),$(ARCH))): FW_CFLAGS += -Os
$(OUT)/packed.bin: $(OUT)/baremetric.so scripts/lz_pack.py
	$(PY) scripts/lz_pack.py $< $@ --sections "$(FW_PE_SECTIONS)"
# (-I binary names the data's symbols after the file: _binary_packed_bin_start and _end)
$(OUT)/packed.o: $(OUT)/packed.bin
	cd $(OUT) && $(FW_OBJCOPY) -I binary -O $(FW_ELF_FORMAT) -B $(FW_BFD_ARCH) \
		--rename-section .data=.rodata.packed,contents,alloc,load,readonly,data \
		--add-section .note.GNU-stack=/dev/null packed.bin packed.o
$(OUT)/unpack.so: $(UNPACK_OBJ) $(OUT)/packed.o $(FW_SBAT_OBJ) $(EFI_LDS)
	$(FW_LD) $(FW_LDFLAGS) $(EFI_CRT0) $(UNPACK_OBJ) $(OUT)/packed.o $(FW_SBAT_OBJ) -o $@ $(FW_LIBS)
	@if $(FW_NM) -u $@ | grep -v -e '^ *w ' | grep -q .; then $(FW_NM) -u $@; echo "undefined symbols" >&2; exit 1; fi
$(OUT)/baremetric.efi: $(OUT)/unpack.so $(OUT)/baremetric-plain.efi
	$(call fw_pe_copy,$<,$@)
endif

$(OUT)/obj/efi/main.c.o: $(BUILD_ID_FILE)
$(OUT)/obj/%.c.o: %.c $(GEN)/font8x16.h | deps-$(DEPS_BUILD)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -MMD -MP -c $< -o $@

$(OUT)/obj/%.S.o: %.S | deps-$(DEPS_BUILD)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -c $< -o $@

# No libefi or libgnuefi: efi/efi_util.c and efi/x86_64/relocate.c stand in for the little this program
# used of them (their device-path and printing code was ~27 KB of the .efi), so a libefi call
# fails here as an undefined symbol. (AArch64: FW_LIBS = gnu-efi's _relocate, see mk/aarch64.mk.)
$(OUT)/baremetric.so: $(FW_OBJ) $(FW_SBAT_OBJ) $(EFI_LDS)
	$(FW_LD) $(FW_LDFLAGS) $(EFI_CRT0) $(FW_OBJ) $(FW_SBAT_OBJ) -o $@ $(FW_LIBS)
	@# Any undefined symbol would only fail at load time in the firmware: refuse it here.
	@if $(FW_NM) -u $@ | grep -v -e '^ *w ' | grep -q .; then $(FW_NM) -u $@; echo "undefined symbols" >&2; exit 1; fi
	@# The relocator applies relative relocations only: refuse any other kind here.
	@if readelf -rW $@ | awk '/^ *[0-9a-f]+ +[0-9a-f]+ R_/ && $$3 != "$(FW_RELATIVE_RELOC)"' | grep -q .; then \
		readelf -rW $@; echo "relocations other than $(FW_RELATIVE_RELOC)" >&2; exit 1; fi

# shim's SBAT data (the .sbat section, x86_64: mk/x86_64.mk): efi/sbat.csv with this build's version
# and the project's address filled in, replaced only when they change (then the .so relinks).
# SBAT_URL: the project has no public address yet; this placeholder is to be replaced by it.
SBAT_URL    := https://github.com/baremetric/baremetric
$(OUT)/sbat.csv: efi/sbat.csv FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@VERSION@|$(BUILD_ID)|' -e 's|@URL@|$(SBAT_URL)|' $< > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
# (The empty .note.GNU-stack says the object needs no executable stack, as the compiler's do.)
$(OUT)/sbat.o: $(OUT)/sbat.csv
	$(FW_OBJCOPY) -I binary -O $(FW_ELF_FORMAT) -B $(FW_BFD_ARCH) --strip-all \
		--rename-section .data=.sbat,contents,alloc,load,readonly,data \
		--add-section .note.GNU-stack=/dev/null $< $@
FORCE:

# Secure Boot (docs/secure_boot.md). `make image` builds the image of the variables given:
#   (none)                      $(OUT)/baremetric.img, the .efi unsigned
#   SIGN_KEY=k.pem SIGN_CERT=c.pem  $(OUT)/baremetric-signed.img, the .efi signed with sbsign
#   SHIM=1 [SIGN_KEY= SIGN_CERT=]   $(OUT)/baremetric-shim.img (x86_64): Debian's Microsoft-signed
#       shim as the loader, its MokManager, our signed .efi as shim's second stage and the
#       certificate (DER) to enrol; without SIGN_KEY the key pair is made once in $(KEYS).
# Each has its own file name, so one build directory holds all three (the tests boot each).
SIGN_KEY    :=
SIGN_CERT   :=
SHIM        :=
KEYS        := $(BUILD)/keys
SHIM_DIR    := /usr/lib/shim
SHIM_EFI    := $(SHIM_DIR)/shimx64.efi.signed
SHIM_MM     := $(SHIM_DIR)/mmx64.efi.signed
# The second stage shim loads from its own folder (its DEFAULT_LOADER); no fbx64.efi beside it,
# or shim would run the fallback loader instead.
SHIM_SECOND := grubx64.efi
ENROL_CERT  := baremetric.cer
# Debian's ovmf signs its Secure Boot variable stores with this key (passphrase "snakeoil").
OVMF_SNAKEOIL := /usr/share/ovmf/PkKek-1-snakeoil
KEY_BITS    := 2048
KEY_DAYS    := 3650

ifneq ($(SHIM),)
ifneq ($(ARCH),x86_64)
$(error SHIM=1: Debian's signed shim is packaged for x86_64 here (shim-signed:amd64); see docs/secure_boot.md)
endif
IMAGE_NAME  := baremetric-shim
SIGNING_KEY := $(or $(SIGN_KEY),$(KEYS)/mok.key)
SIGNING_CERT := $(or $(SIGN_CERT),$(KEYS)/mok.crt)
else ifneq ($(SIGN_KEY),)
IMAGE_NAME  := baremetric-signed
SIGNING_KEY := $(SIGN_KEY)
SIGNING_CERT := $(SIGN_CERT)
else
IMAGE_NAME  := baremetric
endif
ifneq ($(SIGN_KEY),)
ifeq ($(SIGN_CERT),)
$(error SIGN_KEY needs SIGN_CERT, the certificate (PEM) of the key)
endif
endif
IMAGE_OUT   := $(OUT)/$(IMAGE_NAME).img

image: $(IMAGE_OUT)
$(OUT)/baremetric.img: $(OUT)/baremetric.efi scripts/mkimage.sh docs/baremetric.cfg | deps-image
	scripts/mkimage.sh $< $@ $(IMAGE_MIB) $(EFI_BOOT_NAME)

ifneq ($(IMAGE_NAME),baremetric)
# The key and certificate the signed .efi was made with, rewritten when they change: another
# SIGN_KEY re-signs even when its file is older than the last signature.
SIGN_STAMP  := $(OUT)/$(IMAGE_NAME).keys
$(shell mkdir -p $(OUT) && echo '$(SIGNING_KEY) $(SIGNING_CERT)' | cmp -s - $(SIGN_STAMP) || \
	echo '$(SIGNING_KEY) $(SIGNING_CERT)' > $(SIGN_STAMP))
$(OUT)/$(IMAGE_NAME).efi: $(OUT)/baremetric.efi $(SIGNING_KEY) $(SIGNING_CERT) $(SIGN_STAMP) | deps-sign
	sbsign --key $(SIGNING_KEY) --cert $(SIGNING_CERT) --output $@ $<
	sbverify --cert $(SIGNING_CERT) $@
endif

$(OUT)/baremetric-signed.img: $(OUT)/baremetric-signed.efi scripts/mkimage.sh docs/baremetric.cfg | deps-image
	scripts/mkimage.sh $< $@ $(IMAGE_MIB) $(EFI_BOOT_NAME)

# The certificate in DER, the form MokManager and mokutil --import take.
$(OUT)/baremetric-shim.cer: $(SIGNING_CERT) $(SIGN_STAMP) | deps-sign
	openssl x509 -in $< -outform DER -out $@
$(OUT)/baremetric-shim.img: $(OUT)/baremetric-shim.efi $(OUT)/baremetric-shim.cer scripts/mkimage.sh | deps-shim
	scripts/mkimage.sh $(SHIM_EFI) $@ $(IMAGE_MIB) $(EFI_BOOT_NAME) EFI/BOOT/mmx64.efi=$(SHIM_MM) \
		EFI/BOOT/$(SHIM_SECOND)=$(OUT)/baremetric-shim.efi $(ENROL_CERT)=$(OUT)/baremetric-shim.cer

# The machine owner key SHIM=1 signs with when no SIGN_KEY is given: made here, never committed.
$(KEYS)/mok.key $(KEYS)/mok.crt &: | deps-sign
	@mkdir -p $(KEYS)
	umask 077 && openssl req -new -x509 -newkey rsa:$(KEY_BITS) -nodes -sha256 -days $(KEY_DAYS) \
		-subj "/CN=baremetric machine owner key/" -keyout $(KEYS)/mok.key -out $(KEYS)/mok.crt
# The snakeoil key in plain PEM for sbsign (the tests sign with it: OVMF_VARS_4M.snakeoil.fd trusts it).
$(KEYS)/snakeoil.key: | deps-run deps-sign
	@mkdir -p $(KEYS)
	umask 077 && openssl pkey -in $(OVMF_SNAKEOIL).key -passin pass:snakeoil -out $@

# The Secure Boot images tests/integration/test_secure_boot.py boots: signed with the snakeoil key
# (both CPUs: AAVMF's snakeoil store trusts the same key), and the shim stick (signed with the key
# made in $(KEYS), which no store trusts until it is enrolled).
image-secboot: $(KEYS)/snakeoil.key
	$(MAKE) ARCH=x86_64 image SIGN_KEY=$(KEYS)/snakeoil.key SIGN_CERT=$(OVMF_SNAKEOIL).pem
	$(MAKE) ARCH=aarch64 image SIGN_KEY=$(KEYS)/snakeoil.key SIGN_CERT=$(OVMF_SNAKEOIL).pem
	$(MAKE) ARCH=x86_64 image SHIM=1

# make run [SET="profile=membw samples=32"]: each word becomes a --set of the harness. Packages,
# build and image print one line each (their output goes to $(RUN_LOG), shown when one fails);
# the harness then boots, parses and prints the report, its first screen on top.
RUN_LOG     := $(BUILD)/make-run.log
run:
	@sh scripts/run_phases.sh $(RUN_LOG) "packages=$(MAKE) --no-print-directory deps-$(DEPS_RUN)" \
		"build=$(MAKE) --no-print-directory ARCH=$(ARCH) all" \
		"image=$(MAKE) --no-print-directory ARCH=$(ARCH) image"
	@$(PY) $(HARNESS) run --arch $(ARCH) $(foreach s,$(SET),--set $(s))

# Each file compiled on its own (JOBS at a time under make test and make check; again only when it
# or a header it includes changed: -MMD), then linked in the same order.
UNIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined $(UNIT_INC) -I$(GEN)
UNIT_OBJ    := $(patsubst %,$(BUILD)/host/obj/%.o,$(UNIT_SRC) $(UNIT_UNDER))
# The object list too: a unit dropped from UNIT_UNDER relinks the runner.
UNIT_OBJ_LIST := $(BUILD)/host/unit_obj.list
$(shell echo '$(UNIT_OBJ)' | cmp -s - $(UNIT_OBJ_LIST) || echo '$(UNIT_OBJ)' > $(UNIT_OBJ_LIST))
$(BUILD)/host/obj/%.c.o: %.c | $(PMU_EVENTS_GEN)
	@mkdir -p $(dir $@)
	gcc $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
$(UNIT_BIN): $(UNIT_OBJ) $(UNIT_LIST) $(UNIT_OBJ_LIST)
	gcc -fsanitize=address,undefined $(UNIT_OBJ) -o $@
-include $(shell find $(BUILD)/host/obj -name '*.d' 2>/dev/null)

# Host tool: one real machine's ACPI tables or SMBIOS dump through the firmware's parsers, every
# decoded field printed (tests/perf/acpi_corpus.py runs it over the linuxhw corpora).
FW_CORPUS_TOOL := $(BUILD)/host/fw_corpus
FW_CORPUS_SRC  := tests/corpus/fw_corpus_tool.c tests/unit/fw_corpus.c drivers/fw/acpi.c drivers/fw/madt.c \
	drivers/fw/aarch64/madt_gicc.c drivers/irqchip/aarch64/gicv3.c drivers/fw/smbios.c lib/fmt.c
.PHONY: fw-corpus-tool
fw-corpus-tool: $(FW_CORPUS_TOOL)
$(FW_CORPUS_TOOL): $(FW_CORPUS_SRC) $(shell find drivers/fw drivers/irqchip/aarch64 lib tests/unit -name '*.h')
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined $(UNIT_INC) $(FW_CORPUS_SRC) -o $@

# The FAT reader's test images (tests/unit/test_fat.c), made by mkfs.fat and mtools.
FAT_FIXTURES := $(BUILD)/host/fat
$(FAT_FIXTURES)/stamp: tests/unit/fat_fixtures.sh | deps-image
	sh tests/unit/fat_fixtures.sh $(FAT_FIXTURES)
	touch $@

# Also the registry's checks (tests/hosted/test_registry.c), linked with every probe: mk/hosted.mk.
# And the CPUID corpus (tests/cpuid/): arch/x86_64's discovery on recorded machines' CPUID.
unit: $(UNIT_BIN) $(FAT_FIXTURES)/stamp unit-registry unit-cpuid registry
	BAREMETRIC_FAT_FIXTURES=$(FAT_FIXTURES) $(UNIT_BIN)

# Recorded CPUID through the firmware's x86 discovery (tests/cpuid/fixtures/README.md): its own
# runner (cpu_info.c's MSR half would clash with the unit runner's stubs) and the corpus tool
# that tests/perf/cpuid_corpus.py drives.
CPUID_UNDER := tests/cpuid/cpuid_replay.c tests/cpuid/cpuid_replay_check.c tests/cpuid/msr_none.c arch/x86_64/cpu_info.c arch/x86_64/cache_judge.c \
	arch/x86_64/pmu.c arch/x86_64/pmu_discover.c arch/x86_64/pmu_events.c arch/x86_64/pmu_quirks.c \
	arch/x86_64/pmu_freerun.c arch/x86_64/pmu_constraints.c arch/x86_64/tsc_deadline_errata.c
CPUID_HDRS  := $(shell find lib arch tests/cpuid tests/unit/test.h -name '*.h')
CPUID_CC    = gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined $(UNIT_INC) -I$(GEN)
$(BUILD)/host/cpuid_tests: $(wildcard tests/cpuid/test_*.c) tests/unit/run_tests.c $(CPUID_UNDER) $(PMU_EVENTS_GEN) \
		$(CPUID_HDRS)
	@mkdir -p $(dir $@)
	$(CPUID_CC) $(filter %.c,$^) -o $@
$(BUILD)/host/cpuid_replay: tests/cpuid/replay_main.c $(CPUID_UNDER) $(PMU_EVENTS_GEN) $(CPUID_HDRS)
	@mkdir -p $(dir $@)
	$(CPUID_CC) $(filter %.c,$^) -o $@
.PHONY: unit-cpuid
unit-cpuid: $(BUILD)/host/cpuid_tests $(BUILD)/host/cpuid_replay
	$(BUILD)/host/cpuid_tests

# docs/options.md from the options table and the probe registry (tests/python checks it is current).
docs: registry
	$(PY) scripts/gen_docs.py --write

pytest: | deps-test
	$(PY) -m pytest -q $(PYTEST_JOBS) tests/python

# The AArch64 image, for tests/integration/aarch64/test_boot.py.
image-aarch64:
	$(MAKE) ARCH=aarch64 image

# (make test runs INTEGRATION_RUN itself after test-build: the prerequisites' makes, with nothing
# left to build, took ~9 s to say so)
INTEGRATION_RUN = $(PY) -m pytest -q tests/integration
integration: image image-aarch64 image-secboot hosted hosted-aarch64 | deps-test
	$(INTEGRATION_RUN)

# make test: everything it needs built first, JOBS at a time (test-build, below); then the C unit
# tests beside the Python tests (PYTEST_JOBS processes; scripts/run_parts.sh: a line each, their
# output in build/test/), then the integration tests, whose QEMU boots run several at a time and
# whose timing tests run last, alone (tests/integration/boot_pool.py).
test: deps-test
	$(MAKE) --no-print-directory test-build
	@sh scripts/run_parts.sh $(BUILD)/test "unit=$(MAKE) --no-print-directory unit" \
		"python=$(MAKE) --no-print-directory pytest"
	$(INTEGRATION_RUN)

clean:
	rm -rf $(BUILD)

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)

include mk/hosted.mk

# Parallel builds and test runs. JOBS: how many at a time (the CPUs); PYTEST_JOBS: the Python
# tests' processes (pytest-xdist, Debian's python3-pytest-xdist, installed by deps-test).
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST_JOBS ?= -n $(JOBS)
# What the tests run, built JOBS at a time. The generated headers come first, on their own: the
# image-aarch64 and hosted-aarch64 targets are makes of their own (ARCH=, HOSTED_CPU=) that would
# otherwise write them beside this one; image-secboot's makes build into build/x86_64 and
# build/aarch64, so they come after the images.
TEST_BINS   := $(UNIT_BIN) $(FAT_FIXTURES)/stamp $(REGISTRY_TEST) $(BUILD)/host/cpuid_tests $(BUILD)/host/cpuid_replay
.PHONY: test-build check-build
test-build: | deps-test
	$(MAKE) --no-print-directory $(GEN)/font8x16.h $(PMU_EVENTS_GEN)
	$(MAKE) --no-print-directory -j$(JOBS) $(TEST_BINS) image image-aarch64 hosted hosted-aarch64
	$(MAKE) --no-print-directory image-secboot

# make check: the edit-compile-test loop (docs/hacking.md "Tests"; the goal: under 3 minutes): the C
# unit tests, the Python tests, and the default x86_64 boot's record shape with one hosted run
# (CHECK_TESTS), the three at the same time (scripts/run_parts.sh: a line each, their output
# in build/check/). The timing tests, the other boots and the AArch64 image are make test's.
CHECK_TESTS := tests/integration/test_record_shapes.py::test_x86_64_default_boot_shape \
	tests/integration/test_record_shapes.py::test_x86_64_default_stream_under_1mb \
	tests/integration/test_hosted.py::test_hosted_run_completes \
	tests/integration/test_hosted.py::test_stdout_carries_only_records \
	tests/integration/test_hosted.py::test_platform_facts tests/integration/test_hosted.py::test_os_facts
check-build: | deps-test
	$(MAKE) --no-print-directory $(GEN)/font8x16.h $(PMU_EVENTS_GEN)
	$(MAKE) --no-print-directory -j$(JOBS) $(TEST_BINS) $(OUT)/baremetric.img hosted

check: | deps-test
	@$(MAKE) --no-print-directory check-build > $(BUILD)/check-build.log 2>&1 || \
		{ tail -n 40 $(BUILD)/check-build.log; echo "make check: the build failed ($(BUILD)/check-build.log)"; exit 1; }
	@echo "built (output: $(BUILD)/check-build.log)"
	@sh scripts/run_parts.sh $(BUILD)/check "unit=$(MAKE) --no-print-directory unit" \
		"python=$(PY) -m pytest -q -p no:xdist tests/python" "boot=$(PY) -m pytest -q $(CHECK_TESTS)"
