/* sbk.h - ShogiGUI/ShogiHome SBK opening books (.sbk): a streaming on-demand reader, the
 * import into the book IR, and a writer from the IR.
 *
 * An SBK file is one Protocol Buffers message SBook (proto/sbk.proto; docs/formats/sbk.md, "Wire format"):
 * author, description and a repeated SBookState. States are vertices; each candidate move
 * carries the logical id of its child state (nextStateId), and only roots carry an SFEN.
 * docs/formats/sbk.md has the details, the move word layout and the limits.
 *
 * Reader. sbk_open() never holds the file in memory. It scans the top level by tag and
 * length, records where every 16th state starts, reads each state's id and explicit
 * position with a light field scanner, then walks the nextStateId edges from the roots
 * (explicit positions, or state 0 as the start position) playing each move, which gives
 * every reachable state its 32-byte PackedSfen and ply. The walk reads the file through a
 * page cache of at most 4 MiB; a bad edge (id out of range, a move word that does not
 * decode or is illegal, a ply past 65535) skips only its own branch, and cycles end because
 * every state is resolved once. The result is a sorted array of 38-byte records (key,
 * physical index, ply), so the index costs 38 bytes per state plus 8 bytes per 16 states
 * for the offsets, and 8 more bytes per state only when some id differs from its index
 * (no known writer does that). Lookups binary-search the keys and decode the one state
 * they hit with protobuf-c.
 *
 * Threads. After sbk_open() returns, lookups and iteration only read the handle (pread),
 * so any number of threads may use one SbkBook at once.
 */
#ifndef HAYANAGI_BOOK_SBK_H
#define HAYANAGI_BOOK_SBK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "util/progress.h"

enum {
    SBK_CACHE_BYTES = 4 << 20,      /* page cache used while the index is built */
    SBK_MAX_STATE_BYTES = 16 << 20, /* larger states are refused (bounded memory) */
    SBK_MAX_STATES = 1 << 30,       /* more states than this: the open fails */
    SBK_MAX_PLY = 65535,            /* plies are u16, as in rsshogi's reader */
    SBK_MAX_TEXT = 1 << 20          /* author/description longer than this are cut */
};

/* SBookMove.evaluation, the mark a user gave a move. */
enum { SBK_EVAL_NONE, SBK_EVAL_FORCED, SBK_EVAL_GOOD, SBK_EVAL_BAD, SBK_EVAL_BLUNDER };

typedef enum { SBK_CONTINUE, SBK_CANCEL } SbkControl;

/* Called while the index is built with the states indexed so far and the total. */
typedef SbkControl (*SbkProgressFn)(void *ctx, uint64_t indexed, uint64_t total);

typedef struct {
    SbkProgressFn progress; /* may be NULL */
    void *ctx;
    size_t cache_bytes; /* page cache size; 0 means SBK_CACHE_BYTES */
} SbkOpenOptions;

/* What the open found; every counter but states and indexed is a diagnostic. */
typedef struct {
    uint64_t states;          /* SBookState records in the file */
    uint64_t indexed;         /* states with a known position (the lookup index) */
    uint64_t roots;           /* states with an explicit position, plus state 0 without one */
    uint64_t unresolved;      /* states no walk reached (orphans, cut-off branches) */
    uint64_t bad_positions;   /* states that do not parse, explicit SFENs that do not parse or
                                 whose ply exceeds u16 */
    uint64_t bad_edges;       /* nextStateId out of range or naming no state */
    uint64_t bad_moves;       /* edges whose move word does not decode or is illegal */
    uint64_t ply_overflow;    /* edges cut because the ply would pass SBK_MAX_PLY */
    uint64_t contradictions;  /* edges into a resolved state whose position differs */
    uint64_t duplicate_ids;   /* ids used by more than one state (the first one wins) */
    uint64_t duplicate_keys;  /* indexed states sharing a position with another one */
    uint64_t side_mismatches; /* move words whose bit 31 and bit 28 disagree */
    uint64_t passes;          /* walks over the file the index build needed */
    bool ids_are_indices;     /* every id equals its index: no id map was kept */
} SbkOpenStats;

/* One SBookEval: the IR's BookEval (value from black's view, as ShogiGUI stores it;
 * present says which numbers the file stored, zeros included). */
typedef BookEval SbkEval;

typedef struct {
    int32_t word;       /* the raw move word */
    Move16 move;        /* decoded, MOVE_NONE when the word does not decode */
    bool legal;         /* move is legal in the entry's position */
    int32_t evaluation; /* SBK_EVAL_* (other values are kept as they are) */
    int32_t weight;
    int32_t next_state_id; /* logical id of the child, -1 when none */
    /* The child's first engine analysis (sbk_fill_child_evals()): ShogiGUI stores values
     * from black's view, so score is value for a black move and -value for a white one. */
    bool has_child_eval;
    int32_t child_score, child_depth;
} SbkMove;

/* One decoded state. Filled by the lookups; the caller releases it with sbk_entry_clear().
 * Strings and arrays point into memory the entry owns. */
typedef struct {
    uint32_t index;         /* physical index in the file */
    int32_t id;             /* logical id */
    BookKey key;            /* normalised position */
    int ply;                /* SFEN move number (from the position or the walk) */
    char sfen[SFEN_MAX];    /* canonical SFEN with the ply */
    bool explicit_position; /* the state carries its own SFEN */
    uint64_t board_key;     /* ShogiGUI's private hashes, kept but never used */
    uint32_t hand_key;
    int32_t games, won_black, won_white;
    const char *position; /* the stored SFEN text, NULL when absent */
    const char *comment;  /* NULL when absent */
    size_t n_moves;
    SbkMove *moves;
    size_t n_evals;
    SbkEval *evals;
    void *msg_; /* the protobuf-c message (owned) */
} SbkEntry;

typedef struct SbkBook SbkBook;

/* Opens path and builds the index. opt and st may be NULL. Returns the handle (free it
 * with sbk_close()) or NULL with the reason in err: cannot open or read, a truncated
 * file, a length past the end, a varint longer than 10 bytes, a group or unknown wire
 * type at the top level, a state larger than SBK_MAX_STATE_BYTES, more than
 * SBK_MAX_STATES states, no state at all, or cancelled by the progress callback. */
SbkBook *sbk_open(const char *path, const SbkOpenOptions *opt, SbkOpenStats *st, char *err, size_t err_len);
void sbk_close(SbkBook *b);

const char *sbk_author(const SbkBook *b);      /* NULL when absent */
const char *sbk_description(const SbkBook *b); /* NULL when absent */
size_t sbk_state_count(const SbkBook *b);
size_t sbk_indexed_count(const SbkBook *b);

/* Looks a position up. Returns 1 and fills *out on a hit (the lowest physical index when
 * several states share the position), 0 on a miss, -1 with the reason in err when the
 * state cannot be read or decoded. */
int sbk_lookup_position(const SbkBook *b, const Position *pos, SbkEntry *out, char *err, size_t err_len);
int sbk_lookup_sfen(const SbkBook *b, const char *sfen, SbkEntry *out, char *err, size_t err_len);

/* The k-th indexed state in key order, 0 <= k < sbk_indexed_count(): iteration over all
 * entries. Returns 1, or -1 with the reason in err. */
int sbk_entry_at(const SbkBook *b, size_t k, SbkEntry *out, char *err, size_t err_len);

/* The state that move k of parent leads to, through its nextStateId. Returns 1 and
 * fills *out, 0 when the move has no child (or its child is not indexed), -1 on error. */
int sbk_child_entry(const SbkBook *b, const SbkEntry *parent, size_t k, SbkEntry *out, char *err, size_t err_len);

/* Fills has_child_eval, child_score and child_depth of every move of e from the first
 * SBookEval of its child state. Returns false with the reason in err when a child cannot
 * be read. */
bool sbk_fill_child_evals(const SbkBook *b, SbkEntry *e, char *err, size_t err_len);

/* Maps a logical id to a physical index. False when no state has that id. */
bool sbk_index_of_id(const SbkBook *b, int32_t id, uint32_t *index);

/* Releases what an entry owns and zeroes it. Safe on a zeroed entry. */
void sbk_entry_clear(SbkEntry *e);

/* A BookProbeFn over an SbkBook (ctx): the entry's legal moves with count =
 * max(weight, 0) and score and depth from the child's first analysis when there is one. */
int sbk_probe(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len);

/* ---- move words ---- */

/* Decodes a move word into the engine's 16-bit move (from, to, promotion, drop piece;
 * the redundant piece and capture fields are not needed). False for a word that names
 * no move: squares off the board, a drop of a king or a promoted piece, reserved bits. */
bool sbk_move_decode(int32_t word, Move16 *out);

/* Encodes m, legal in pos, as ShogiGUI does (moving piece before the move, captured
 * piece with its promotion, side in bits 31 and 28). False when m is not legal in pos. */
bool sbk_move_encode(const Position *pos, Move16 m, int32_t *word);

/* ---- the IR ---- */

typedef struct {
    uint64_t positions, moves;
    uint64_t illegal_moves; /* moves skipped because they are not legal in the position */
    uint64_t evals;         /* SBookEval records carried into the IR (book_set_evals()) */
} SbkImportStats;

/* entry_from_sbk: adds the entry's position (key, ply) and its legal moves to book, with
 * count = max(weight, 0), score and depth from the child analysis when filled in
 * (sbk_fill_child_evals()), and attaches the statistics: games, wins and comment to the
 * position, weight and evaluation mark to each move, and every SBookEval of the state,
 * all fields, as the position's analyses. Returns false when memory runs out. */
bool sbk_entry_to_book(Book *book, const SbkEntry *e, SbkImportStats *st);

/* Every indexed entry into book. progress may be NULL. Returns false with the reason in
 * err. */
bool sbk_to_book(const SbkBook *b, Book *book, Progress *progress, SbkImportStats *st, char *err, size_t err_len);

typedef struct {
    const char *author;      /* NULL: not written */
    const char *description; /* NULL: not written */
    Progress *progress;      /* may be NULL; positions written */
} SbkWriteOptions;

/* What SBK cannot carry, counted over the moves written. */
typedef struct {
    uint64_t states, moves, roots, linked_moves;
    uint64_t ponders;        /* moves with a ponder (Unsupported) */
    uint64_t depths;         /* moves with a depth (Unsupported) */
    uint64_t scores;         /* moves with a score (Unsupported) */
    uint64_t counts;         /* moves whose count does not equal the weight written (Unsupported) */
    uint64_t illegal_moves;  /* moves not legal in their position: not written */
    uint64_t weight_clamped; /* counts past INT32_MAX written as INT32_MAX */
} SbkWriteReport;

/* Writes book as SBK (ShogiHome style: zero fields omitted) to path atomically: roots
 * first (positions no book move reaches, the start position leading; one state of every
 * cycle that nothing else reaches), the rest in breadth-first order, id == index,
 * nextStateId rebuilt by playing each move (-1 when the child is not in the book),
 * boardKey and handKey 0, games, wins, comment, weight and evaluation mark from the
 * statistics (weight = count when a move has none or its statistics hold weight 0, as a
 * record made only for a comment does), the position's analyses as its
 * evals (numbers written when non-zero or marked present). Roots carry their SFEN. A
 * move's score and depth are reported as unsupported unless they are what the child's
 * first analysis gives back on reading. Returns false with the reason in err; the
 * previous file at path is then untouched. */
bool sbk_write_file(const char *path, const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, char *err,
                    size_t err_len);

/* The same into a malloc'd buffer (*out, *len; the caller frees it). */
bool sbk_write_memory(const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, uint8_t **out, size_t *len,
                      char *err, size_t err_len);

/* ---- the patch writer (docs/formats/sbk.md, "Patch writer") ---- */

typedef enum {
    SBK_OK,
    SBK_ERR_IO,           /* cannot read the source or write the output */
    SBK_ERR_INVALID_DATA, /* the source or the result breaks a rule (see below) */
    SBK_ERR_UNSUPPORTED,  /* a field SBK cannot express */
    SBK_ERR_CANCELLED,
    SBK_ERR_NO_MEMORY
} SbkError;

typedef enum { SBK_PHASE_VALIDATING, SBK_PHASE_WRITING } SbkPhase;

/* done counts source states processed in the phase (new states do not move it). */
typedef SbkControl (*SbkPatchProgressFn)(void *ctx, SbkPhase phase, uint64_t done, uint64_t total);

typedef struct {
    Move16 move;
    int32_t weight;
    int32_t evaluation; /* SBK_EVAL_* */
} SbkPatchMove;

/* The new content of one position. */
typedef struct {
    BookKey key;
    int ply; /* SFEN move number; 0 = none given (a new state then takes its parent's + 1, or 1) */
    int32_t games, won_black, won_white;
    const char *comment; /* NULL: none */
    size_t n_moves;
    const SbkPatchMove *moves;
    /* The state's analyses: with set_evals false a replaced state keeps its own and a new
     * one has none; with set_evals true they become evals[0..n_evals). */
    bool set_evals;
    size_t n_evals;
    const SbkEval *evals;
} SbkPatchEntry;

typedef struct SbkPatch SbkPatch;

SbkPatch *sbk_patch_create(void);
void sbk_patch_free(SbkPatch *p);

/* Replaces (or adds, when the source has no state for the key) the entry of a position;
 * a second put of the same key replaces the first. Everything is copied. False when
 * memory runs out. */
bool sbk_patch_put(SbkPatch *p, const SbkPatchEntry *e);

/* Deletes the state of a position (a no-op when the source has none). */
bool sbk_patch_delete(SbkPatch *p, const BookKey *key);

/* Puts position id of an IR book (its moves with the weight of their statistics, or the
 * count when they hold none or 0, their marks, the position statistics, and its analyses when it has any).
 * Returns SBK_ERR_UNSUPPORTED, with the reason in err and nothing put, when a move has a
 * ponder, a count that differs from its statistics' weight, or a score or depth other
 * than what the child's first analysis in the book gives (sbk_entry_to_book() derives
 * them that way): SBK cannot carry them. */
SbkError sbk_patch_put_from_book(SbkPatch *p, const Book *book, uint32_t id, char *err, size_t err_len);

/* Writes src with the patch applied to dst (which may be src's path) atomically.
 *   - The physical order of src is kept; replaced states stay in place, deleted ones go,
 *     new states are appended in normalised SFEN order; ids are renumbered to id == index.
 *   - Existing moves keep their links (remapped); a link to a deleted child becomes -1,
 *     the move stays. New moves of replaced and new states link to the output state of
 *     the position they lead to, or -1. A terminal move of an untouched state is never
 *     connected to a new state.
 *   - Author, description, unknown top-level fields, untouched states (bytes as they
 *     are when nothing about them changes, so an empty patch reproduces src byte for
 *     byte), evals and unknown fields of states and of moves that stay are kept;
 *     replaced states get boardKey and handKey 0.
 *   - An SFEN is filled in on the first output state, on every state the output graph
 *     does not reach from a state with one, and on a put state whose ply the graph would
 *     not give; explicit SFENs are kept.
 *   - A put with set_evals replaces the state's evals, except that evals carrying unknown
 *     fields are kept as they are when the known values do not change (and a change to
 *     them is refused with SBK_ERR_UNSUPPORTED: the unknown fields could not follow).
 * Refused with SBK_ERR_INVALID_DATA, before anything is written: a source with duplicate
 * positions, unresolved states, illegal moves, contradictory edges, references to no
 * state, or a ply past 65535; a patch move that is illegal; an output ply past 65535
 * along the output graph; an empty result. progress (may be NULL) sees the Validating
 * and the Writing phase and can cancel either. On any failure the patch is unchanged
 * and dst is untouched. */
SbkError sbk_write_with_patch(const SbkBook *src, const SbkPatch *patch, const char *dst, SbkPatchProgressFn progress,
                              void *ctx, char *err, size_t err_len);

/* sbk_write_with_patch() with an empty patch from the book at src. */
bool sbk_resave(const char *src, const char *dst, char *err, size_t err_len);

#endif
