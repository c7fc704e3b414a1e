/* ybb.h - read-only support for the YANE-BINBOOK-V1 binary book (the layout ShogiHome
 * reads and writes, sunfish-shogi/shogihome src/background/book/ybb.ts).
 *
 * Layout, little-endian: a 32-byte header (magic "YANE-BINBOOK-V1\0", record count u64,
 * flags u64; flag bit 0 means move entries carry a depth), then record_count records of
 * 44 bytes sorted by PackedSfen bytes (PackedSfen 32, moves offset u64 relative to the end
 * of the records, ply u16, move count u16), then the move entries: move16 u16, eval i16
 * (0x7fff = no score), and with flag bit 0 a depth u16 (0 = none). The format stores no
 * ponder and no count: moves read with ponder none and count 1.
 */
#ifndef HAYANAGI_BOOK_YBB_H
#define HAYANAGI_BOOK_YBB_H

#include <stdbool.h>
#include <stddef.h>

#include "book/book.h"

#define YBB_MAGIC "YANE-BINBOOK-V1"

/* True when the first bytes of data (len bytes) carry the YBB magic. */
bool ybb_is_ybb(const void *data, size_t len);

/* Reads the YBB file at path into book. Every record and offset is bounds-checked and
 * any malformed record (bad PackedSfen, moves outside the file) makes the read fail:
 * returns false with "path: record N: reason" in err, the book then holding the records
 * read before the bad one. The file is read whole into a temporary buffer. */
bool ybb_read_file(const char *path, Book *book, char *err, size_t err_len);

/* The same over memory; name is used in messages. */
bool ybb_read_memory(const char *name, const void *data, size_t len, Book *book, char *err, size_t err_len);

#endif
