/* Real machines' firmware tables through the firmware's parsers, printed field by field (see
 * fw_corpus.h). Host-only helper of the corpus unit test and tests/corpus/fw_corpus_tool.c. */
#include "tests/unit/fw_corpus.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "drivers/fw/acpi.h"
#include "drivers/fw/aarch64/madt_gicc.h"
#include "drivers/fw/madt.h"
#include "drivers/fw/smbios.h"
#include "drivers/irqchip/aarch64/gicv3.h"
#include "lib/le.h"

#define SDT_HEADER_LEN 36
#define SDT_OFF_LENGTH 4
#define SDT_OFF_CHECKSUM 9
#define RSDP_LEN 36
#define RSDP_V1_LEN 20
#define RSDP_OFF_V1_CHECKSUM 8
#define RSDP_OFF_REVISION 15
#define RSDP_OFF_LENGTH 20
#define RSDP_OFF_XSDT 24
#define RSDP_OFF_EXT_CHECKSUM 32
#define RSDP_REVISION_2 2
#define FADT_OFF_DSDT 40
#define FADT_OFF_X_DSDT 140
#define TABLE_ALIGN 16
/* SMBIOS entry points as dmidecode --dump-bin writes them (DSP0134 5.2). */
#define SM3_OFF_TABLE_ADDR 0x10
#define SM3_OFF_LENGTH 0x06
#define SM2_OFF_LENGTH 0x05
#define SM2_OFF_CHECKSUM 0x04
#define SM2_OFF_DMI 0x10
#define SM3_OFF_CHECKSUM 0x05
#define DMI_OFF_TABLE_ADDR 0x08
#define DMI_OFF_CHECKSUM 0x05
#define DMI_EP_LEN 0x0F
#define SMBIOS_EP_MAX 0x20

static void put(struct fwc_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct fwc_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
}

uint8_t *fwc_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Zeroed memory below 4 GiB (x86-64 Linux MAP_32BIT: the low 2 GiB), so the 32-bit pointers of
 * a real table (FADT DSDT, RSDT entries, an SMBIOS 2.x table address) can name it. */
static uint8_t *low_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int fwc_acpi_init(struct fwc_acpi *m, size_t arena_len)
{
	memset(m, 0, sizeof(*m));
	m->arena = low_alloc(arena_len);
	m->arena_len = arena_len;
	/* The RSDP and XSDT go first: RSDP at 0, the XSDT after it (built by fwc_acpi_decode). */
	m->used = RSDP_LEN + TABLE_ALIGN - RSDP_LEN % TABLE_ALIGN + SDT_HEADER_LEN + 8 * FWC_MAX_TABLES;
	return m->arena ? 0 : -1;
}

void fwc_acpi_free(struct fwc_acpi *m)
{
	if (m->arena)
		munmap(m->arena, m->arena_len);
	memset(m, 0, sizeof(*m));
}

static int add_one(struct fwc_acpi *m, const uint8_t *p, uint32_t n)
{
	size_t at = (m->used + TABLE_ALIGN - 1) & ~(size_t)(TABLE_ALIGN - 1);

	if (m->n >= FWC_MAX_TABLES || at + n > m->arena_len)
		return -1;
	memcpy(m->arena + at, p, n);
	m->table[m->n] = m->arena + at;
	m->bytes[m->n++] = n;
	m->used = at + n;
	return 0;
}

int fwc_acpi_add(struct fwc_acpi *m, const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		uint32_t n = len - off >= SDT_HEADER_LEN ? rd32(buf + off + SDT_OFF_LENGTH) : 0;

		if (n < SDT_HEADER_LEN || n > len - off)
			n = (uint32_t)(len - off); /* a short or broken table: keep its bytes as they are */
		if (add_one(m, buf + off, n))
			return -1;
		off += n;
	}
	return 0;
}

int fwc_acpi_add_file(struct fwc_acpi *m, const char *path)
{
	size_t len = 0;
	uint8_t *buf = fwc_read_file(path, &len);
	int rc;

	if (!buf)
		return -1;
	rc = fwc_acpi_add(m, buf, len);
	free(buf);
	return rc;
}

static int sig_is(const uint8_t *t, uint32_t bytes, const char *sig)
{
	return bytes >= 4 && memcmp(t, sig, 4) == 0;
}

static void fix_checksum(uint8_t *t, uint32_t len, unsigned off)
{
	t[off] = 0;
	t[off] = (uint8_t)(0x100 - acpi_checksum(t, len));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The FADT's DSDT pointers at the DSDT given, or 0 when none is (the dump's addresses are the
 * machine's, not this process's), wherever they lie within the bytes given; the checksum is
 * fixed when it was valid, so a table refused before stays refused. */
static void point_fadt_at_dsdt(uint8_t *fadt, uint32_t bytes, const uint8_t *dsdt)
{
	uint32_t len = bytes >= SDT_HEADER_LEN ? rd32(fadt + SDT_OFF_LENGTH) : 0;
	int was_valid = len >= SDT_HEADER_LEN && len <= bytes && acpi_checksum(fadt, len) == 0;
	uint64_t a = (uint64_t)(uintptr_t)dsdt;

	if (bytes >= FADT_OFF_DSDT + 4)
		for (int i = 0; i < 4; i++)
			fadt[FADT_OFF_DSDT + i] = a <= UINT32_MAX ? (uint8_t)(a >> (8 * i)) : 0;
	if (bytes >= FADT_OFF_X_DSDT + 8)
		put64(fadt + FADT_OFF_X_DSDT, a);
	if (was_valid)
		fix_checksum(fadt, len, SDT_OFF_CHECKSUM);
}

uint64_t fwc_acpi_build(struct fwc_acpi *m)
{
	uint8_t *rsdp = m->arena, *xsdt = m->arena + RSDP_LEN + TABLE_ALIGN - RSDP_LEN % TABLE_ALIGN;
	const uint8_t *dsdt = NULL;
	unsigned n = 0;

	for (unsigned i = 0; i < m->n; i++)
		if (sig_is(m->table[i], m->bytes[i], "DSDT") && !dsdt)
			dsdt = m->table[i];
	for (unsigned i = 0; i < m->n; i++) {
		if (sig_is(m->table[i], m->bytes[i], "DSDT") || sig_is(m->table[i], m->bytes[i], "FACS"))
			continue; /* reached from the FADT, not the XSDT */
		if (sig_is(m->table[i], m->bytes[i], "RSD ") || sig_is(m->table[i], m->bytes[i], "RSDT") ||
		    sig_is(m->table[i], m->bytes[i], "XSDT"))
			continue; /* the dump's own root: the one built here replaces it */
		if (sig_is(m->table[i], m->bytes[i], "FACP"))
			point_fadt_at_dsdt(m->table[i], m->bytes[i], dsdt);
		put64(xsdt + SDT_HEADER_LEN + 8 * n++, (uint64_t)(uintptr_t)m->table[i]);
	}
	memcpy(xsdt, "XSDT", 4);
	for (int i = 0; i < 4; i++)
		xsdt[SDT_OFF_LENGTH + i] = (uint8_t)((SDT_HEADER_LEN + 8 * n) >> (8 * i));
	xsdt[8] = 1;
	fix_checksum(xsdt, SDT_HEADER_LEN + 8 * n, SDT_OFF_CHECKSUM);

	memset(rsdp, 0, RSDP_LEN);
	memcpy(rsdp, "RSD PTR ", 8);
	rsdp[RSDP_OFF_REVISION] = RSDP_REVISION_2;
	rsdp[RSDP_OFF_LENGTH] = RSDP_LEN;
	put64(rsdp + RSDP_OFF_XSDT, (uint64_t)(uintptr_t)xsdt);
	fix_checksum(rsdp, RSDP_V1_LEN, RSDP_OFF_V1_CHECKSUM);
	fix_checksum(rsdp, RSDP_LEN, RSDP_OFF_EXT_CHECKSUM);
	return (uint64_t)(uintptr_t)rsdp;
}

static int listed(const struct acpi_info *a, const char *sig)
{
	for (unsigned i = 0; i < a->num_tables; i++)
		if (strcmp(a->signatures[i], sig) == 0)
			return 1;
	return 0;
}

static void put_acpi(struct fwc_out *o, const struct acpi_info *a)
{
	put(o, "acpi.present %d\n", a->present);
	put(o, "acpi.bad_checksums %u\n", a->bad_checksums);
	if (a->bad_checksums)
		put(o, "acpi.refused %s: %s\n", a->refused_sig, a->refused_why ? a->refused_why : "(no reason)");
	put(o, "acpi.dmar %d\nacpi.ivrs %d\nacpi.iort %d\n", listed(a, "DMAR"), listed(a, "IVRS"), listed(a, "IORT"));
	put(o, "fadt.present %d\n", a->fadt_present);
	if (a->fadt_present) {
		put(o, "fadt.pm_tmr 0x%x\nfadt.pm_tmr_32bit %d\n", a->pm_timer_port, a->pm_timer_32bit);
		put(o, "fadt.pm1a_cnt 0x%x\nfadt.pm1b_cnt 0x%x\n", a->pm1a_cnt, a->pm1b_cnt);
		put(o, "fadt.reset_port 0x%x\nfadt.reset_value 0x%x\n", a->reset_port, a->reset_value);
		put(o, "fadt.s5 %d\n", a->s5_found);
		if (a->s5_found)
			put(o, "fadt.s5_typ %u %u\n", a->s5_typ_a, a->s5_typ_b);
	}
	put(o, "hpet.present %d\n", a->hpet_present);
	if (a->hpet_present)
		put(o, "hpet.base 0x%llx\n", (unsigned long long)a->hpet_base);
	put(o, "mcfg.seg0 %d\n", a->mcfg_present);
	if (a->mcfg_present)
		put(o, "mcfg.seg0.base 0x%llx\nmcfg.seg0.buses %u %u\n", (unsigned long long)a->mcfg_base,
		    a->mcfg_bus_start, a->mcfg_bus_end);
	put(o, "mcfg.segments %u\n", a->mcfg_segments + a->mcfg_dropped);
	for (unsigned i = 0; i < a->mcfg_segments; i++)
		put(o, "mcfg.%u base 0x%llx seg %u buses %u %u\n", i, (unsigned long long)a->mcfg[i].base,
		    a->mcfg[i].segment, a->mcfg[i].bus_start, a->mcfg[i].bus_end);
	put(o, "spcr.uart16550 %d\nspcr.pl011 %d\n", a->spcr_present, a->spcr_pl011);
	if (a->spcr_present || a->spcr_pl011) {
		put(o, "spcr.interface 0x%x\nspcr.space %u\nspcr.base 0x%llx\n", a->spcr_interface, a->spcr_space,
		    (unsigned long long)a->spcr_base);
		put(o, "spcr.baud %u\nspcr.bit_width %u\nspcr.access %u\n", a->spcr_baud, a->spcr_bit_width,
		    a->spcr_access);
	}
}

/* The Arm view of the same table: the GICC processors (as madt_parse_gicc() keeps them, after
 * the local APIC ones in gi), the GIC's addresses, and what gicv3_madt_parse() gives the first
 * enabled GICC processor taken as the boot CPU (its redistributor and PMU interrupt). */
static void put_gic(struct fwc_out *o, uint64_t addr, const uint8_t *t, const struct madt_info *mi,
		    struct madt_info *gi)
{
	struct gicv3_bases gb;
	uint64_t boot = 0;
	bool have_boot = false;

	if (!madt_parse_gicc(addr, gi))
		return;
	put(o, "gic.gicc_cpus %u\ngic.enabled %u\ngic.online_capable %u\n", gi->num_cpus - mi->num_cpus,
	    gi->num_enabled - mi->num_enabled, gi->num_online_capable - mi->num_online_capable);
	put(o, "gic.unusable %u\ngic.duplicates %u\ngic.dropped %u\ngic.malformed %u\n",
	    gi->num_unusable - mi->num_unusable, gi->num_duplicates - mi->num_duplicates,
	    gi->num_dropped - mi->num_dropped, gi->num_malformed - mi->num_malformed);
	for (unsigned i = mi->num_cpus; i < gi->num_cpus; i++) {
		uint64_t mpidr = madt_mpidr_unpack(gi->cpus[i].apic_id);

		put(o, "gic.cpu.%u mpidr 0x%llx uid %u flags %u\n", i - mi->num_cpus, (unsigned long long)mpidr,
		    gi->cpus[i].uid, gi->cpus[i].flags);
		if (!have_boot && madt_cpu_enabled(&gi->cpus[i])) {
			boot = mpidr;
			have_boot = true;
		}
	}
	if (!gicv3_madt_parse(t, rd32(t + SDT_OFF_LENGTH), boot, &gb))
		return;
	put(o, "gic.gicd 0x%llx\ngic.version %u\n", (unsigned long long)gb.gicd, gb.gic_version);
	put(o, "gic.gicc_entries %u\ngic.gicc_gicr_entries %u\n", gb.gicc_entries, gb.gicc_gicr_entries);
	put(o, "gic.gicr_ranges %u\n", gb.gicr_ranges + gb.gicr_ranges_dropped);
	for (unsigned i = 0; i < gb.gicr_ranges; i++)
		put(o, "gic.gicr.%u base 0x%llx len 0x%llx\n", i, (unsigned long long)gb.gicr[i].base,
		    (unsigned long long)gb.gicr[i].len);
	if (have_boot)
		put(o, "gic.boot_gicr 0x%llx\ngic.boot_pmu_gsiv %u\n", (unsigned long long)gb.gicr_cpu,
		    gb.pmu_gsiv_found ? gb.pmu_gsiv : 0);
}

static void put_madt(struct fwc_out *o, uint64_t addr)
{
	static struct madt_info mi, gi;
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;

	put(o, "madt.valid %d\n", madt_parse(addr, &mi));
	if (!mi.valid)
		return;
	put(o, "madt.lapic_base 0x%llx\nmadt.pcat %d\n", (unsigned long long)mi.lapic_base, mi.pcat_compat);
	put(o, "madt.cpus %u\nmadt.enabled %u\nmadt.online_capable %u\nmadt.unusable %u\n", mi.num_cpus,
	    mi.num_enabled, mi.num_online_capable, mi.num_unusable);
	put(o, "madt.duplicates %u\nmadt.dropped %u\nmadt.malformed %u\n", mi.num_duplicates, mi.num_dropped,
	    mi.num_malformed);
	for (unsigned i = 0; i < mi.num_cpus; i++)
		put(o, "madt.cpu.%u %s 0x%x uid %u flags %u\n", i, mi.cpus[i].from_x2apic ? "x2apic" : "lapic",
		    mi.cpus[i].apic_id, mi.cpus[i].uid, mi.cpus[i].flags);
	put(o, "madt.ioapics %u\n", mi.num_ioapics);
	for (unsigned i = 0; i < mi.num_ioapics; i++)
		put(o, "madt.ioapic.%u id %u addr 0x%x gsi %u\n", i, mi.ioapics[i].id, mi.ioapics[i].address,
		    mi.ioapics[i].gsi_base);
	put(o, "madt.isos %u\n", mi.num_isos);
	for (unsigned i = 0; i < mi.num_isos; i++)
		put(o, "madt.iso.%u bus %u irq %u gsi %u flags 0x%x\n", i, mi.isos[i].bus, mi.isos[i].source,
		    mi.isos[i].gsi, mi.isos[i].flags);
	put(o, "madt.dropped_io %u\n", mi.num_dropped_io);
	put_gic(o, addr, t, &mi, &gi);
}

void fwc_acpi_decode(struct fwc_acpi *m, struct fwc_out *out)
{
	static struct acpi_info a;
	uint64_t rsdp = fwc_acpi_build(m);

	if (out->cap)
		out->buf[out->len] = '\0';
	acpi_parse(rsdp, &a);
	put_acpi(out, &a);
	if (a.madt)
		put_madt(out, a.madt);
	else
		put(out, "madt.valid 0\n");
}

static void put_memdev(const struct smbios_memdev *d, void *ctx)
{
	struct fwc_out *o = ctx;

	put(o, "mem.%04x.size %s%llu\n", d->handle, d->size_unknown ? "unknown " : "",
	    (unsigned long long)d->size_bytes);
	put(o, "mem.%04x.type %u\n", d->handle, d->type_code);
	put(o, "mem.%04x.speed %u\nmem.%04x.conf_speed %u\n", d->handle, d->speed_mts, d->handle,
	    d->conf_speed_mts);
	put(o, "mem.%04x.width %u %u\n", d->handle, d->data_width, d->total_width);
	put(o, "mem.%04x.locator %s|%s\n", d->handle, d->locator, d->bank);
	put(o, "mem.%04x.part %s|%s\n", d->handle, d->manufacturer, d->part);
}

/* The dump's entry point with its table address made a host pointer, checksums fixed. */
static int relocate_entry(uint8_t *ep, size_t len, const uint8_t *dump, size_t dump_len, struct smbios_info *si)
{
	uint64_t off;

	if (len >= 5 && memcmp(ep, "_SM3_", 5) == 0 && len >= 0x18) {
		off = rd64(ep + SM3_OFF_TABLE_ADDR);
		if (off >= dump_len)
			return -1;
		put64(ep + SM3_OFF_TABLE_ADDR, (uint64_t)(uintptr_t)(dump + off));
		if (ep[SM3_OFF_LENGTH] <= len)
			fix_checksum(ep, ep[SM3_OFF_LENGTH], SM3_OFF_CHECKSUM);
	} else if (len >= SM2_OFF_DMI + DMI_EP_LEN && memcmp(ep, "_SM_", 4) == 0) {
		uint8_t *dmi = ep + SM2_OFF_DMI;

		off = rd32(dmi + DMI_OFF_TABLE_ADDR);
		if (off >= dump_len || (uint64_t)(uintptr_t)dump > UINT32_MAX - dump_len)
			return -1; /* a 32-bit entry point cannot point at this host's heap */
		for (int i = 0; i < 4; i++)
			dmi[DMI_OFF_TABLE_ADDR + i] = (uint8_t)(((uint64_t)(uintptr_t)(dump + off)) >> (8 * i));
		fix_checksum(dmi, DMI_EP_LEN, DMI_OFF_CHECKSUM);
		if (ep[SM2_OFF_LENGTH] <= len)
			fix_checksum(ep, ep[SM2_OFF_LENGTH], SM2_OFF_CHECKSUM);
	}
	(void)si;
	return 0;
}

static void decode_low(const uint8_t *dump, size_t len, struct fwc_out *out);

void fwc_smbios_decode(const uint8_t *dump, size_t len, struct fwc_out *out)
{
	uint8_t *low = low_alloc(len + 1);

	if (out->cap)
		out->buf[out->len] = '\0';
	if (!low) {
		put(out, "smbios.entry refused no memory below 4 GiB\n");
		return;
	}
	memcpy(low, dump, len);
	decode_low(low, len, out);
	munmap(low, len + 1);
}

static void decode_low(const uint8_t *dump, size_t len, struct fwc_out *out)
{
	uint8_t ep[SMBIOS_EP_MAX] = { 0 };
	struct smbios_info si;
	uint64_t mbps = 0;
	int rc, n;

	memcpy(ep, dump, len < sizeof(ep) ? len : sizeof(ep));
	if (relocate_entry(ep, sizeof(ep), dump, len, &si)) {
		put(out, "smbios.entry refused table address outside the dump\n");
		return;
	}
	rc = smbios_parse_entry(ep, &si);
	if (rc) {
		put(out, "smbios.entry refused %s\n", smbios_err_reason(rc));
		return;
	}
	/* The table must lie within the dump: the parser trusts the entry point's length. */
	if ((const uint8_t *)(uintptr_t)si.table_addr + si.table_len > dump + len)
		si.table_len = (uint32_t)(dump + len - (const uint8_t *)(uintptr_t)si.table_addr);
	put(out, "smbios.version %d.%d\n", si.major, si.minor);
	n = smbios_for_each_memdev(&si, put_memdev, out);
	put(out, "smbios.memdevs %d\n", n);
	rc = smbios_dram_peak_mbps(&si, &mbps);
	if (rc)
		put(out, "smbios.peak unknown\n");
	else
		put(out, "smbios.peak %llu\n", (unsigned long long)mbps);
}
