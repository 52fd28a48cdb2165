/* The header of a packed firmware image (docs/hacking.md, "Image size"): what scripts/lz_pack.py
 * writes in front of the LZ4 block of the loaded image and efi/unpack/unpack.c reads. The image
 * is the firmware's memory image from its link address 0: entry is the offset of its ELF entry
 * point (gnu-efi's _start), memory_bytes what it occupies with its zero-initialised data (the
 * decoded image_bytes, then zeros). Little-endian, 32 bytes; tests/python/test_lz_pack.py holds
 * scripts/lz_pack.py's constants to these. */
#ifndef EFI_UNPACK_PACKED_IMAGE_H
#define EFI_UNPACK_PACKED_IMAGE_H

#include <stdint.h>

#define PACKED_MAGIC "BMPK"
#define PACKED_MAGIC_BYTES 4
#define PACKED_VERSION 1
#define PACKED_HEADER_BYTES 32
/* The largest image a header may claim: a bound on what a damaged header makes us allocate. */
#define PACKED_MEMORY_MAX (16u << 20)

struct packed_header {
	char magic[PACKED_MAGIC_BYTES];
	uint16_t version;
	uint16_t header_bytes; /* sizeof this header: the block follows it */
	uint32_t packed_bytes; /* the LZ4 block's length */
	uint32_t image_bytes;  /* what the block decodes to */
	uint32_t memory_bytes; /* the image's memory, a whole number of pages, >= image_bytes */
	uint32_t entry;        /* the entry point's offset in the image */
	uint32_t image_crc32;  /* CRC-32 (lib/crc32.h) of the decoded image */
	uint32_t reserved;
};

_Static_assert(sizeof(struct packed_header) == PACKED_HEADER_BYTES, "packed_header is 32 bytes");

#endif
