/* nnue.c - YaneuraOu-compatible halfKP NNUE: loader, inference (portable and AVX2),
 * incremental accumulators. The file format and the arithmetic are described in
 * docs/nnue.md; every integer operation below mirrors YaneuraOu's classic NNUE so that
 * scores are bit-exact: int16 accumulators (wrapping), clamp to 0..127, int32 affine
 * layers, ">> 6" then clamp, output / FV_SCALE. */
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "eval/nnue.h"
#include "util/path.h"
#include "util/error.h"

/* ---- architectures ---- */

#define NNUE_FT_HASH_BASE    0x5D69D5B8u /* HalfKP(Friend): 0x5D69D5B9 ^ 1 */
#define AFF_HASH(out, prev)  ((0xCC03DAE4u + (uint32_t)(out)) ^ ((uint32_t)(prev) >> 1) ^ ((uint32_t)(prev) << 31))
#define RELU_HASH(prev)      (0x538D24C7u + (uint32_t)(prev))
#define SLICE_HASH(n)        (0xEC42E90Du ^ (uint32_t)(n))
#define NET_HASH(l1, h1, h2) AFF_HASH(1, RELU_HASH(AFF_HASH(h2, RELU_HASH(AFF_HASH(h1, SLICE_HASH(2 * (l1)))))))
#define FT_HASH(l1)          (NNUE_FT_HASH_BASE ^ (uint32_t)(2 * (l1)))
#define PAD32(n)             (((n) + 31) / 32 * 32)
/* Bytes after the architecture string: two section hashes and the parameters. */
#define BODY_SIZE(l1, h1, h2)                                                                                          \
    ((size_t)4 + 2 * (size_t)(l1) + 2 * (size_t)NNUE_INPUT_DIMS * (l1) + 4 + (4 + 2 * (size_t)(l1)) * (h1) +           \
     (4 + (size_t)PAD32(h1)) * (h2) + (4 + (size_t)PAD32(h2)))

#define ARCH_STR(l1, h1, two_l1, first)                                                                                \
    "Features=HalfKP(Friend)[125388->" #l1                                                                             \
    "x2],Network=AffineTransform[1<-32](ClippedReLU[32](AffineTransform[32<-" #h1 "](ClippedReLU[" #h1 "](" first      \
    "[" #h1 "<-" #two_l1 "](InputSlice[" #two_l1 "(0:" #two_l1 ")])))))"
#define ARCH(l1, h1, two_l1)                                                                                           \
    {                                                                                                                  \
        {l1,                                                                                                           \
         h1,                                                                                                           \
         32,                                                                                                           \
         FT_HASH(l1) ^ NET_HASH(l1, h1, 32),                                                                           \
         FT_HASH(l1),                                                                                                  \
         NET_HASH(l1, h1, 32),                                                                                         \
         12 + sizeof ARCH_STR(l1, h1, two_l1, "AffineTransform") - 1 + BODY_SIZE(l1, h1, 32)},                         \
            ARCH_STR(l1, h1, two_l1, "AffineTransform"), ARCH_STR(l1, h1, two_l1, "AffineTransformSparseInput")        \
    }

typedef struct {
    NnueArch arch;
    const char *canonical;
    const char *sparse; /* the same net as newer YaneuraOu builds describe it */
} ArchEntry;

static const ArchEntry ARCHS[] = {ARCH(256, 32, 512), ARCH(512, 16, 1024), ARCH(1024, 8, 2048)};
enum { ARCH_NB = sizeof ARCHS / sizeof ARCHS[0] };

int nnue_arch_count(void) { return ARCH_NB; }
const NnueArch *nnue_arch_get(int i) { return i >= 0 && i < ARCH_NB ? &ARCHS[i].arch : NULL; }

static const ArchEntry *arch_entry(const NnueArch *a) { return (const ArchEntry *)(const void *)a; }

size_t nnue_arch_string(const NnueArch *a, char *buf, size_t len) {
    const char *s = arch_entry(a)->canonical;
    if (len)
        snprintf(buf, len, "%s", s);
    return strlen(s);
}

/* ---- nets ---- */

struct NnueNet {
    const NnueArch *arch;
    int16_t *ft_bias;               /* [l1] */
    int16_t *ft_weight;             /* [NNUE_INPUT_DIMS][l1] */
    bool ft_weight_borrowed;        /* ft_weight points into the caller's memory */
    alignas(32) int8_t w1[16384];   /* [h1][2 * l1]: 16384 bytes for every supported net */
    alignas(32) int8_t w1t[16384];  /* the same transposed, [2 * l1][h1], for the portable path */
    alignas(32) int8_t w2[32 * 32]; /* [h2][32] */
    alignas(32) int8_t w3[32];      /* [1][32] */
    int32_t b1[32], b2[32], b3;
    char architecture[NNUE_ARCH_MAX + 1];
};

void nnue_free(NnueNet *net) {
    if (!net)
        return;
    free(net->ft_bias);
    if (!net->ft_weight_borrowed)
        free(net->ft_weight);
    free(net);
}

const NnueArch *nnue_net_arch(const NnueNet *net) { return net->arch; }
const char *nnue_net_architecture(const NnueNet *net) { return net->architecture; }

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Quotes s (possibly binary) into buf: printable ASCII kept, the rest as '?', long
 * strings shortened. */
static void quote(const uint8_t *s, size_t n, char *buf, size_t len) {
    size_t k = 0, limit = n < 240 ? n : 240;
    for (size_t i = 0; i < limit && k + 1 < len; i++)
        buf[k++] = s[i] >= 32 && s[i] < 127 ? (char)s[i] : '?';
    if (n > limit && k + 4 < len) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    if (len)
        buf[k < len ? k : len - 1] = '\0';
}

typedef struct {
    const uint8_t *mem; /* memory source, or */
    FILE *f;            /* file source */
    size_t pos, len;
    bool borrow; /* memory source: the feature transformer weights may stay there */
} Reader;

static bool rd(Reader *r, void *dst, size_t n) {
    if (n > r->len - r->pos)
        return false;
    if (r->mem) {
        memcpy(dst, r->mem + r->pos, n);
    } else if (fread(dst, 1, n, r->f) != n) {
        return false;
    }
    r->pos += n;
    return true;
}

static bool rd32(Reader *r, uint32_t *v) {
    uint8_t b[4];
    if (!rd(r, b, 4))
        return false;
    *v = le32(b);
    return true;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NNUE_HOST_LITTLE 0
static void fix16(int16_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = (int16_t)(((uint16_t)p[i] >> 8) | ((uint16_t)p[i] << 8));
}
static void fix32(int32_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = (int32_t)le32((const uint8_t *)&p[i]);
}
#else
#define NNUE_HOST_LITTLE 1
static void fix16(int16_t *p, size_t n) { (void)p, (void)n; }
static void fix32(int32_t *p, size_t n) { (void)p, (void)n; }
#endif

static void *alloc32(size_t n) { return aligned_alloc(32, (n + 31) / 32 * 32); }

static NnueNet *load(Reader *r, char *err, size_t err_len) {
    char q[300];
    uint8_t head[12];
    if (!rd(r, head, 12)) {
        error_set(err, err_len, "truncated file: %zu bytes, shorter than the 12-byte header", r->len);
        return NULL;
    }
    uint32_t version = le32(head), hash = le32(head + 4), arch_len = le32(head + 8);
    if (version != NNUE_VERSION) {
        error_set(err, err_len, "not a YaneuraOu NNUE file: version 0x%08X, expected 0x%08X", version,
                  (unsigned)NNUE_VERSION);
        return NULL;
    }
    if (arch_len > NNUE_ARCH_MAX) {
        error_set(err, err_len, "architecture string of %u bytes (at most %d accepted)", arch_len, NNUE_ARCH_MAX);
        return NULL;
    }
    uint8_t arch[NNUE_ARCH_MAX + 1];
    if (!rd(r, arch, arch_len)) {
        error_set(err, err_len, "truncated file: %zu bytes, the architecture string needs %u", r->len, arch_len);
        return NULL;
    }
    arch[arch_len] = '\0';
    const ArchEntry *a = NULL;
    for (int i = 0; i < ARCH_NB && !a; i++)
        if ((strlen(ARCHS[i].canonical) == arch_len && memcmp(arch, ARCHS[i].canonical, arch_len) == 0) ||
            (strlen(ARCHS[i].sparse) == arch_len && memcmp(arch, ARCHS[i].sparse, arch_len) == 0))
            a = &ARCHS[i];
    if (!a) {
        quote(arch, arch_len, q, sizeof q);
        error_set(err, err_len,
                  "unsupported architecture \"%s\" (supported: halfKP_256x2-32-32, halfKP_512x2-16-32, "
                  "halfKP_1024x2-8-32)",
                  q);
        return NULL;
    }
    const NnueArch *ar = &a->arch;
    if (hash != ar->hash) {
        error_set(err, err_len, "hash mismatch: file has 0x%08X, halfKP_%dx2-%d-%d has 0x%08X", hash, ar->l1, ar->h1,
                  ar->h2, ar->hash);
        return NULL;
    }
    size_t expected = 12 + (size_t)arch_len + BODY_SIZE(ar->l1, ar->h1, ar->h2);
    if (r->len < expected) {
        error_set(err, err_len, "truncated file: %zu bytes, halfKP_%dx2-%d-%d needs %zu", r->len, ar->l1, ar->h1,
                  ar->h2, expected);
        return NULL;
    }
    if (r->len > expected) {
        error_set(err, err_len, "oversized file: %zu bytes, halfKP_%dx2-%d-%d needs exactly %zu", r->len, ar->l1,
                  ar->h1, ar->h2, expected);
        return NULL;
    }
    uint32_t ft_hash = 0, net_hash = 0;
    NnueNet *net = NULL;
    if (!rd32(r, &ft_hash) || ft_hash != ar->ft_hash) {
        error_set(err, err_len, "feature transformer hash mismatch: 0x%08X, expected 0x%08X", ft_hash, ar->ft_hash);
        return NULL;
    }
    net = alloc32(sizeof *net);
    if (!net) {
        error_set(err, err_len, "out of memory");
        return NULL;
    }
    memset(net, 0, sizeof *net);
    net->arch = ar;
    memcpy(net->architecture, arch, arch_len + 1);
    size_t l1 = (size_t)ar->l1, h1 = (size_t)ar->h1, h2 = (size_t)ar->h2;
    net->ft_bias = alloc32(2 * l1);
    /* Borrowed in place when the caller allows it, the bytes are 32-byte aligned (the SIMD
     * rows) and little-endian: no copy of the 64-256 MB block. */
    size_t ft_at = r->pos + 2 * l1;
    if (r->borrow && r->mem && NNUE_HOST_LITTLE && ft_at <= r->len && ((uintptr_t)(r->mem + ft_at) & 31) == 0) {
        net->ft_weight = (int16_t *)(uintptr_t)(r->mem + ft_at);
        net->ft_weight_borrowed = true;
    } else {
        net->ft_weight = alloc32(2 * l1 * NNUE_INPUT_DIMS);
    }
    if (!net->ft_bias || !net->ft_weight) {
        error_set(err, err_len, "out of memory for %zu MB of weights", 2 * l1 * NNUE_INPUT_DIMS >> 20);
        nnue_free(net);
        return NULL;
    }
    bool ok = rd(r, net->ft_bias, 2 * l1);
    if (net->ft_weight_borrowed) {
        ok = ok && 2 * l1 * NNUE_INPUT_DIMS <= r->len - r->pos;
        r->pos += ok ? 2 * l1 * NNUE_INPUT_DIMS : 0;
    } else {
        ok = ok && rd(r, net->ft_weight, 2 * l1 * NNUE_INPUT_DIMS);
        fix16(net->ft_weight, l1 * NNUE_INPUT_DIMS);
    }
    fix16(net->ft_bias, l1);
    if (ok && (!rd32(r, &net_hash) || net_hash != ar->net_hash)) {
        error_set(err, err_len, "network hash mismatch: 0x%08X, expected 0x%08X", net_hash, ar->net_hash);
        nnue_free(net);
        return NULL;
    }
    ok = ok && rd(r, net->b1, 4 * h1) && rd(r, net->w1, h1 * 2 * l1);
    ok = ok && rd(r, net->b2, 4 * h2) && rd(r, net->w2, h2 * PAD32(h1));
    ok = ok && rd(r, &net->b3, 4) && rd(r, net->w3, PAD32(h2));
    for (size_t i = 0; i < h1; i++)
        for (size_t j = 0; j < 2 * l1; j++)
            net->w1t[j * h1 + i] = net->w1[i * 2 * l1 + j];
    fix32(net->b1, h1);
    fix32(net->b2, h2);
    fix32(&net->b3, 1);
    if (!ok || r->pos != r->len) {
        error_set(err, err_len, "read error at byte %zu of %zu", r->pos, r->len);
        nnue_free(net);
        return NULL;
    }
    return net;
}

NnueNet *nnue_load_memory(const uint8_t *data, size_t len, char *err, size_t err_len) {
    static const uint8_t empty[1] = {0};
    Reader r = {data ? data : empty, NULL, 0, data ? len : 0, false};
    return load(&r, err, err_len);
}

NnueNet *nnue_load_memory_borrowed(const uint8_t *data, size_t len, char *err, size_t err_len) {
    static const uint8_t empty[1] = {0};
    Reader r = {data ? data : empty, NULL, 0, data ? len : 0, true};
    return load(&r, err, err_len);
}

NnueNet *nnue_load_file(const char *path, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, err_len, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        error_set(err, err_len, "cannot get the size of %s", path);
        fclose(f);
        return NULL;
    }
    Reader r = {NULL, f, 0, (size_t)size, false};
    NnueNet *net = load(&r, err, err_len);
    fclose(f);
    return net;
}

/* ---- features ---- */

/* BonaPiece bases, friend (f_) and enemy (e_ = f_ + 81 on the board). Promoted minor
 * pieces count as golds. */
static const int16_t BONA_BOARD[PIECE_TYPE_NB] = {
    [PAWN] = 90,        [LANCE] = 252,  [KNIGHT] = 414,   [SILVER] = 576,    [GOLD] = 738,
    [BISHOP] = 900,     [ROOK] = 1224,  [PRO_PAWN] = 738, [PRO_LANCE] = 738, [PRO_KNIGHT] = 738,
    [PRO_SILVER] = 738, [HORSE] = 1062, [DRAGON] = 1386,
};
static const int16_t BONA_HAND[COLOR_NB][PIECE_TYPE_NB] = {
    {[PAWN] = 1, [LANCE] = 39, [KNIGHT] = 49, [SILVER] = 59, [GOLD] = 69, [BISHOP] = 79, [ROOK] = 85},
    {[PAWN] = 20, [LANCE] = 44, [KNIGHT] = 54, [SILVER] = 64, [GOLD] = 74, [BISHOP] = 82, [ROOK] = 88},
};

/* BonaPiece of piece pc on sq seen by perspective c. */
static inline int bona_board(Color c, Piece pc, Square sq) {
    int s = c == BLACK ? sq : square_flip(sq);
    return BONA_BOARD[piece_type(pc)] + (piece_color(pc) == c ? 0 : 81) + s;
}
/* BonaPiece of the i-th (0-based) piece of type pt in owner's hand, seen by c. */
static inline int bona_hand(Color c, Color owner, PieceType pt, int i) { return BONA_HAND[owner != c][pt] + i; }

static inline int king_index(const Position *pos, Color c) {
    return c == BLACK ? pos->king_sq[BLACK] : square_flip(pos->king_sq[WHITE]);
}

int nnue_active_features(const Position *pos, Color c, uint32_t *out) {
    uint32_t base = (uint32_t)king_index(pos, c) * NNUE_FE_END;
    int n = 0;
    Bitboard occ = position_occupied(pos) & ~pos->by_type[KING];
    while (occ && n < NNUE_MAX_ACTIVE) {
        Square sq = bb_pop(&occ);
        out[n++] = base + (uint32_t)bona_board(c, pos->board[sq], sq);
    }
    for (int owner = BLACK; owner <= WHITE; owner++)
        for (int t = HAND_TYPE_FIRST; t <= HAND_TYPE_LAST; t++) {
            PieceType pt = (PieceType)t;
            int k = hand_count(pos->hand[owner], pt);
            for (int i = 0; i < k && n < NNUE_MAX_ACTIVE; i++)
                out[n++] = base + (uint32_t)bona_hand(c, (Color)owner, pt, i);
        }
    while (n < NNUE_MAX_ACTIVE)
        out[n++] = base; /* an empty slot of the piece list: BonaPiece 0 */
    return n;
}

/* ---- arithmetic kernels ---- */

#ifdef __AVX2__
static bool use_simd = true;
#else
static bool use_simd = false;
#endif

bool nnue_simd_available(void) {
#ifdef __AVX2__
    return true;
#else
    return false;
#endif
}
void nnue_set_simd(bool on) { use_simd = on && nnue_simd_available(); }

/* dst = src - sum(rem rows) + sum(add rows), int16 wrapping, n elements. */
static void acc_update(int16_t *dst, const int16_t *src, const int16_t *const *rem, int nrem, const int16_t *const *add,
                       int nadd, int n) {
#ifdef __AVX2__
    if (use_simd) {
        for (int j = 0; j < n; j += 64) {
            __m256i v0 = _mm256_load_si256((const __m256i *)(src + j));
            __m256i v1 = _mm256_load_si256((const __m256i *)(src + j + 16));
            __m256i v2 = _mm256_load_si256((const __m256i *)(src + j + 32));
            __m256i v3 = _mm256_load_si256((const __m256i *)(src + j + 48));
            for (int k = 0; k < nrem; k++) {
                const int16_t *r = rem[k] + j;
                v0 = _mm256_sub_epi16(v0, _mm256_load_si256((const __m256i *)r));
                v1 = _mm256_sub_epi16(v1, _mm256_load_si256((const __m256i *)(r + 16)));
                v2 = _mm256_sub_epi16(v2, _mm256_load_si256((const __m256i *)(r + 32)));
                v3 = _mm256_sub_epi16(v3, _mm256_load_si256((const __m256i *)(r + 48)));
            }
            for (int k = 0; k < nadd; k++) {
                const int16_t *a = add[k] + j;
                v0 = _mm256_add_epi16(v0, _mm256_load_si256((const __m256i *)a));
                v1 = _mm256_add_epi16(v1, _mm256_load_si256((const __m256i *)(a + 16)));
                v2 = _mm256_add_epi16(v2, _mm256_load_si256((const __m256i *)(a + 32)));
                v3 = _mm256_add_epi16(v3, _mm256_load_si256((const __m256i *)(a + 48)));
            }
            _mm256_store_si256((__m256i *)(dst + j), v0);
            _mm256_store_si256((__m256i *)(dst + j + 16), v1);
            _mm256_store_si256((__m256i *)(dst + j + 32), v2);
            _mm256_store_si256((__m256i *)(dst + j + 48), v3);
        }
        return;
    }
#endif
    if (dst != src)
        memcpy(dst, src, sizeof *dst * (size_t)n);
    for (int k = 0; k < nrem; k++) {
        const int16_t *r = rem[k];
        for (int j = 0; j < n; j++)
            dst[j] = (int16_t)(uint16_t)((unsigned)(uint16_t)dst[j] - (unsigned)(uint16_t)r[j]);
    }
    for (int k = 0; k < nadd; k++) {
        const int16_t *a = add[k];
        for (int j = 0; j < n; j++)
            dst[j] = (int16_t)(uint16_t)((unsigned)(uint16_t)dst[j] + (unsigned)(uint16_t)a[j]);
    }
}

/* Accumulator of one perspective from scratch. */
static void acc_refresh(const NnueNet *net, const Position *pos, Color c, int16_t *acc) {
    uint32_t idx[NNUE_MAX_ACTIVE];
    int n = nnue_active_features(pos, c, idx);
    const int16_t *rows[NNUE_MAX_ACTIVE];
    size_t l1 = (size_t)net->arch->l1;
    for (int i = 0; i < n; i++)
        rows[i] = net->ft_weight + idx[i] * l1;
    acc_update(acc, net->ft_bias, NULL, 0, rows, n, (int)l1);
}

/* y = b + W x for x in 0..127 (uint8), W int8 [out][stride]; in_n inputs are used (the
 * SIMD path reads the padded stride: x is zero there). Sums wrap like int32 lanes. */
static void affine(const uint8_t *x, int in_n, int stride, const int8_t *w, const int32_t *b, int out_n, int32_t *y) {
#ifdef __AVX2__
    if (use_simd) {
        const __m256i ones = _mm256_set1_epi16(1);
        int i = 0;
        for (; i + 4 <= out_n; i += 4) {
            const int8_t *r0 = w + (size_t)i * stride, *r1 = r0 + stride, *r2 = r1 + stride, *r3 = r2 + stride;
            __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
            for (int j = 0; j < stride; j += 32) {
                __m256i v = _mm256_load_si256((const __m256i *)(x + j));
                s0 = _mm256_add_epi32(
                    s0, _mm256_madd_epi16(_mm256_maddubs_epi16(v, _mm256_load_si256((const __m256i *)(r0 + j))), ones));
                s1 = _mm256_add_epi32(
                    s1, _mm256_madd_epi16(_mm256_maddubs_epi16(v, _mm256_load_si256((const __m256i *)(r1 + j))), ones));
                s2 = _mm256_add_epi32(
                    s2, _mm256_madd_epi16(_mm256_maddubs_epi16(v, _mm256_load_si256((const __m256i *)(r2 + j))), ones));
                s3 = _mm256_add_epi32(
                    s3, _mm256_madd_epi16(_mm256_maddubs_epi16(v, _mm256_load_si256((const __m256i *)(r3 + j))), ones));
            }
            __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
            __m128i t = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
            __m128i b4 = _mm_loadu_si128((const __m128i *)(b + i));
            _mm_storeu_si128((__m128i *)(y + i), _mm_add_epi32(t, b4));
        }
        for (; i < out_n; i++) {
            const int8_t *row = w + (size_t)i * stride;
            __m256i s = _mm256_setzero_si256();
            for (int j = 0; j < stride; j += 32) {
                __m256i p = _mm256_maddubs_epi16(_mm256_load_si256((const __m256i *)(x + j)),
                                                 _mm256_load_si256((const __m256i *)(row + j)));
                s = _mm256_add_epi32(s, _mm256_madd_epi16(p, ones));
            }
            __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
            t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
            y[i] = (int32_t)((uint32_t)b[i] + (uint32_t)_mm_cvtsi128_si32(t));
        }
        return;
    }
#endif
    for (int i = 0; i < out_n; i++) {
        const int8_t *row = w + (size_t)i * stride;
        int32_t s = 0; /* at most 2048 * 127 * 128 in magnitude: no overflow */
        for (int j = 0; j < in_n; j++)
            s += row[j] * x[j];
        y[i] = (int32_t)((uint32_t)b[i] + (uint32_t)s);
    }
}

/* The first layer without SIMD: column by column, skipping the inputs clamped to zero
 * (often most of them). h is a constant at each call so that compilers can vectorise. */
static inline void columns(const uint8_t *x, int n, const int8_t *wt, int32_t *acc, const int h) {
    for (int j = 0; j < n; j++) {
        int v = x[j];
        if (!v)
            continue;
        const int8_t *col = wt + (size_t)j * h;
        for (int i = 0; i < h; i++)
            acc[i] += col[i] * v; /* at most 2048 * 127 * 128 in magnitude: no overflow */
    }
}

static void affine1_portable(const NnueNet *net, const uint8_t *x, int32_t *y) {
    int n = 2 * net->arch->l1, h = net->arch->h1;
    int32_t acc[32] = {0};
    switch (h) {
    case 32: columns(x, n, net->w1t, acc, 32); break;
    case 16: columns(x, n, net->w1t, acc, 16); break;
    default: columns(x, n, net->w1t, acc, 8); break;
    }
    for (int i = 0; i < h; i++)
        y[i] = (int32_t)((uint32_t)net->b1[i] + (uint32_t)acc[i]);
}

static inline uint8_t clamp127(int v) { return (uint8_t)(v < 0 ? 0 : v > 127 ? 127 : v); }

/* The network on two accumulators, [side to move, opponent]. */
static Value propagate(const NnueNet *net, const int16_t *us, const int16_t *them, int fv_scale) {
    int l1 = net->arch->l1, h1 = net->arch->h1, h2 = net->arch->h2;
    alignas(32) uint8_t in[2 * NNUE_L1_MAX];
    alignas(32) uint8_t a1[32] = {0}, a2[32] = {0};
    int32_t y1[32], y2[32], y3;
#ifdef __AVX2__
    if (use_simd) {
        const __m256i zero = _mm256_setzero_si256();
        for (int p = 0; p < 2; p++) {
            const int16_t *acc = p == 0 ? us : them;
            for (int j = 0; j < l1; j += 32) {
                __m256i a = _mm256_load_si256((const __m256i *)(acc + j));
                __m256i b = _mm256_load_si256((const __m256i *)(acc + j + 16));
                __m256i v = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
                _mm256_store_si256((__m256i *)(in + p * l1 + j), _mm256_permute4x64_epi64(v, 0xD8));
            }
        }
    } else
#endif
    {
        for (int j = 0; j < l1; j++) {
            in[j] = clamp127(us[j]);
            in[l1 + j] = clamp127(them[j]);
        }
    }
    if (use_simd)
        affine(in, 2 * l1, 2 * l1, net->w1, net->b1, h1, y1);
    else
        affine1_portable(net, in, y1);
    for (int i = 0; i < h1; i++)
        a1[i] = clamp127(y1[i] >> 6);
    affine(a1, h1, PAD32(h1), net->w2, net->b2, h2, y2);
    for (int i = 0; i < h2; i++)
        a2[i] = clamp127(y2[i] >> 6);
    affine(a2, h2, PAD32(h2), net->w3, &net->b3, 1, &y3);
    int v = y3 / (fv_scale > 0 ? fv_scale : 16);
    return v > NNUE_VALUE_MAX_EVAL ? NNUE_VALUE_MAX_EVAL : v < -NNUE_VALUE_MAX_EVAL ? -NNUE_VALUE_MAX_EVAL : v;
}

Value nnue_evaluate_full(const NnueNet *net, const Position *pos, int fv_scale) {
    alignas(32) int16_t acc[COLOR_NB][NNUE_L1_MAX];
    acc_refresh(net, pos, BLACK, acc[BLACK]);
    acc_refresh(net, pos, WHITE, acc[WHITE]);
    return propagate(net, acc[pos->side], acc[color_flip(pos->side)], fv_scale);
}

/* ---- the current net ---- */

static NnueNet *current_net;
static int current_fv_scale = 16;

void nnue_set_current(NnueNet *net, int fv_scale) {
    if (current_net != net)
        nnue_free(current_net);
    current_net = net;
    current_fv_scale = fv_scale >= 1 && fv_scale <= 128 ? fv_scale : 16;
}
const NnueNet *nnue_current(void) { return current_net; }
int nnue_current_fv_scale(void) { return current_fv_scale; }

static _Thread_local EvalStack *bound_stack;
static const NnueNet *stack_net(const EvalStack *s);
void eval_stack_bind_thread(EvalStack *s) { bound_stack = s; }

static inline bool kings_present(const Position *pos) {
    return pos->king_sq[BLACK] != SQ_NONE && pos->king_sq[WHITE] != SQ_NONE;
}

static Value eval_nnue_evaluate(const Position *pos) {
    const NnueNet *net = current_net;
    if (!net || !kings_present(pos))
        return eval_classic.evaluate(pos);
    if (bound_stack && stack_net(bound_stack) == net) {
        Value v = nnue_evaluate_incremental(bound_stack, pos);
#ifdef NNUE_VERIFY_INCREMENTAL /* debugging builds: every incremental result checked */
        if (v != nnue_evaluate_full(net, pos, current_fv_scale)) {
            fprintf(stderr, "nnue: incremental %d != full %d\n", v, nnue_evaluate_full(net, pos, current_fv_scale));
            abort();
        }
#endif
        return v;
    }
    return nnue_evaluate_full(net, pos, current_fv_scale);
}

const Evaluator eval_nnue = {"nnue", eval_nnue_evaluate};

/* What the current net was loaded from, so that isready does not reload an unchanged file. */
static char current_path[8400];
static struct stat current_stat;

bool nnue_load_and_select(const char *eval_dir, const char *eval_file, int fv_scale, char *msg, size_t msg_len) {
    char path[8400], err[512];
    if (!eval_file || !eval_file[0]) {
        nnue_set_current(NULL, fv_scale);
        current_path[0] = '\0';
        eval_select(&eval_classic);
        snprintf(msg, msg_len, "NNUE off (EvalFile is empty); using the embedded evaluation");
        return false;
    }
    if (!path_resolve(eval_dir ? eval_dir : "", eval_file, path, sizeof path)) {
        nnue_set_current(NULL, fv_scale);
        current_path[0] = '\0';
        eval_select(&eval_classic);
        snprintf(msg, msg_len, "NNUE not used (EvalDir/EvalFile too long); using the embedded evaluation");
        return false;
    }
    struct stat sb;
    bool have_stat = stat(path, &sb) == 0;
    if (current_net && have_stat && strcmp(path, current_path) == 0 && sb.st_size == current_stat.st_size &&
        sb.st_mtime == current_stat.st_mtime) {
        nnue_set_current(current_net, fv_scale);
        eval_select(&eval_nnue);
        snprintf(msg, msg_len, "NNUE in use: %s (unchanged, FV_SCALE %d)", path, current_fv_scale);
        return true;
    }
    NnueNet *net = nnue_load_file(path, err, sizeof err);
    if (!net) {
        nnue_set_current(NULL, fv_scale);
        current_path[0] = '\0';
        eval_select(&eval_classic);
        snprintf(msg, msg_len, "NNUE not used (%s); using the embedded evaluation", err);
        return false;
    }
    const NnueArch *a = net->arch;
    nnue_set_current(net, fv_scale);
    snprintf(current_path, sizeof current_path, "%s", path);
    if (have_stat)
        current_stat = sb;
    eval_select(&eval_nnue);
    snprintf(msg, msg_len, "NNUE loaded: %s (halfKP_%dx2-%d-%d, FV_SCALE %d)", path, a->l1, a->h1, a->h2,
             current_fv_scale);
    return true;
}

/* ---- incremental accumulators ---- */

typedef struct {
    alignas(32) int16_t acc[COLOR_NB][NNUE_L1_MAX];
    bool computed[COLOR_NB];
    bool refresh[COLOR_NB]; /* that side's king moved: its accumulator cannot be derived */
    uint8_t nrem, nadd;
    uint16_t rem[2][COLOR_NB], add[2][COLOR_NB]; /* BonaPieces by perspective */
    Key key;
    const StateInfo *st;
} NnueEntry;

struct EvalStack {
    NnueEntry e[NNUE_STACK_SIZE];
    const NnueNet *net;
    int top;
    NnueStackStats stats;
};

EvalStack *eval_stack_new(void) {
    EvalStack *s = alloc32(sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    return s;
}
void eval_stack_free(EvalStack *s) { free(s); }
static const NnueNet *stack_net(const EvalStack *s) { return s->net; }
NnueStackStats nnue_stack_stats(const EvalStack *s) {
    NnueStackStats none = {0, 0, 0};
    return s ? s->stats : none;
}

void eval_stack_reset(EvalStack *s, const Position *root) {
    if (!s)
        return;
    s->net = current_net;
    s->top = 0;
    NnueEntry *e = &s->e[0];
    e->computed[BLACK] = e->computed[WHITE] = false;
    e->refresh[BLACK] = e->refresh[WHITE] = true;
    e->nrem = e->nadd = 0;
    e->key = position_key(root);
    e->st = root->st;
}

void eval_stack_push(EvalStack *s, const Position *pos) {
    if (!s)
        return;
    if (++s->top >= NNUE_STACK_SIZE)
        return; /* too deep: evaluations there fall back to a full refresh */
    if (!s->net)
        return; /* no net at the reset: no entry is read before the next reset */
    NnueEntry *e = &s->e[s->top];
    e->computed[BLACK] = e->computed[WHITE] = false;
    e->refresh[BLACK] = e->refresh[WHITE] = false;
    e->nrem = e->nadd = 0;
    e->key = position_key(pos);
    e->st = pos->st;
    Move m = pos->st->last_move;
    if (!move_is_ok(m))
        return; /* null move: the same pieces */
    Color us = color_flip(pos->side);
    Square to = move_to(m);
    if (move_is_drop(m)) {
        PieceType pt = move_dropped_type(m);
        int left = hand_count(pos->hand[us], pt); /* the dropped one was number left (0-based) */
        for (int c = 0; c < COLOR_NB; c++) {
            e->rem[0][c] = (uint16_t)bona_hand((Color)c, us, pt, left);
            e->add[0][c] = (uint16_t)bona_board((Color)c, piece_make(us, pt), to);
        }
        e->nrem = e->nadd = 1;
        return;
    }
    Square from = move_from(m);
    Piece after = pos->board[to];
    Piece before = move_is_promotion(m) ? after - PROMOTED : after;
    if (piece_type(after) == KING) {
        e->refresh[us] = true;
    } else {
        for (int c = 0; c < COLOR_NB; c++) {
            e->rem[0][c] = (uint16_t)bona_board((Color)c, before, from);
            e->add[0][c] = (uint16_t)bona_board((Color)c, after, to);
        }
        e->nrem = e->nadd = 1;
    }
    Piece cap = pos->st->captured;
    if (cap != NO_PIECE) {
        PieceType hpt = piece_type_demote(piece_type(cap));
        int k = hand_count(pos->hand[us], hpt); /* the captured piece is number k - 1 */
        for (int c = 0; c < COLOR_NB; c++) {
            e->rem[e->nrem][c] = (uint16_t)bona_board((Color)c, cap, to);
            e->add[e->nadd][c] = (uint16_t)bona_hand((Color)c, us, hpt, k - 1);
        }
        e->nrem++, e->nadd++;
    }
}

void eval_stack_pop(EvalStack *s) {
    if (s && s->top > 0)
        s->top--;
}

enum { MAX_CHANGES = NNUE_MAX_ACTIVE }; /* beyond this many row operations a refresh is cheaper */

static void update_perspective(EvalStack *s, const Position *pos, Color c) {
    const NnueNet *net = s->net;
    NnueEntry *t = &s->e[s->top];
    int i = s->top;
    while (!s->e[i].computed[c]) {
        if (i == 0 || s->e[i].refresh[c] || 2 * (s->top - i + 1) > MAX_CHANGES) {
            acc_refresh(net, pos, c, t->acc[c]);
            t->computed[c] = true;
            s->stats.refreshes++;
            return;
        }
        i--;
    }
    if (i == s->top)
        return;
    const int16_t *rem[MAX_CHANGES], *add[MAX_CHANGES];
    int nrem = 0, nadd = 0;
    size_t l1 = (size_t)net->arch->l1, base = (size_t)king_index(pos, c) * NNUE_FE_END;
    for (int k = i + 1; k <= s->top; k++) {
        const NnueEntry *e = &s->e[k];
        for (int j = 0; j < e->nrem; j++)
            rem[nrem++] = net->ft_weight + (base + e->rem[j][c]) * l1;
        for (int j = 0; j < e->nadd; j++)
            add[nadd++] = net->ft_weight + (base + e->add[j][c]) * l1;
    }
    acc_update(t->acc[c], s->e[i].acc[c], rem, nrem, add, nadd, (int)l1);
    t->computed[c] = true;
    s->stats.incremental++;
}

Value nnue_evaluate_incremental(EvalStack *s, const Position *pos) {
    const NnueNet *net = s ? s->net : current_net;
    if (!net || !kings_present(pos))
        return eval_classic.evaluate(pos);
    if (!s)
        return nnue_evaluate_full(net, pos, current_fv_scale);
    NnueEntry *t = &s->e[s->top < NNUE_STACK_SIZE ? s->top : 0];
    if (s->top >= NNUE_STACK_SIZE || t->st != pos->st || t->key != position_key(pos)) {
        s->stats.fallbacks++;
        return nnue_evaluate_full(net, pos, current_fv_scale);
    }
    update_perspective(s, pos, BLACK);
    update_perspective(s, pos, WHITE);
    return propagate(net, t->acc[pos->side], t->acc[color_flip(pos->side)], current_fv_scale);
}
