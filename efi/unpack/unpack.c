/* The start-up program of the packed .efi (docs/hacking.md, "Image size"): the firmware's loaded
 * image travels LZ4-compressed behind a header (packed_image.h, made by scripts/lz_pack.py), which
 * keeps the x86_64 .efi under its 200 KiB budget (~40% smaller). This program checks the header,
 * allocates the image's memory as loader code, decodes the block into it, checks the result's
 * CRC-32, makes the memory executable where the firmware offers the Memory Attribute protocol, and
 * enters the image at its entry point as the UEFI loader would: the image relocates itself
 * (gnu-efi's _start and efi/<cpu>/relocate.c) and runs. The image finds its own base and build id
 * by its symbols (efi/image_id.c), and the boot device through this program's image handle, which
 * it is given.
 *
 * Every failure prints one line on the UEFI console and returns an error to the boot manager,
 * which goes on to its next boot option; nothing is written outside the pages allocated here.
 * The pages stay allocated after the image returns: it may have left firmware callbacks in them. */
#include <efi.h>

#include "efi/efi_util.h"
#include "efi/unpack/packed_image.h"
#include "lib/crc32.h"
#include "lib/lz_unpack.h"

#define PAGE_BYTES 4096u

/* UEFI 2.10 section 37.7, EFI_MEMORY_ATTRIBUTE_PROTOCOL: the firmware's page permissions. */
#define MEMORY_ATTRIBUTE_PROTOCOL_GUID                                                             \
	{ 0xf4560cf6, 0x40ec, 0x4b4a, { 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89 } }

struct memory_attribute_protocol {
	EFI_STATUS(EFIAPI *get)(struct memory_attribute_protocol *self, EFI_PHYSICAL_ADDRESS base,
				UINT64 len, UINT64 *attributes);
	EFI_STATUS(EFIAPI *set)(struct memory_attribute_protocol *self, EFI_PHYSICAL_ADDRESS base,
				UINT64 len, UINT64 attributes);
	EFI_STATUS(EFIAPI *clear)(struct memory_attribute_protocol *self, EFI_PHYSICAL_ADDRESS base,
				  UINT64 len, UINT64 attributes);
};

/* The packed image: the header and its block (the Makefile links lz_pack.py's output in). */
extern const uint8_t _binary_packed_bin_start[] __attribute__((visibility("hidden")));
extern const uint8_t _binary_packed_bin_end[] __attribute__((visibility("hidden")));

typedef EFI_STATUS(EFIAPI *image_entry)(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

/* A damaged image's line on the console, the reason after it (efi_con_line). */
#define DAMAGED "baremetric: the packed image is damaged, copy the .efi to the stick again: "
#define SAY "baremetric: "

/* The header's fault, or NULL when it describes a block of `avail` bytes the program can unpack. */
static const char *header_fault(const struct packed_header *h, UINT64 avail)
{
	for (int i = 0; i < PACKED_MAGIC_BYTES; i++)
		if (h->magic[i] != PACKED_MAGIC[i])
			return "no packed image header";
	if (h->version != PACKED_VERSION || h->header_bytes != PACKED_HEADER_BYTES)
		return "packed image of another version";
	if (h->packed_bytes > avail - PACKED_HEADER_BYTES)
		return "packed image cut short";
	if (h->image_bytes > h->memory_bytes || h->memory_bytes > PACKED_MEMORY_MAX ||
	    h->memory_bytes % PAGE_BYTES || h->entry >= h->image_bytes)
		return "packed image header out of range";
	return NULL;
}

/* Lets the CPU run code from the image's pages where the firmware maps fresh memory
 * non-executable and says so through the Memory Attribute protocol; without it, loader code
 * pages are executable (UEFI: the firmware's own policy). */
static void make_executable(EFI_SYSTEM_TABLE *st, EFI_PHYSICAL_ADDRESS base, UINT64 len)
{
	EFI_GUID guid = MEMORY_ATTRIBUTE_PROTOCOL_GUID;
	struct memory_attribute_protocol *attr = NULL;

	if (st->BootServices->LocateProtocol(&guid, NULL, (void **)&attr) != EFI_SUCCESS || !attr)
		return;
	if (attr->clear(attr, base, len, EFI_MEMORY_XP | EFI_MEMORY_RP) != EFI_SUCCESS)
		efi_con_line(SAY, "could not clear the no-execute attribute of the image's pages; trying all the same");
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	const struct packed_header *h = (const void *)_binary_packed_bin_start;
	UINT64 avail = (UINT64)(_binary_packed_bin_end - _binary_packed_bin_start);
	EFI_PHYSICAL_ADDRESS base = 0;
	const char *fault;
	size_t got = 0;
	enum lz_unpack_error err;
	uint8_t *mem;

	efi_util_init(st);
	fault = avail < PACKED_HEADER_BYTES ? "packed image missing" : header_fault(h, avail);
	if (fault) {
		efi_con_line(DAMAGED, fault);
		return EFI_LOAD_ERROR;
	}
	if (st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderCode, h->memory_bytes / PAGE_BYTES,
					    &base) != EFI_SUCCESS) {
		efi_con_line(SAY, "no memory for the unpacked image (AllocatePages failed)");
		return EFI_OUT_OF_RESOURCES;
	}
	mem = (uint8_t *)(UINTN)base;
	err = lz_unpack(mem, h->image_bytes, _binary_packed_bin_start + PACKED_HEADER_BYTES, h->packed_bytes, &got);
	if (err != LZ_UNPACK_OK || got != h->image_bytes) {
		efi_con_line(DAMAGED, err != LZ_UNPACK_OK ? lz_unpack_error_name(err) : "shorter than its header says");
		st->BootServices->FreePages(base, h->memory_bytes / PAGE_BYTES);
		return EFI_LOAD_ERROR;
	}
	if (crc32_update(0, mem, got) != h->image_crc32) {
		efi_con_line(DAMAGED, "the unpacked image fails its CRC-32");
		st->BootServices->FreePages(base, h->memory_bytes / PAGE_BYTES);
		return EFI_CRC_ERROR;
	}
	for (UINT64 i = got; i < h->memory_bytes; i++)
		mem[i] = 0;
	make_executable(st, base, h->memory_bytes);
	return ((image_entry)(UINTN)(base + h->entry))(image, st);
}
