/* nnue.h - YaneuraOu-compatible halfKP NNUE evaluation (bit-exact).
 *
 * Supported nets (YaneuraOu's "classic" NNUE file format, version 0x7AF32F16):
 *   halfKP_256x2-32-32, halfKP_512x2-16-32 and halfKP_1024x2-8-32.
 * A net is loaded once, checked in full (version, hash, architecture string, section
 * hashes, exact file length) and is then read-only: any number of threads may evaluate
 * with it at the same time.
 *
 * Two ways to evaluate:
 *  - from scratch: nnue_evaluate_full(), or the Evaluator eval_nnue (thread-safe);
 *  - incrementally: each search thread owns an EvalStack, resets it at the root, calls
 *    eval_stack_push() after every position_do_move()/position_do_null_move() and eval_stack_pop()
 *    after the matching undo. Accumulators are computed lazily from the nearest
 *    computed ancestor (refreshed when that side's king moved). After
 *    eval_stack_bind_thread(stack), eval_nnue.evaluate() on that thread uses the stack
 *    whenever the position matches its top, so the search needs no other change.
 * See docs/nnue.md for the format and the wiring.
 */
#ifndef HAYANAGI_EVAL_NNUE_H
#define HAYANAGI_EVAL_NNUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/eval.h"

enum {
    NNUE_VERSION = 0x7AF32F16,
    NNUE_FE_END = 1548,                    /* BonaPieces without the kings */
    NNUE_INPUT_DIMS = SQ_NB * NNUE_FE_END, /* 125388 halfKP features per perspective */
    NNUE_MAX_ACTIVE = 38,                  /* piece slots: every piece but the kings */
    NNUE_L1_MAX = 1024,                    /* the largest transformer half supported */
    NNUE_VALUE_MAX_EVAL = 27000,           /* YaneuraOu clamps the score to +-this */
    NNUE_ARCH_MAX = 4096,                  /* longest architecture string accepted */
    NNUE_STACK_SIZE = MAX_PLY + 16         /* entries of an EvalStack */
};

typedef struct NnueNet NnueNet;

/* The shape of a supported architecture. */
typedef struct {
    int l1;            /* transformer outputs per perspective: 256, 512 or 1024 */
    int h1;            /* first hidden layer: 32, 16 or 8 */
    int h2;            /* second hidden layer: 32 */
    uint32_t hash;     /* the file's top hash = transformer hash ^ network hash */
    uint32_t ft_hash;  /* hash in front of the feature transformer */
    uint32_t net_hash; /* hash in front of the network layers */
    size_t file_size;  /* exact size of a file holding this net with its canonical string */
} NnueArch;

/* The architectures supported, by index 0..count-1 (256, 512, 1024). */
int nnue_arch_count(void);
const NnueArch *nnue_arch_get(int i);
/* Writes the canonical YaneuraOu architecture string of a into buf; returns its length. */
size_t nnue_arch_string(const NnueArch *a, char *buf, size_t len);

/* Loads a net from memory or from a file. On failure returns NULL and writes a reason
 * (quoting an unsupported architecture string) into err. The file length is checked
 * before anything large is allocated. */
NnueNet *nnue_load_memory(const uint8_t *data, size_t len, char *err, size_t err_len);
NnueNet *nnue_load_file(const char *path, char *err, size_t err_len);
/* nnue_load_memory(), except that the net may use the feature transformer weights where
 * they lie in data instead of copying them (when they are 32-byte aligned on a
 * little-endian host): data must then stay unchanged until nnue_free(). For callers that
 * load the same large buffer many times (the fuzz target). */
NnueNet *nnue_load_memory_borrowed(const uint8_t *data, size_t len, char *err, size_t err_len);
void nnue_free(NnueNet *net);
const NnueArch *nnue_net_arch(const NnueNet *net);
const char *nnue_net_architecture(const NnueNet *net); /* the string read from the file */

/* The AVX2 path is used when compiled in (__AVX2__) unless switched off here (tests,
 * benchmarks). Both paths give identical results. Not to be changed during a search. */
bool nnue_simd_available(void);
void nnue_set_simd(bool on);

/* Evaluation from scratch, from the side to move's point of view: the network output
 * divided by fv_scale, clamped to +-NNUE_VALUE_MAX_EVAL. pos must have both kings. */
Value nnue_evaluate_full(const NnueNet *net, const Position *pos, int fv_scale);

/* The halfKP feature indices of pos for perspective c (BLACK or WHITE): always
 * NNUE_MAX_ACTIVE of them, pieces missing from a full set counting as BonaPiece 0, as in
 * YaneuraOu's piece list. Returns the count written to out. For tests and tools. */
int nnue_active_features(const Position *pos, Color c, uint32_t *out);

/* ---- the engine's current net (an engine singleton, changed only while no search runs) ---- */

/* Makes net (owned from now on; NULL to drop) the net of eval_nnue, freeing the previous
 * one, and sets FV_SCALE (1..128; out-of-range values fall back to 16). */
void nnue_set_current(NnueNet *net, int fv_scale);
const NnueNet *nnue_current(void);
int nnue_current_fv_scale(void);

/* Evaluates with the current net; falls back to eval_classic when no net is loaded or a
 * king is missing. Uses the thread's bound EvalStack when its top is this position. */
extern const Evaluator eval_nnue;

/* For the USI options EvalDir/EvalFile/FV_SCALE: resolves the path by util/path.h's rule
 * (the one BookDir/BookFile use: dir next to the executable first), loads it, makes it current
 * and selects eval_nnue; on failure keeps the embedded evaluation selected. Always writes
 * a one-line message for an "info string" into msg. Returns true when a net is in use. */
bool nnue_load_and_select(const char *eval_dir, const char *eval_file, int fv_scale, char *msg, size_t msg_len);

/* ---- incremental evaluation ---- */

/* The stack itself (EvalStack: new, free, reset, push, pop, bind) is declared in
 * eval/eval.h, so the search reaches it without seeing NNUE; it is implemented in nnue.c. */

/* Evaluates pos, which should be the stack's top; any other position (or no net, or a
 * missing king) is evaluated from scratch. */
Value nnue_evaluate_incremental(EvalStack *s, const Position *pos);

/* Statistics of a stack since its creation, for tests and benchmarks. */
typedef struct {
    uint64_t incremental, refreshes, fallbacks; /* perspective updates, refreshes, unmatched evaluations */
} NnueStackStats;
NnueStackStats nnue_stack_stats(const EvalStack *s);

#endif
