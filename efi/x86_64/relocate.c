/* Self-relocation of the loaded image, in place of gnu-efi's reloc_x86_64.o: crt0-efi-x86_64.o's
 * _start calls _relocate(ImageBase, _DYNAMIC, ...) before efi_main. The image is linked at 0 as a
 * shared object with -Bsymbolic, so every relocation is relative: R_X86_64_RELATIVE entries in
 * .rela and, linked with -z pack-relative-relocs, the packed DT_RELR table (ELF gABI, "RELR
 * relative relocation"), ~150 bytes in place of ~14 KB of .rela (see efi/x86_64/baremetric.lds).
 * gnu-efi's relocator knows only .rela and would leave the RELR places unrelocated.
 *
 * Runs before any relocation is applied: it reads no pointer from its own data. The Makefile
 * refuses an image with other relocation types, so the failure path here is a last resort. */
#include <efi.h>
#include <elf.h>

#ifndef DT_RELR /* glibc < 2.36 */
#define DT_RELRSZ 35
#define DT_RELR 36
#define DT_RELRENT 37
#endif

/* A RELR entry with bit 0 clear is an address (relocate it, then the words after it); with bit 0
 * set, a bitmap of the next 63 words. */
#define RELR_BITMAP_FLAG 1ull
#define RELR_BITMAP_WORDS 63

EFI_STATUS _relocate(long ldbase, Elf64_Dyn *dyn, EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

static EFI_STATUS apply_rela(uint64_t base, uint64_t rela, uint64_t size, uint64_t ent)
{
	if (!size)
		return EFI_SUCCESS; /* no table (the packed .efi's start-up has none, nor DT_RELAENT) */
	if (!rela || ent < sizeof(Elf64_Rela))
		return EFI_LOAD_ERROR;
	for (uint64_t off = 0; off + ent <= size; off += ent) {
		const Elf64_Rela *r = (const Elf64_Rela *)(base + rela + off);
		uint64_t type = ELF64_R_TYPE(r->r_info);

		if (type == R_X86_64_RELATIVE)
			*(uint64_t *)(base + r->r_offset) = base + (uint64_t)r->r_addend;
		else if (type != R_X86_64_NONE)
			return EFI_LOAD_ERROR; /* a symbol reference: cannot happen with -Bsymbolic */
	}
	return EFI_SUCCESS;
}

static EFI_STATUS apply_relr(uint64_t base, uint64_t relr, uint64_t size, uint64_t ent)
{
	uint64_t *where = 0;

	if (size && (!relr || ent != sizeof(uint64_t)))
		return EFI_LOAD_ERROR;
	for (uint64_t off = 0; off + sizeof(uint64_t) <= size; off += sizeof(uint64_t)) {
		uint64_t e = *(const uint64_t *)(base + relr + off);

		if (!(e & RELR_BITMAP_FLAG)) {
			where = (uint64_t *)(base + e);
			*where++ += base;
			continue;
		}
		if (!where)
			return EFI_LOAD_ERROR; /* a bitmap before any address */
		for (unsigned i = 0; (e >>= 1) != 0; i++)
			if (e & 1)
				where[i] += base;
		where += RELR_BITMAP_WORDS;
	}
	return EFI_SUCCESS;
}

EFI_STATUS _relocate(long ldbase, Elf64_Dyn *dyn, EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	uint64_t base = (uint64_t)ldbase, rela = 0, relasz = 0, relaent = 0, relr = 0, relrsz = 0, relrent = 0;
	EFI_STATUS st;

	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_RELA)
			rela = dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_RELASZ)
			relasz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_RELAENT)
			relaent = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_RELR)
			relr = dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_RELRSZ)
			relrsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_RELRENT)
			relrent = dyn->d_un.d_val;
	}
	st = apply_rela(base, rela, relasz, relaent);
	if (!EFI_ERROR(st))
		st = apply_relr(base, relr, relrsz, relrent);
	if (EFI_ERROR(st)) {
		/* crt0 calls efi_main whatever this returns: leave here. The string is addressed
		 * RIP-relative, so it needs no relocation. */
		uefi_call_wrapper(systab->ConOut->OutputString, 2, systab->ConOut,
				  (CHAR16 *)L"baremetric: the image has relocations it cannot apply; not started\r\n");
		uefi_call_wrapper(systab->BootServices->Exit, 4, image, st, 0, NULL);
	}
	return st;
}
