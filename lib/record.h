/* Encoder for one record line of the baremetric stream (docs/protocol.md):
 *   @BM <ver> <seq> <type> key=value ... |<crc32>
 * Values are %XX-escaped so a record is always one line of printable ASCII without spaces inside
 * fields; the CRC covers everything before " |". */
#ifndef LIB_RECORD_H
#define LIB_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fmt.h"

#define REC_TAG "@BM"
#define REC_PROTO_VERSION 2
#define REC_MAX_LINE 1024
/* Room kept free at the end of a line for the " |xxxxxxxx" trailer. */
#define REC_TRAILER_LEN 11

struct record {
	char buf[REC_MAX_LINE];
	struct sbuf sb;
};

void rec_start(struct record *r, uint32_t seq, const char *type);
void rec_str(struct record *r, const char *key, const char *val); /* escaped */
void rec_u64(struct record *r, const char *key, uint64_t v);
void rec_i64(struct record *r, const char *key, int64_t v);
void rec_hex(struct record *r, const char *key, uint64_t v);
void rec_bool(struct record *r, const char *key, bool v);
/* Start a field whose value the caller appends with rec_append_raw (only [!-~] minus % and |). */
void rec_key(struct record *r, const char *key);
void rec_append_raw(struct record *r, const char *text);
/* Bytes still free for fields before the trailer. */
unsigned rec_room(const struct record *r);
/* Append the CRC trailer; returns the line length (no line ending). */
unsigned rec_finish(struct record *r);
bool rec_overflowed(const struct record *r);

/* True for characters that may appear unescaped in a value. */
bool rec_char_plain(char c);

#endif
