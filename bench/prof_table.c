/* TEMP (lead's stand-in until profcore lands) */
#include "bench/prof_table.h"
void prof_table_init(struct prof_table *t, struct prof_entry *sets, uint32_t nsets, struct prof_entry *ovf0,
		     struct prof_entry *ovf1, uint32_t ovf_cap)
{
	*t = (struct prof_table){ 0 };
	t->sets = sets; t->nsets = nsets; t->ovf[0].e = ovf0; t->ovf[1].e = ovf1; t->ovf_cap = ovf_cap;
	for (uint32_t i = 0; i < nsets * PROF_WAYS; i++) sets[i].count = 0;
}
void prof_table_record(struct prof_table *t, uint64_t pc, uint16_t event)
{
	struct prof_entry *set = t->sets + ((pc * 0x9E3779B97F4A7C15ull) >> 40 & (t->nsets - 1)) * PROF_WAYS;
	t->samples++;
	for (int i = 0; i < PROF_WAYS; i++) if (set[i].count && set[i].pc == pc && set[i].event == event) { set[i].count++; return; }
	for (int i = 0; i < PROF_WAYS; i++) if (!set[i].count) { set[i].pc = pc; set[i].event = event; set[i].count = 1; return; }
	struct prof_entry *v = &set[t->evict_next++ & 3];
	struct prof_ovf *o = &t->ovf[t->active];
	t->evictions++;
	if (o->full) { t->lost_entries++; t->lost_samples += v->count; }
	else { o->e[o->n++] = *v; if (o->n == t->ovf_cap) { o->full = 1; t->handoffs++; t->active ^= 1; } }
	v->pc = pc; v->event = event; v->count = 1;
}
uint32_t prof_table_drain(struct prof_table *t, prof_sink_fn sink, void *ctx)
{
	uint32_t n = 0;
	for (int b = 0; b < 2; b++) if (t->ovf[b].full) { sink(ctx, t->ovf[b].e, t->ovf[b].n); n += t->ovf[b].n; t->ovf[b].n = 0; t->ovf[b].full = 0; }
	return n;
}
uint32_t prof_table_flush(struct prof_table *t, prof_sink_fn sink, void *ctx)
{
	uint32_t n = 0;
	for (int b = 0; b < 2; b++) { if (t->ovf[b].n) sink(ctx, t->ovf[b].e, t->ovf[b].n); n += t->ovf[b].n; t->ovf[b].n = 0; t->ovf[b].full = 0; }
	for (uint32_t i = 0; i < t->nsets * PROF_WAYS; i++) if (t->sets[i].count) { sink(ctx, &t->sets[i], 1); n++; t->sets[i].count = 0; }
	return n;
}
void prof_agg_init(struct prof_agg *a, struct prof_entry *mem, uint32_t cap)
{
	*a = (struct prof_agg){ mem, cap, 0, 0, 0 };
	for (uint32_t i = 0; i < cap; i++) mem[i].count = 0;
}
void prof_agg_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	struct prof_agg *a = ctx;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t h = (uint32_t)((e[k].pc * 0x9E3779B97F4A7C15ull + e[k].event) >> 32) & (a->cap - 1), j;
		for (j = 0; j < a->cap; j++) {
			struct prof_entry *s = &a->e[(h + j) & (a->cap - 1)];
			if (!s->count) { *s = e[k]; a->n++; break; }
			if (s->pc == e[k].pc && s->event == e[k].event) { s->count += e[k].count; break; }
		}
		if (j == a->cap) a->dropped += e[k].count; else a->total += e[k].count;
	}
}
uint32_t prof_agg_sort(struct prof_agg *a)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->cap; i++) if (a->e[i].count) a->e[n++] = a->e[i];
	for (uint32_t i = 1; i < n; i++) { struct prof_entry x = a->e[i]; uint32_t j = i; while (j && (a->e[j-1].count < x.count || (a->e[j-1].count == x.count && a->e[j-1].pc > x.pc))) { a->e[j] = a->e[j-1]; j--; } a->e[j] = x; }
	return n;
}
