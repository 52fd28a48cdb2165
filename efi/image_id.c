/* The firmware image's identity for the profiler (bench/profile/sampler.h, prof_image_info): where
 * it runs, how large it is, and its GNU build id. gnu-efi's linker script (elf_<arch>_efi.lds)
 * links the image at 0 with `ImageBase` at its first byte (x86_64: the script; AArch64: the crt0's
 * PE header); our scripts (efi/x86_64/baremetric.lds, efi/aarch64/baremetric.lds) place
 * .note.gnu.build-id inside the image, ending at `_build_id_end`, and the builds link with
 * --build-id=sha1 and copy the note section into the PE file. So the run-time address of
 * ImageBase is the load address (ELF address = pc - base), and the note ends at _build_id_end. Nothing of UEFI is needed: this works after
 * ExitBootServices too. */
#include "bench/profile/sampler.h"

#include "lib/fmt.h"

/* ELF note header (System V ABI, "Note Section") of a GNU build id. */
#define NOTE_NAME_SIZE 4         /* "GNU\0" */
#define NOTE_TYPE_GNU_BUILD_ID 3 /* NT_GNU_BUILD_ID */
#define BUILD_ID_SHA1_BYTES 20
#define NOTE_HEADER_WORDS 3      /* namesz, descsz, type */

extern const char ImageBase[];
extern const char _edata[];
extern const char _build_id_end[];

bool prof_image_info(uint64_t *base, uint64_t *size, char *build_id_hex, unsigned len)
{
	static const char hexdig[] = "0123456789abcdef";
	const unsigned note_bytes = NOTE_HEADER_WORDS * 4 + NOTE_NAME_SIZE + BUILD_ID_SHA1_BYTES;
	/* Through a volatile pointer: the compiler must not reason about bytes before _build_id_end
	 * as if _build_id_end were an array of its own (they belong to the note section). */
	const char *volatile note_end = _build_id_end;
	const uint32_t *w = (const uint32_t *)(const void *)(note_end - note_bytes);
	const uint8_t *name = (const uint8_t *)(w + NOTE_HEADER_WORDS);
	const uint8_t *id = name + NOTE_NAME_SIZE;

	*base = (uint64_t)(uintptr_t)ImageBase;
	*size = (uint64_t)(uintptr_t)(_edata - ImageBase);
	str_copy(build_id_hex, "unknown", len);
	/* The note is only trusted when its header says exactly "GNU build id, SHA-1". */
	if (w[0] != NOTE_NAME_SIZE || w[1] != BUILD_ID_SHA1_BYTES || w[2] != NOTE_TYPE_GNU_BUILD_ID ||
	    name[0] != 'G' || name[1] != 'N' || name[2] != 'U' || name[3] != 0 || len < PROF_BUILD_ID_HEX_MAX)
		return false;
	for (unsigned i = 0; i < BUILD_ID_SHA1_BYTES; i++) {
		build_id_hex[2 * i] = hexdig[id[i] >> 4];
		build_id_hex[2 * i + 1] = hexdig[id[i] & 0xF];
	}
	build_id_hex[2 * BUILD_ID_SHA1_BYTES] = 0;
	return true;
}
