/* ybb.c - YANE-BINBOOK-V1 reader; see ybb.h. */
#include "book/ybb.h"
#include "shogi/notation.h"
#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER = 32, RECORD = 44, EVAL_NONE = 0x7fff };

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

bool ybb_is_ybb(const void *data, size_t len) { return len >= 16 && memcmp(data, YBB_MAGIC "\0", 16) == 0; }

bool ybb_read_memory(const char *name, const void *data, size_t len, Book *book, char *err, size_t err_len) {
    shogi_init();
    const uint8_t *d = data;
    if (len < HEADER || !ybb_is_ybb(d, len))
        return error_set(err, err_len, "%s: not a YBB book (no '%s' magic)", name, YBB_MAGIC);
    uint64_t count = le64(d + 16), flags = le64(d + 24);
    size_t entry = (flags & 1) ? 6 : 4;
    if (count > (len - HEADER) / RECORD)
        return error_set(err, err_len, "%s: header claims %llu records, the file holds at most %zu", name,
                         (unsigned long long)count, (len - HEADER) / RECORD);
    size_t moves_start = HEADER + (size_t)count * RECORD;
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *r = d + HEADER + i * RECORD;
        PackedSfen ps;
        memcpy(ps.data, r, 32);
        uint64_t off = le64(r + 32);
        unsigned ply = le16(r + 40), n = le16(r + 42);
        if (off > len - moves_start || (uint64_t)n * entry > len - moves_start - off)
            return error_set(err, err_len, "%s: record %llu: moves lie outside the file", name, (unsigned long long)i);
        Position pos;
        StateInfo st;
        char why[128];
        if (!packed_sfen_decode(&ps, &pos, &st, (int)ply, why, sizeof why))
            return error_set(err, err_len, "%s: record %llu: bad PackedSfen: %s", name, (unsigned long long)i, why);
        if (n == 0)
            continue;
        BookKey key;
        uint32_t id;
        book_key_from_position(&pos, &key);
        if (!book_add_position(book, &key, (int)ply, &id))
            return error_set(err, err_len, "%s: out of memory", name);
        const uint8_t *m = d + moves_start + off;
        for (unsigned k = 0; k < n; k++, m += entry) {
            BookMove bm = {.move = (Move16)le16(m), .count = 1};
            /* A well-formed move reads back from its own USI text (squares on the board, a
             * drop of an unpromoted hand piece, a from square for a board move). */
            char usi[USI_MOVE_MAX];
            Move16 back;
            move_to_usi(bm.move, usi);
            if (!move16_from_usi(usi, strlen(usi), &back) || back != bm.move)
                return error_set(err, err_len, "%s: record %llu: move %u (0x%04x) is no move", name,
                                 (unsigned long long)i, k, (unsigned)bm.move);
            int ev = (int16_t)le16(m + 2);
            if (ev != EVAL_NONE) {
                bm.score = ev;
                bm.has_score = true;
            }
            if (entry == 6 && le16(m + 4)) {
                bm.depth = (int)le16(m + 4);
                bm.has_depth = true;
            }
            if (!book_add_move(book, id, &bm, NULL))
                return error_set(err, err_len, "%s: record %llu: too many moves or out of memory", name,
                                 (unsigned long long)i);
        }
    }
    return true;
}

bool ybb_read_file(const char *path, Book *book, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return error_set(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    bool oom = buf == NULL;
    while (!oom) {
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                oom = true;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (oom) {
        free(buf);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    bool ok = read_error ? error_set(err, err_len, "%s: read error", path)
                         : ybb_read_memory(path, buf, len, book, err, err_len);
    free(buf);
    return ok;
}
