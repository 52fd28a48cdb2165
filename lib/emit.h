/* The record stream: sequence numbering, the output sink, and helpers for the common record types
 * (messages, chunked raw samples). One stream per boot; not reentrant except that a record started
 * and abandoned (e.g. by a fault) is simply never sent. */
#ifndef LIB_EMIT_H
#define LIB_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/record.h"

/* Receives one finished line without line ending. */
typedef void (*emit_sink_fn)(const char *line, unsigned len);

/* At most this many values per samples record (before run-length compression); a record usually
 * fills its line first (docs/protocol.md, "Sample values"). */
/* A function that only writes records after a measurement: GCC's cold attribute optimises it for
 * size (the .efi has a size budget) and moves it out of the way of the code it follows. */
#define EMIT_COLD __attribute__((cold))

#define EMIT_SAMPLES_PER_CHUNK 1024

enum msg_level { MSG_INFO, MSG_WARN, MSG_ERROR };

void emit_init(emit_sink_fn sink);
/* Start a record of `type`; add fields to the returned record, then emit_finish(). */
struct record *emit_start(const char *type);
void emit_finish(void);
/* Muted, records are built but neither sent nor counted (no sequence number), fault records
 * excepted: the profiler's repeated runs of a probe (bench/profile/extend.h), whose measurements
 * the first run's records already carry. */
void emit_mute(bool on);
bool emit_muted(void);
/* Records sent so far (= the seq the next record gets). */
uint32_t emit_count(void);
/* Skip records emitted so far (probe skips, partial skips, counter skips alike). */
uint32_t emit_skip_count(void);

void emit_msg(enum msg_level level, const char *text);
void emit_skip(const char *probe, const char *reason);
/* A skip of one kernel at one width (membw, flops): probe, kernel, width, reason. */
void emit_skip_kernel(const char *probe, const char *kernel, const char *width, const char *reason);
/* Emit values[0..n) of sample set `set` as samples records, chunked and run-length encoded. */
void emit_samples(uint32_t set, const uint64_t *values, size_t n);
/* The same chunking for any per-sample value list: records of `type` carrying set, then the
 * key/value string pairs of `fields` (NULL-terminated, may be NULL), then i, n and v. */
void emit_values(const char *type, uint32_t set, const char *const *fields, const uint64_t *values, size_t n);

/* Append the protocol version 2 list of values[0..n), at most max_values of them, to sb while it
 * has room (docs/protocol.md, "Sample values": zigzag deltas as self-delimiting base-34/52 digits,
 * runs of equal values as `*count`); returns how many values were consumed (at least one when sb
 * has room for the longest value). Exposed for unit tests. */
size_t emit_encode_values(struct sbuf *sb, const uint64_t *values, size_t n, size_t max_values);
/* Append one number as version 2 digits: continuation digits, least significant first, then one
 * final digit. Exposed for unit tests. */
void emit_encode_number(struct sbuf *sb, uint64_t x);

#endif
