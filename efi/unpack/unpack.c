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

#include "efi/unpack/packed_image.h"
#include "lib/crc32.h"
#include "lib/lz_unpack.h"

#define PAGE_BYTES 4096u
#define MESSAGE_CHARS 160

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

#define DAMAGED "the packed image is damaged; copy the .efi to the stick again"

static UINTN put_ascii(CHAR16 *line, UINTN n, const char *s)
{
	while (*s && n < MESSAGE_CHARS - 3)
		line[n++] = (CHAR16)*s++;
	return n;
}

/* "baremetric: <what>[ (<detail>)]" on the UEFI console; detail may be NULL. */
static void say(EFI_SYSTEM_TABLE *st, const char *what, const char *detail)
{
	CHAR16 line[MESSAGE_CHARS];
	UINTN n = put_ascii(line, 0, "baremetric: ");

	n = put_ascii(line, n, what);
	if (detail) {
		n = put_ascii(line, n, " (");
		n = put_ascii(line, n, detail);
		n = put_ascii(line, n, ")");
	}
	line[n++] = '\r';
	line[n++] = '\n';
	line[n] = 0;
	if (st->ConOut)
		st->ConOut->OutputString(st->ConOut, line);
}

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
		say(st, "could not clear the no-execute attribute of the image's pages; trying all the same", NULL);
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

	fault = avail < PACKED_HEADER_BYTES ? "packed image missing" : header_fault(h, avail);
	if (fault) {
		say(st, DAMAGED, fault);
		return EFI_LOAD_ERROR;
	}
	if (st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderCode, h->memory_bytes / PAGE_BYTES,
					    &base) != EFI_SUCCESS) {
		say(st, "no memory for the unpacked image", "AllocatePages failed");
		return EFI_OUT_OF_RESOURCES;
	}
	mem = (uint8_t *)(UINTN)base;
	err = lz_unpack(mem, h->image_bytes, _binary_packed_bin_start + PACKED_HEADER_BYTES, h->packed_bytes, &got);
	if (err != LZ_UNPACK_OK || got != h->image_bytes) {
		say(st, DAMAGED, err != LZ_UNPACK_OK ? lz_unpack_error_name(err) : "shorter than its header says");
		st->BootServices->FreePages(base, h->memory_bytes / PAGE_BYTES);
		return EFI_LOAD_ERROR;
	}
	if (crc32_update(0, mem, got) != h->image_crc32) {
		say(st, DAMAGED, "the unpacked image fails its CRC-32");
		st->BootServices->FreePages(base, h->memory_bytes / PAGE_BYTES);
		return EFI_CRC_ERROR;
	}
	for (UINT64 i = got; i < h->memory_bytes; i++)
		mem[i] = 0;
	make_executable(st, base, h->memory_bytes);
	return ((image_entry)(UINTN)(base + h->entry))(image, st);
}
