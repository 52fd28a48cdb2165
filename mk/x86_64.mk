# The x86_64 firmware build (the default ARCH): toolchain, flags and the .efi step. Which sources
# it takes is the Makefile's rule (every layer folder and its x86_64/ subfolder).

EFI_INC     := /usr/include/efi
EFI_LIB     := /usr/lib
EFI_CRT0    := $(EFI_LIB)/crt0-efi-x86_64.o
# gnu-efi's linker script plus a .relr section (see the file).
EFI_LDS     := efi/x86_64/baremetric.lds

FW_CC       := gcc
FW_LD       := ld
FW_OBJCOPY  := objcopy
FW_NM       := nm
DEPS_BUILD  := build
FW_LIBS     :=
FW_RELATIVE_RELOC := R_X86_64_RELATIVE
EFI_BOOT_NAME := BOOTX64.EFI
DEPS_RUN    := run
# shim's SBAT metadata as the .efi's .sbat section (docs/secure_boot.md): the Makefile makes this
# object of the filled-in efi/sbat.csv, baremetric.lds gives it a page of its own in the image.
FW_SBAT_OBJ := $(OUT)/sbat.o
FW_ELF_FORMAT := elf64-x86-64
FW_BFD_ARCH := i386:x86-64

# Freestanding, warnings as errors, no SSE anywhere in the firmware (interrupt and fault paths must
# not touch vector state); GNU-EFI calling convention via ms_abi.
FW_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fpic \
	-fno-stack-protector -fno-stack-check -fshort-wchar -mno-red-zone -mgeneral-regs-only \
	-maccumulate-outgoing-args -fno-tree-loop-distribute-patterns -fno-strict-aliasing \
	-DGNU_EFI_USE_MS_ABI -DBUILD_ID='"$(BUILD_ID)"' \
	-I. -I$(CPU_INC) -I$(GEN) -I$(EFI_INC) -I$(EFI_INC)/x86_64
# -z pack-relative-relocs: pointer relocations as a packed DT_RELR table (efi/x86_64/relocate.c applies it).
# --build-id: the profiler states it (efi/image_id.c reads the note), the harness finds the ELF by it.
FW_LDFLAGS := -nostdlib -shared -Bsymbolic -znocombreloc -z pack-relative-relocs --build-id=sha1 -T $(EFI_LDS)

# Only what the loaded image uses: _relocate (efi/x86_64/relocate.c) reads .dynamic for the .rela and
# .relr tables and applies relative relocations, which name no symbol, so .dynsym stays behind
# (and .dynstr always did). --strip-all drops the COFF symbol table objcopy would otherwise write
# (~30 KB): symbols are for the host, which reads them from baremetric.so. The same sections are
# the memory image scripts/lz_pack.py packs (FW_PACK, the Makefile).
FW_PE_SECTIONS := .text .sdata .data .rodata .dynamic .rel .rela .relr .sbat .bss .rel.* .rela.* \
	.reloc .note.gnu.build-id
fw_pe_copy = $(FW_OBJCOPY) $(foreach s,$(FW_PE_SECTIONS),-j '$(s)') --strip-all \
	--target=efi-app-$(ARCH) --subsystem=10 $(1) $(2)
# The .efi is packed: the image above compressed behind a start-up program (the Makefile, FW_PACK).
FW_PACK := yes

# The unpacked .efi (baremetric-plain.efi): the image as the UEFI loader maps it, for a look at its
# sections and to boot when the packed one is in doubt.
$(OUT)/baremetric-plain.efi: $(OUT)/baremetric.so
	$(call fw_pe_copy,$<,$@)
	@# Keep the unstripped ELF of every build, named by its build id: the profiler's symbols.
	@id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); mkdir -p $(OUT)/elf; cp $< $(OUT)/elf/$$id.elf
