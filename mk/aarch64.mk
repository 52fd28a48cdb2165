# The AArch64 firmware build (make ARCH=aarch64): build/aarch64/baremetric.efi with Debian's cross
# gcc (gcc-aarch64-linux-gnu) and gnu-efi's arm64 start-up files, unpacked by scripts/deps.sh into
# $(BUILD)/deps/gnu-efi-arm64 (Debian's gnu-efi cannot be installed for two architectures at once).
# Included from the Makefile when ARCH=aarch64: toolchain, flags and the .efi step. Which sources
# it takes is the Makefile's rule (every layer folder and its aarch64/ subfolder); the hosted build
# and the unit tests stay the host's (x86_64).
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
# No .sbat section: the crt0 above writes the PE header itself, with a fixed table of two sections
# (.text and .data) and NumberOfSections = 2; a third one would mean patching its header after the
# link. The image can still be signed (make image SIGN_KEY=... ARCH=aarch64), but shim would refuse
# it as a second stage (docs/secure_boot.md).
FW_SBAT_OBJ  :=

GNU_EFI_A64  := $(BUILD)/deps/gnu-efi-arm64
EFI_INC      := $(GNU_EFI_A64)/usr/include/efi
EFI_LIB      := $(GNU_EFI_A64)/usr/lib
EFI_CRT0     := $(EFI_LIB)/crt0-efi-aarch64.o
EFI_LDS      := efi/aarch64/baremetric.lds
EFI_SUBSYSTEM_APP := 0xa

# As the x86_64 flags, without the x86 ones (red zone, ms_abi); no FP/SIMD registers in the
# firmware (-mgeneral-regs-only); no outline atomics (they would call into libgcc); no unaligned
# accesses the compiler invents (device memory would fault on them).
FW_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fpic \
	-fno-stack-protector -fno-stack-check -fshort-wchar -mgeneral-regs-only -mno-outline-atomics \
	-mstrict-align -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
	-DBUILD_ID='"$(BUILD_ID)"' \
	-I. -I$(CPU_INC) -I$(GEN) -I$(EFI_INC) -I$(EFI_INC)/aarch64
FW_LDFLAGS := -nostdlib -shared -Bsymbolic -znocombreloc --build-id=sha1 -T $(EFI_LDS) -L$(EFI_LIB) \
	--defsym=EFI_SUBSYSTEM=$(EFI_SUBSYSTEM_APP)
# gnu-efi's crt0 calls _relocate (libgnuefi's reloc_aarch64.c: R_AARCH64_RELATIVE only); libefi
# is not linked (efi/efi_util.c sets ST and BS, as on x86_64).
FW_LIBS := -lgnuefi
FW_RELATIVE_RELOC := R_AARCH64_RELATIVE

$(OUT)/baremetric.efi: $(OUT)/baremetric.so
	$(FW_OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .rodata -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc -j .note.gnu.build-id -O binary \
		--pad-to=0x$$($(FW_NM) $< | awk '$$3 == "_edata" { print $$1 }') $< $@
	@# Keep every build's ELF by its build id: the profiler's symbols for older runs' logs.
	@id=$$($(CROSS)readelf -n $< | sed -n 's/.*Build ID: *//p'); mkdir -p $(OUT)/elf; cp $< $(OUT)/elf/$$id.elf
