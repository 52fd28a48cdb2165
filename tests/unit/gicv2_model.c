/* The GICv2 model of the driver tests (see gicv2_model.h; offsets are IHI 0048B table 4-1 for
 * the distributor and 4-2 for the CPU interface). */
#include "tests/unit/gicv2_model.h"

#include <string.h>

#define D_CTLR 0x000
#define D_TYPER 0x004
#define D_IGROUPR0 0x080
#define D_ISENABLER0 0x100
#define D_ICENABLER0 0x180
#define D_ISPENDR0 0x200
#define D_ICPENDR0 0x280
#define D_ISACTIVER0 0x300
#define D_IPRIORITYR 0x400
#define D_ITARGETSR 0x800
#define D_ICFGR1 0xC04
#define D_SGIR 0xF00
#define D_CPENDSGIR 0xF10
#define D_PIDR2 0xFE8
#define C_CTLR 0x00
#define C_PMR 0x04
#define C_BPR 0x08
#define C_IAR 0x0C
#define C_EOIR 0x10
#define C_CTLR_EN_GRP0 1u
#define C_CTLR_EN_GRP1 2u
#define C_CTLR_ACKCTL 4u
#define D_TYPER_SECURITY_EXTN (1u << 10)
#define SGIS 16
#define PRIVATE 32
#define SPURIOUS 1023u
#define GRP1_NO_ACK 1022u
#define CPUID_SHIFT 10
#define IAR_ID_MASK 0x3FFu
#define PPI_FIRST 16

void g2m_reset(struct gicv2_model *m, bool security_extn)
{
	memset(m, 0, sizeof(*m));
	m->security_extn = security_extn;
	m->sgis_always_enabled = true;
	m->pidr2 = 0x2B; /* ArchRev 2 */
	for (unsigned i = 0; i < G2M_CPUS; i++)
		m->c[i].cfg1 = 0x55555555u; /* PPIs level (upper bits clear) */
}

static uint32_t pending_bits(const struct g2m_cpu *c)
{
	uint32_t p = c->ppi_pending;

	for (unsigned i = 0; i < SGIS; i++)
		if (c->sgi_sources[i])
			p |= 1u << i;
	return p;
}

static uint32_t enabled_bits(const struct gicv2_model *m, const struct g2m_cpu *c)
{
	return c->enable | (m->sgis_always_enabled ? (1u << SGIS) - 1 : 0);
}

/* Forwarded to this CPU interface: distributor and interface enables of its group. */
static bool group_forwarded(const struct gicv2_model *m, const struct g2m_cpu *c, unsigned id)
{
	bool g1 = m->security_extn || (c->group >> id & 1u);

	if (m->security_extn) /* non-secure view: bit 0 is the Group 1 enable */
		return (m->dctlr & 1u) && (c->cctlr & 1u);
	return g1 ? (m->dctlr & 2u) && (c->cctlr & C_CTLR_EN_GRP1) : (m->dctlr & 1u) && (c->cctlr & C_CTLR_EN_GRP0);
}

static uint32_t acknowledge(struct gicv2_model *m)
{
	struct g2m_cpu *c = &m->c[m->cpu];
	uint32_t cand = pending_bits(c) & enabled_bits(m, c) & ~c->active;
	int best = -1;

	for (unsigned i = 0; i < PRIVATE; i++)
		if ((cand >> i & 1u) && c->prio[i] < (c->pmr & 0xFFu) && group_forwarded(m, c, i) &&
		    (best < 0 || c->prio[i] < c->prio[best]))
			best = (int)i;
	if (best < 0)
		return SPURIOUS;
	if (!m->security_extn && (c->group >> best & 1u) && !(c->cctlr & C_CTLR_ACKCTL))
		return GRP1_NO_ACK;
	c->active |= 1u << best;
	if (best < SGIS) {
		unsigned src = (unsigned)__builtin_ctz(c->sgi_sources[best]);

		c->sgi_sources[best] &= (uint8_t)~(1u << src);
		c->active_src[best] = (uint8_t)src;
		return (uint32_t)best | src << CPUID_SHIFT;
	}
	c->ppi_pending &= ~(1u << best); /* edge, or a level the source drops */
	return (uint32_t)best;
}

static void end_of_interrupt(struct gicv2_model *m, uint32_t v)
{
	struct g2m_cpu *c = &m->c[m->cpu];
	unsigned id = v & IAR_ID_MASK;

	if (id >= PRIVATE || !(c->active >> id & 1u) ||
	    (id < SGIS && (v >> CPUID_SHIFT & 7u) != c->active_src[id])) {
		m->eoi_mismatch++;
		return;
	}
	c->active &= ~(1u << id);
}

uint32_t g2m_read(struct gicv2_model *m, uint64_t a)
{
	struct g2m_cpu *c = &m->c[m->cpu];
	uint64_t o = a - G2M_GICD;

	if (a >= G2M_GICC)
		switch (a - G2M_GICC) {
		case C_CTLR: return c->cctlr;
		case C_PMR: return c->pmr;
		case C_BPR: return c->bpr;
		case C_IAR: return acknowledge(m);
		default: return 0;
		}
	if (o >= D_IPRIORITYR && o < D_IPRIORITYR + PRIVATE)
		return (uint32_t)c->prio[o - D_IPRIORITYR] | (uint32_t)c->prio[o - D_IPRIORITYR + 1] << 8 |
		       (uint32_t)c->prio[o - D_IPRIORITYR + 2] << 16 | (uint32_t)c->prio[o - D_IPRIORITYR + 3] << 24;
	if (o >= D_ITARGETSR && o < D_ITARGETSR + PRIVATE)
		return 0x01010101u << m->cpu;
	switch (o) {
	case D_CTLR: return m->dctlr;
	case D_TYPER: return m->security_extn ? D_TYPER_SECURITY_EXTN : 0;
	case D_PIDR2: return m->pidr2;
	case D_IGROUPR0: return m->security_extn ? 0 : c->group;
	case D_ISENABLER0: case D_ICENABLER0: return enabled_bits(m, c);
	case D_ISPENDR0: case D_ICPENDR0: return pending_bits(c);
	case D_ISACTIVER0: return c->active;
	case D_ICFGR1: return c->cfg1;
	default: return 0;
	}
}

static void write_gicc(struct gicv2_model *m, uint64_t o, uint32_t v)
{
	struct g2m_cpu *c = &m->c[m->cpu];

	switch (o) {
	case C_CTLR: c->cctlr = v; break;
	case C_PMR: c->pmr = v & 0xF8u; break; /* 5 priority bits, as GIC-400 */
	case C_BPR: c->bpr = v < 2 ? 2 : v; break; /* minimum binary point 2 with 5 bits */
	case C_EOIR: end_of_interrupt(m, v); break;
	default: break;
	}
}

static void write_sgir(struct gicv2_model *m, uint32_t v)
{
	unsigned filter = v >> 24 & 3u, id = v & 0xFu;
	uint32_t targets = filter == 0 ? (v >> 16 & 0xFFu) : filter == 1 ? ((1u << G2M_CPUS) - 1) & ~(1u << m->cpu)
									 : filter == 2 ? 1u << m->cpu : 0;

	for (unsigned t = 0; t < G2M_CPUS; t++)
		if (targets >> t & 1u)
			m->c[t].sgi_sources[id] |= (uint8_t)(1u << m->cpu);
}

void g2m_write(struct gicv2_model *m, uint64_t a, uint32_t v)
{
	struct g2m_cpu *c = &m->c[m->cpu];
	uint64_t o = a - G2M_GICD;

	if (m->nlog < G2M_LOG)
		m->log[m->nlog++] = (struct g2m_write){ m->cpu, a, v };
	if (a >= G2M_GICC) {
		write_gicc(m, a - G2M_GICC, v);
		return;
	}
	if (o >= D_IPRIORITYR && o < D_IPRIORITYR + PRIVATE) {
		for (unsigned b = 0; b < 4; b++)
			c->prio[o - D_IPRIORITYR + b] = (uint8_t)((v >> (8 * b)) & 0xF8u);
		return;
	}
	if (o >= D_CPENDSGIR && o < D_CPENDSGIR + SGIS) {
		for (unsigned b = 0; b < 4; b++)
			c->sgi_sources[o - D_CPENDSGIR + b] &= (uint8_t)~(v >> (8 * b));
		return;
	}
	switch (o) {
	case D_CTLR: m->dctlr = v & (m->security_extn ? 1u : 3u); break;
	case D_IGROUPR0: if (!m->security_extn) c->group = v; break;
	case D_ISENABLER0: c->enable |= v; break;
	case D_ICENABLER0: c->enable &= ~v; break;
	case D_ISPENDR0: c->ppi_pending |= v & ~((1u << SGIS) - 1); break;
	case D_ICPENDR0: c->ppi_pending &= ~(v & ~((1u << SGIS) - 1)); break; /* SGI bits RO */
	case D_ICFGR1: c->cfg1 = v; break;
	case D_SGIR: write_sgir(m, v); break;
	default: break;
	}
}

void g2m_raise_ppi(struct gicv2_model *m, unsigned cpu, unsigned intid)
{
	if (intid >= PPI_FIRST && intid < PRIVATE)
		m->c[cpu].ppi_pending |= 1u << intid;
}

int g2m_find(const struct gicv2_model *m, uint64_t addr, unsigned from)
{
	for (unsigned i = from; i < m->nlog; i++)
		if (m->log[i].addr == addr)
			return (int)i;
	return -1;
}

static uint32_t io_rd32(void *ctx, uint64_t a) { return g2m_read(ctx, a); }
static void io_wr32(void *ctx, uint64_t a, uint32_t v) { g2m_write(ctx, a, v); }
static uint64_t io_rd64(void *ctx, uint64_t a) { return g2m_read(ctx, a) | (uint64_t)g2m_read(ctx, a + 4) << 32; }
static uint64_t io_srd(void *ctx, enum gic_sysreg r) { (void)ctx; (void)r; return 0; }
static void io_swr(void *ctx, enum gic_sysreg r, uint64_t v) { (void)ctx; (void)r; (void)v; }
static uint64_t io_now(void *ctx) { (void)ctx; return 0; }

const struct gicv3_io g2m_io = { io_rd32, io_wr32, io_rd64, io_srd, io_swr, io_now, 0 };
