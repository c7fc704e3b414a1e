/* sbk.c - the SBK reader: the open (index build), entries, lookups, children and the
 * engine probe; see sbk.h, sbk_internal.h and docs/formats/sbk.md. */
#include "book/sbk_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- open ---- */

void sbk_close(SbkBook *b) {
    if (!b)
        return;
    if (b->fd >= 0)
        close(b->fd);
    free(b->author);
    free(b->description);
    free(b->checkpoints);
    free(b->rec);
    free(b->ids);
    free(b);
}

static char *read_text(const SbkBook *b, Cache *c, const FileField *f) {
    size_t n = f->len > SBK_MAX_TEXT ? SBK_MAX_TEXT : (size_t)f->len;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (!sbki_src_read(b, c, f->payload, (uint8_t *)s, n)) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* Scan 1: structure, state count, checkpoints, author and description. */
static bool scan_top(SbkBook *b, Cache *c, char *err, size_t err_len) {
    uint64_t off = 0;
    size_t cap = 0;
    FileField f;
    int r;
    while ((r = sbki_file_field(b, c, &off, &f, err, err_len)) > 0) {
        if (f.number == 3) {
            if (f.wt != 2) {
                SAY("byte %llu: state field with wire type %d", (unsigned long long)f.start, f.wt);
                return false;
            }
            if (f.len > SBK_MAX_STATE_BYTES) {
                SAY("state %llu is %llu bytes long, more than the %d accepted", (unsigned long long)b->n_states,
                    (unsigned long long)f.len, SBK_MAX_STATE_BYTES);
                return false;
            }
            if (b->n_states >= SBK_MAX_STATES) {
                SAY("more than %d states", SBK_MAX_STATES);
                return false;
            }
            if (b->n_states % CHECKPOINT_EVERY == 0) {
                if (b->n_checkpoints == cap) {
                    size_t nc = cap ? cap * 2 : 1024;
                    uint64_t *p = realloc(b->checkpoints, nc * sizeof *p);
                    if (!p) {
                        SAY("out of memory");
                        return false;
                    }
                    b->checkpoints = p;
                    cap = nc;
                }
                b->checkpoints[b->n_checkpoints++] = f.start;
            }
            b->n_states++;
        } else if ((f.number == 1 || f.number == 2) && f.wt == 2) {
            char **dst = f.number == 1 ? &b->author : &b->description;
            free(*dst);
            *dst = read_text(b, c, &f);
            if (!*dst) {
                SAY("cannot read the %s", f.number == 1 ? "author" : "description");
                return false;
            }
        }
    }
    if (r < 0)
        return false;
    if (b->n_states == 0) {
        SAY("no state in the book (not an SBK file?)");
        return false;
    }
    return true;
}

/* Scan 2: ids and explicit positions. */
static bool scan_roots(SbkBook *b, Cache *c, SbkOpenStats *st, uint8_t **buf, size_t *cap, char *err, size_t err_len) {
    uint64_t off = 0, i = 0;
    FileField f;
    int r;
    while ((r = sbki_file_field(b, c, &off, &f, err, err_len)) > 0) {
        if (f.number != 3)
            continue;
        uint8_t *rec = b->rec + i * REC_BYTES;
        rec_set_index(rec, (uint32_t)i);
        if (!sbki_reserve(buf, cap, (size_t)f.len) || !sbki_src_read(b, c, f.payload, *buf, (size_t)f.len)) {
            SAY("cannot read state %llu", (unsigned long long)i);
            return false;
        }
        const uint8_t *p = *buf, *end = *buf + f.len;
        MemField m;
        int32_t id = 0;
        const uint8_t *position = NULL;
        size_t position_len = 0;
        int fr;
        while ((fr = sbki_mem_field(&p, end, &m)) > 0) {
            if (m.number == 1 && m.wt == 0)
                id = (int32_t)(uint32_t)m.value;
            else if (m.number == 7 && m.wt == 2)
                position = m.ptr, position_len = (size_t)m.len;
        }
        if (fr < 0) {
            st->bad_positions++; /* a state that does not parse: never resolved */
            rec_set_index(rec, (uint32_t)i | REC_EXPANDED);
        } else if (position) {
            char sfen[256];
            BookKey key;
            int ply = 1;
            bool ok = position_len < sizeof sfen;
            if (ok) {
                memcpy(sfen, position, position_len);
                sfen[position_len] = '\0';
                ok = book_key_from_sfen(sfen, &key, &ply, NULL, 0) && ply >= 1 && ply <= SBK_MAX_PLY;
            }
            if (ok) {
                memcpy(rec, key.data, 32);
                rec_set_ply(rec, ply);
                rec_set_index(rec, (uint32_t)i | REC_RESOLVED);
                st->roots++;
            } else {
                st->bad_positions++;
                rec_set_index(rec, (uint32_t)i | REC_EXPANDED);
            }
        } else if (i == 0) {
            Position pos;
            StateInfo si;
            BookKey key;
            position_set_startpos(&pos, &si);
            book_key_from_position(&pos, &key);
            memcpy(rec, key.data, 32);
            rec_set_ply(rec, 1);
            rec_set_index(rec, REC_RESOLVED);
            st->roots++;
        }
        if ((uint64_t)(int64_t)id != i && !b->ids) {
            b->ids = malloc(b->n_states * sizeof *b->ids);
            if (!b->ids) {
                SAY("out of memory");
                return false;
            }
            for (uint64_t j = 0; j < i; j++)
                b->ids[j] = (IdPair){(int32_t)j, (uint32_t)j};
        }
        if (b->ids)
            b->ids[i] = (IdPair){id, (uint32_t)i};
        i++;
    }
    if (r < 0)
        return false;
    if (b->ids) {
        qsort(b->ids, b->n_states, sizeof *b->ids, sbki_id_compare);
        for (uint64_t j = 1; j < b->n_states; j++)
            if (b->ids[j].id == b->ids[j - 1].id)
                st->duplicate_ids++;
    }
    st->ids_are_indices = b->ids == NULL;
    return true;
}

typedef struct {
    uint32_t *q;
    size_t head, count;
} Queue;

/* Resolves the children of state i (resolved, not expanded). */
static bool expand(SbkBook *b, uint32_t i, const uint8_t *payload, size_t len, Queue *q, uint64_t cursor, bool *again,
                   SbkOpenStats *st) {
    uint8_t *rec = b->rec + (size_t)i * REC_BYTES;
    rec_set_index(rec, rec_index(rec) | REC_EXPANDED);
    BookKey key;
    memcpy(key.data, rec, 32);
    int ply = rec_ply(rec);
    Position pos;
    StateInfo si;
    if (!book_key_to_position(&key, &pos, &si, ply))
        return true;
    const uint8_t *p = payload, *end = payload + len;
    MemField f;
    while (sbki_mem_field(&p, end, &f) > 0) {
        if (f.number != 9 || f.wt != 2)
            continue;
        const uint8_t *mp = f.ptr, *mend = f.ptr + f.len;
        MemField g;
        int32_t word = 0, next = -1;
        bool has_next = false;
        while (sbki_mem_field(&mp, mend, &g) > 0) {
            if (g.number == 1 && g.wt == 0)
                word = (int32_t)(uint32_t)g.value;
            else if (g.number == 4 && g.wt == 0)
                next = (int32_t)(uint32_t)g.value, has_next = true;
        }
        if (!has_next || next < 0)
            continue;
        uint32_t j;
        if (!sbk_index_of_id(b, next, &j)) {
            st->bad_edges++;
            continue;
        }
        uint8_t *crec = b->rec + (size_t)j * REC_BYTES;
        uint32_t cflags = rec_index(crec) & ~REC_INDEX;
        if (cflags == REC_EXPANDED) { /* a state that does not parse */
            st->bad_edges++;
            continue;
        }
        Move16 m16;
        if (!sbk_move_decode(word, &m16)) {
            st->bad_moves++;
            continue;
        }
        if (((uint32_t)word >> 31) != (((uint32_t)word >> 28) & 1))
            st->side_mismatches++;
        Move m = position_legal_move_from16(&pos, m16);
        if (!m) {
            st->bad_moves++;
            continue;
        }
        if (ply + 1 > SBK_MAX_PLY) {
            st->ply_overflow++;
            continue;
        }
        BookKey ck;
        book_key_after_move(&pos, m, &ck);
        if (cflags & REC_RESOLVED) {
            if (memcmp(crec, ck.data, 32) != 0)
                st->contradictions++;
            continue;
        }
        memcpy(crec, ck.data, 32);
        rec_set_ply(crec, ply + 1);
        rec_set_index(crec, j | REC_RESOLVED);
        /* A child ahead of the pass is expanded when the pass gets there (files written
         * parents first read sequentially); one behind it goes to the queue. */
        if (j < cursor) {
            if (q->count < QUEUE_CAP)
                q->q[(q->head + q->count++) % QUEUE_CAP] = j;
            else
                *again = true;
        }
    }
    return true;
}

/* Scan 3 and on: walks the edges until nothing new is resolved. */
static bool walk(SbkBook *b, Cache *c, const SbkOpenOptions *opt, SbkOpenStats *st, uint8_t **buf, size_t *cap,
                 char *err, size_t err_len) {
    Queue q = {malloc(QUEUE_CAP * sizeof(uint32_t)), 0, 0};
    if (!q.q) {
        SAY("out of memory");
        return false;
    }
    uint64_t expanded = 0;
    bool again = true, ok = true;
    while (again && ok) {
        again = false;
        st->passes++;
        uint64_t off = 0, i = 0;
        FileField f;
        int r = 0;
        while (ok && (r = sbki_file_field(b, c, &off, &f, err, err_len)) > 0) {
            if (f.number != 3)
                continue;
            uint32_t flags = rec_index(b->rec + i * REC_BYTES) & ~REC_INDEX;
            if (flags == REC_RESOLVED) {
                if (!sbki_reserve(buf, cap, (size_t)f.len) || !sbki_src_read(b, c, f.payload, *buf, (size_t)f.len)) {
                    SAY("cannot read state %llu", (unsigned long long)i);
                    ok = false;
                    break;
                }
                expand(b, (uint32_t)i, *buf, (size_t)f.len, &q, i + 1, &again, st);
                expanded++;
                while (ok && q.count) {
                    uint32_t j = q.q[q.head];
                    q.head = (q.head + 1) % QUEUE_CAP;
                    q.count--;
                    if ((rec_index(b->rec + (size_t)j * REC_BYTES) & ~REC_INDEX) != REC_RESOLVED)
                        continue;
                    uint64_t po, pl;
                    if (!sbki_locate_state(b, c, j, &po, &pl, err, err_len) || !sbki_reserve(buf, cap, (size_t)pl) ||
                        !sbki_src_read(b, c, po, *buf, (size_t)pl)) {
                        SAY("cannot read state %u", j);
                        ok = false;
                        break;
                    }
                    expand(b, j, *buf, (size_t)pl, &q, i + 1, &again, st);
                    expanded++;
                    if (opt && opt->progress && expanded % 1024 == 0 &&
                        opt->progress(opt->ctx, expanded, b->n_states) == SBK_CANCEL) {
                        SAY("cancelled");
                        ok = false;
                    }
                }
                if (ok && opt && opt->progress && expanded % 1024 == 0 &&
                    opt->progress(opt->ctx, expanded, b->n_states) == SBK_CANCEL) {
                    SAY("cancelled");
                    ok = false;
                }
            }
            i++;
        }
        if (ok && r < 0)
            ok = false;
    }
    free(q.q);
    return ok;
}

SbkBook *sbk_open(const char *path, const SbkOpenOptions *opt, SbkOpenStats *stats, char *err, size_t err_len) {
    SbkOpenStats local;
    memset(&local, 0, sizeof local);
    SbkOpenStats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    SbkBook *b = calloc(1, sizeof *b);
    if (!b) {
        SAY("out of memory");
        return NULL;
    }
    b->fd = open(path, O_RDONLY);
    struct stat sb;
    if (b->fd < 0 || fstat(b->fd, &sb) != 0) {
        SAY("%s: %s", path, strerror(errno));
        sbk_close(b);
        return NULL;
    }
    b->size = (uint64_t)sb.st_size;
    size_t cache_bytes = opt && opt->cache_bytes ? opt->cache_bytes : SBK_CACHE_BYTES;
    Cache c = {0};
    c.page_bytes = PAGE_BYTES;
    c.n = cache_bytes / PAGE_BYTES ? cache_bytes / PAGE_BYTES : 1;
    c.pages = calloc(c.n, sizeof *c.pages);
    uint8_t *pool = c.pages ? malloc(c.n * PAGE_BYTES) : NULL;
    uint8_t *buf = NULL;
    size_t cap = 0;
    bool ok = pool != NULL;
    char why[256] = "out of memory";
    if (ok) {
        for (size_t i = 0; i < c.n; i++)
            c.pages[i].data = pool + i * PAGE_BYTES;
        ok = scan_top(b, &c, why, sizeof why);
    }
    if (ok) {
        st->states = b->n_states;
        b->rec = calloc((size_t)b->n_states, REC_BYTES);
        ok = b->rec != NULL;
        if (!ok)
            snprintf(why, sizeof why, "out of memory for %llu states", (unsigned long long)b->n_states);
    }
    ok = ok && scan_roots(b, &c, st, &buf, &cap, why, sizeof why) && walk(b, &c, opt, st, &buf, &cap, why, sizeof why);
    free(buf);
    free(pool);
    free(c.pages);
    if (!ok) {
        SAY("%s: %s", path, why);
        sbk_close(b);
        return NULL;
    }
    /* Keep the resolved records, sorted by key. */
    size_t w = 0;
    for (size_t i = 0; i < b->n_states; i++) {
        uint8_t *r = b->rec + i * REC_BYTES;
        uint32_t v = rec_index(r);
        if (v & REC_RESOLVED) {
            rec_set_index(r, v & REC_INDEX);
            if (w != i)
                memmove(b->rec + w * REC_BYTES, r, REC_BYTES);
            w++;
        }
    }
    b->n_rec = w;
    sbki_rec_heapsort(b->rec, w);
    for (size_t i = 1; i < w; i++)
        if (!memcmp(b->rec + i * REC_BYTES, b->rec + (i - 1) * REC_BYTES, 32))
            st->duplicate_keys++;
    if (w) {
        uint8_t *p = realloc(b->rec, w * REC_BYTES);
        if (p)
            b->rec = p;
    }
    st->indexed = w;
    st->unresolved = b->n_states - w;
    b->stats = *st;
    if (opt && opt->progress)
        opt->progress(opt->ctx, w, b->n_states);
    return b;
}

const char *sbk_author(const SbkBook *b) { return b->author; }
const char *sbk_description(const SbkBook *b) { return b->description; }
size_t sbk_state_count(const SbkBook *b) { return (size_t)b->n_states; }
size_t sbk_indexed_count(const SbkBook *b) { return b->n_rec; }

/* ---- entries ---- */

void sbk_entry_clear(SbkEntry *e) {
    if (e->msg_)
        sbook_state__free_unpacked(e->msg_, NULL);
    free(e->moves);
    free(e->evals);
    memset(e, 0, sizeof *e);
}

static SbkEval eval_from_msg(const SBookEval *v) {
    uint8_t present =
        (uint8_t)((v->has_value ? BOOK_EVAL_HAS_VALUE : 0) | (v->has_depth ? BOOK_EVAL_HAS_DEPTH : 0) |
                  (v->has_seldepth ? BOOK_EVAL_HAS_SEL_DEPTH : 0) | (v->has_nodes ? BOOK_EVAL_HAS_NODES : 0));
    return (SbkEval){.value = v->value,
                     .depth = v->depth,
                     .sel_depth = v->seldepth,
                     .nodes = v->nodes,
                     .variation = v->variation,
                     .engine_name = v->enginename,
                     .present = present};
}

/* The message of an analysis: numbers written when stored in the source (present) or
 * non-zero, as ShogiHome writes them; the strings point into e. */
void sbki_eval_to_msg(const SbkEval *e, SBookEval *m) {
    sbook_eval__init(m);
    m->has_value = e->value != 0 || (e->present & BOOK_EVAL_HAS_VALUE), m->value = e->value;
    m->has_depth = e->depth != 0 || (e->present & BOOK_EVAL_HAS_DEPTH), m->depth = e->depth;
    m->has_seldepth = e->sel_depth != 0 || (e->present & BOOK_EVAL_HAS_SEL_DEPTH), m->seldepth = e->sel_depth;
    m->has_nodes = e->nodes != 0 || (e->present & BOOK_EVAL_HAS_NODES), m->nodes = e->nodes;
    m->variation = (char *)e->variation;
    m->enginename = (char *)e->engine_name;
}

/* The score a move gets from its child's analysis: ShogiGUI stores values from black's
 * view, so a white move's score is the negated value (kept off INT32_MIN, which the IR
 * reserves). */
int32_t sbki_mover_score(int32_t black_value, Color mover) {
    int64_t v = mover == BLACK ? black_value : -(int64_t)black_value;
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : v);
}

/* The score and depth sbk_entry_to_book() gives a move of mover into book position c:
 * those of c's first analysis. False when c has none. */
bool sbki_child_eval_in_book(const Book *book, uint32_t c, Color mover, int32_t *score, int32_t *depth) {
    const BookEval *ev;
    if (!book_get_evals(book, c, &ev))
        return false;
    *score = sbki_mover_score(ev[0].value, mover);
    *depth = ev[0].depth > BOOK_DEPTH_MAX    ? BOOK_DEPTH_MAX
             : ev[0].depth < -BOOK_DEPTH_MAX ? -BOOK_DEPTH_MAX
                                             : ev[0].depth;
    return true;
}

/* Decodes the state of record k into *out. */
int sbki_read_entry(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    const uint8_t *r = b->rec + k * REC_BYTES;
    uint32_t index = rec_index(r);
    uint64_t off, len;
    if (!sbki_locate_state(b, NULL, index, &off, &len, err, err_len))
        return -1;
    uint8_t *buf = malloc(len ? (size_t)len : 1);
    if (!buf) {
        SAY("out of memory");
        return -1;
    }
    if (!sbki_src_read(b, NULL, off, buf, (size_t)len)) {
        free(buf);
        SAY("cannot read state %u", index);
        return -1;
    }
    SBookState *s = sbook_state__unpack(NULL, (size_t)len, buf);
    free(buf);
    if (!s) {
        SAY("state %u does not decode", index);
        return -1;
    }
    out->msg_ = s;
    out->index = index;
    out->id = s->id;
    memcpy(out->key.data, r, 32);
    out->ply = rec_ply(r);
    Position pos;
    StateInfo si;
    if (!book_key_to_position(&out->key, &pos, &si, out->ply)) {
        sbk_entry_clear(out);
        SAY("state %u: bad key", index);
        return -1;
    }
    position_to_sfen(&pos, out->sfen, true);
    out->explicit_position = s->position != NULL;
    out->position = s->position;
    out->comment = s->comment;
    out->board_key = s->boardkey;
    out->hand_key = s->handkey;
    out->games = s->games;
    out->won_black = s->wonblack;
    out->won_white = s->wonwhite;
    if (s->n_moves) {
        out->moves = calloc(s->n_moves, sizeof *out->moves);
        if (!out->moves) {
            sbk_entry_clear(out);
            SAY("out of memory");
            return -1;
        }
    }
    out->n_moves = s->n_moves;
    for (size_t i = 0; i < s->n_moves; i++) {
        const SBookMove *m = s->moves[i];
        SbkMove *o = &out->moves[i];
        o->word = m->move;
        o->evaluation = m->evaluation;
        o->weight = m->weight;
        o->next_state_id = m->has_nextstateid ? m->nextstateid : -1;
        if (sbk_move_decode(m->move, &o->move))
            o->legal = position_legal_move_from16(&pos, o->move) != MOVE_NONE;
        else
            o->move = MOVE_NONE;
    }
    if (s->n_evals) {
        out->evals = calloc(s->n_evals, sizeof *out->evals);
        if (!out->evals) {
            sbk_entry_clear(out);
            SAY("out of memory");
            return -1;
        }
    }
    out->n_evals = s->n_evals;
    for (size_t i = 0; i < s->n_evals; i++)
        out->evals[i] = eval_from_msg(s->evals[i]);
    return 1;
}

int sbk_lookup_position(const SbkBook *b, const Position *pos, SbkEntry *out, char *err, size_t err_len) {
    BookKey key;
    book_key_from_position(pos, &key);
    size_t k = sbki_rec_lower_bound(b, &key);
    if (k == b->n_rec || memcmp(b->rec + k * REC_BYTES, key.data, 32)) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return sbki_read_entry(b, k, out, err, err_len);
}

int sbk_lookup_sfen(const SbkBook *b, const char *sfen, SbkEntry *out, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, sfen, err, err_len)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return sbk_lookup_position(b, &pos, out, err, err_len);
}

int sbk_entry_at(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len) {
    if (k >= b->n_rec) {
        memset(out, 0, sizeof *out);
        SAY("entry %zu out of range", k);
        return -1;
    }
    return sbki_read_entry(b, k, out, err, err_len);
}

/* The record of the state move k of parent (in position pos) leads to: the one with the
 * key the move gives and the edge's index (a child resolved otherwise, by an explicit
 * SFEN or a contradictory edge, has none). Returns the record number or -1. */
static int64_t child_record(const SbkBook *b, Position *pos, const SbkMove *m) {
    uint32_t index;
    if (!m->legal || !sbk_index_of_id(b, m->next_state_id, &index))
        return -1;
    Move mv = position_legal_move_from16(pos, m->move);
    if (!mv)
        return -1;
    BookKey key;
    book_key_after_move(pos, mv, &key);
    for (size_t r = sbki_rec_lower_bound(b, &key); r < b->n_rec && !memcmp(b->rec + r * REC_BYTES, key.data, 32); r++)
        if (rec_index(b->rec + r * REC_BYTES) == index)
            return (int64_t)r;
    return -1;
}

int sbk_child_entry(const SbkBook *b, const SbkEntry *parent, size_t k, SbkEntry *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    Position pos;
    StateInfo st;
    if (k >= parent->n_moves || !book_key_to_position(&parent->key, &pos, &st, parent->ply))
        return 0;
    int64_t r = child_record(b, &pos, &parent->moves[k]);
    return r < 0 ? 0 : sbki_read_entry(b, (size_t)r, out, err, err_len);
}

/* The value and depth of the first SBookEval of state index, read with the light field
 * scanner (no protobuf-c, no position): 1 found, 0 none, -1 with the reason in err. */
static int first_eval_of(const SbkBook *b, uint32_t index, int32_t *value, int32_t *depth, char *err, size_t err_len) {
    uint64_t off, len;
    if (!sbki_locate_state(b, NULL, index, &off, &len, err, err_len))
        return -1;
    uint8_t *buf = malloc(len ? (size_t)len : 1);
    if (!buf || !sbki_src_read(b, NULL, off, buf, (size_t)len)) {
        free(buf);
        SAY("cannot read state %u", index);
        return -1;
    }
    const uint8_t *p = buf, *end = buf + len;
    MemField f;
    int r = 0, found = 0;
    while (!found && (r = sbki_mem_field(&p, end, &f)) > 0) {
        if (f.number != 10 || f.wt != 2)
            continue;
        const uint8_t *q = f.ptr, *qend = f.ptr + f.len;
        MemField g;
        int gr;
        *value = *depth = 0;
        while ((gr = sbki_mem_field(&q, qend, &g)) > 0) /* the last occurrence wins, as in protobuf */
            if (g.wt == 0 && (g.number == 1 || g.number == 2))
                *(g.number == 1 ? value : depth) = (int32_t)(uint32_t)g.value;
        found = gr < 0 ? -1 : 1;
    }
    free(buf);
    if (found < 0 || (!found && r < 0)) {
        SAY("state %u does not decode", index);
        return -1;
    }
    return found;
}

bool sbk_fill_child_evals(const SbkBook *b, SbkEntry *e, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    if (!book_key_to_position(&e->key, &pos, &st, e->ply))
        return true;
    for (size_t k = 0; k < e->n_moves; k++) {
        int64_t r = child_record(b, &pos, &e->moves[k]);
        if (r < 0)
            continue;
        int32_t value, depth;
        int found = first_eval_of(b, rec_index(b->rec + (size_t)r * REC_BYTES), &value, &depth, err, err_len);
        if (found < 0)
            return false;
        if (found) {
            e->moves[k].has_child_eval = true;
            e->moves[k].child_score = sbki_mover_score(value, pos.side);
            e->moves[k].child_depth = depth;
        }
    }
    return true;
}

int sbk_probe(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len) {
    const SbkBook *b = ctx;
    SbkEntry e;
    out->n = 0;
    int r = sbk_lookup_position(b, pos, &e, err, err_len);
    if (r <= 0)
        return r;
    if (!sbk_fill_child_evals(b, &e, err, err_len)) {
        sbk_entry_clear(&e);
        return -1;
    }
    out->ply = e.ply;
    for (size_t k = 0; k < e.n_moves && out->n < BOOK_MAX_MOVES; k++) {
        const SbkMove *m = &e.moves[k];
        if (!m->legal)
            continue;
        BookMove *o = &out->moves[out->n++];
        memset(o, 0, sizeof *o);
        o->move = m->move;
        o->count = m->weight > 0 ? (uint64_t)m->weight : 0;
        if (m->has_child_eval) {
            o->score = m->child_score, o->has_score = true;
            o->depth = m->child_depth, o->has_depth = true;
        }
    }
    sbk_entry_clear(&e);
    return 1;
}
