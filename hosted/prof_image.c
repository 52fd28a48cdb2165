/* The running image's facts for the profiler in the hosted build (bench/profile/sampler.h
 * prof_image_info): the executable is the first object dl_iterate_phdr reports; its load bias is
 * the run-time address of ELF address 0 (a PIE, as Debian's gcc builds by default, is linked at 0,
 * so this is also its first byte), its size the end of its highest PT_LOAD segment, its build id
 * the NT_GNU_BUILD_ID note in a PT_NOTE segment (the linker's --build-id, on by default). */
#define _GNU_SOURCE
#include "bench/profile/sampler.h"

#include <elf.h>
#include <link.h>
#include <string.h>

#define NOTE_ALIGN 4
#define GNU_NOTE_NAME "GNU"

struct image_facts {
	bool found;
	uint64_t base, size;
	const uint8_t *id;
	unsigned id_len;
};

static size_t note_pad(size_t n)
{
	return (n + NOTE_ALIGN - 1) & ~(size_t)(NOTE_ALIGN - 1);
}

/* The build id in one PT_NOTE segment, if there. */
static void find_build_id(const uint8_t *p, size_t len, struct image_facts *f)
{
	while (len >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		size_t name = note_pad(nh->n_namesz), desc = note_pad(nh->n_descsz);
		size_t whole = sizeof(*nh) + name + desc;

		if (whole > len)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == sizeof(GNU_NOTE_NAME) &&
		    memcmp(p + sizeof(*nh), GNU_NOTE_NAME, sizeof(GNU_NOTE_NAME)) == 0) {
			f->id = p + sizeof(*nh) + name;
			f->id_len = nh->n_descsz;
			return;
		}
		p += whole;
		len -= whole;
	}
}

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct image_facts *f = arg;

	(void)size;
	f->found = true;
	f->base = info->dlpi_addr;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && ph->p_vaddr + ph->p_memsz > f->size)
			f->size = ph->p_vaddr + ph->p_memsz;
		else if (ph->p_type == PT_NOTE && !f->id)
			find_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, f);
	}
	return 1; /* the executable only */
}

bool prof_image_info(uint64_t *base, uint64_t *size, char *build_id_hex, unsigned len)
{
	static const char hex[] = "0123456789abcdef";
	struct image_facts f = { 0 };
	unsigned o = 0;

	dl_iterate_phdr(first_object, &f);
	if (!f.found)
		return false;
	*base = f.base;
	*size = f.size;
	if (!len)
		return true;
	if (!f.id || !f.id_len) {
		strncpy(build_id_hex, "unknown", len - 1);
		build_id_hex[len - 1] = 0;
		return true;
	}
	for (unsigned i = 0; i < f.id_len && o + 2 < len; i++) {
		build_id_hex[o++] = hex[f.id[i] >> 4];
		build_id_hex[o++] = hex[f.id[i] & 0xf];
	}
	build_id_hex[o] = 0;
	return true;
}
