/* nnue_gen.h - random halfKP NNUE nets in YaneuraOu's exact file layout, for the tests,
 * the benchmark and the fuzz target. Header hashes and the architecture string are
 * computed here from the layer formulas, independently of src/eval/nnue.c.
 * Header-only (static functions): include it from one translation unit. */
#ifndef HAYANAGI_TESTS_NNUE_GEN_H
#define HAYANAGI_TESTS_NNUE_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static inline uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static inline int rnd_range(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

typedef struct {
    int l1, h1, h2;
    uint8_t *buf;
    size_t len;
    size_t ft_bias_off, ft_weight_off, b1_off, w1_off, b2_off, w2_off, b3_off, w3_off;
} GenNet;

static inline uint32_t ref_affine_hash(uint32_t out, uint32_t prev) {
    uint32_t h = 0xCC03DAE4u + out;
    h ^= prev >> 1;
    h ^= prev << 31;
    return h;
}
static inline uint32_t ref_net_hash(int l1, int h1, int h2) {
    uint32_t h = 0xEC42E90Du ^ (uint32_t)(2 * l1); /* InputSlice[2*l1(0:2*l1)] */
    h = ref_affine_hash((uint32_t)h1, h);
    h = 0x538D24C7u + h; /* ClippedReLU */
    h = ref_affine_hash((uint32_t)h2, h);
    h = 0x538D24C7u + h;
    return ref_affine_hash(1, h);
}
static inline uint32_t ref_ft_hash(int l1) { return (0x5D69D5B9u ^ 1u) ^ (uint32_t)(2 * l1); }

static inline int ref_arch_string(char *buf, size_t len, int l1, int h1, int h2, const char *first_layer) {
    return snprintf(buf, len,
                    "Features=HalfKP(Friend)[125388->%dx2],Network=AffineTransform[1<-%d](ClippedReLU[%d]("
                    "AffineTransform[%d<-%d](ClippedReLU[%d](%s[%d<-%d](InputSlice[%d(0:%d)])))))",
                    l1, h2, h2, h2, h1, h1, first_layer, h1, 2 * l1, 2 * l1, 2 * l1);
}

static inline void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline void put16(uint8_t *p, int v) { p[0] = (uint8_t)v, p[1] = (uint8_t)((unsigned)v >> 8); }
static inline int16_t get16(const uint8_t *p) { return (int16_t)(uint16_t)(p[0] | (p[1] << 8)); }
static inline int32_t get32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
}

static inline int pad32(int n) { return (n + 31) / 32 * 32; }

/* Writes a whole file: header, transformer, three affine layers. */
static inline GenNet gen_net(int l1, int h1, uint64_t seed, const char *first_layer) {
    GenNet g = {.l1 = l1, .h1 = h1, .h2 = 32};
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    char arch[1024];
    int alen = ref_arch_string(arch, sizeof arch, l1, h1, 32, first_layer ? first_layer : "AffineTransform");
    size_t in = 125388;
    g.len = 12 + (size_t)alen + 4 + 2 * (size_t)l1 + 2 * in * l1 + 4 + (4 + 2 * (size_t)l1) * h1 +
            (4 + (size_t)pad32(h1)) * 32 + 4 + 32;
    g.buf = malloc(g.len);
    if (!g.buf) {
        fprintf(stderr, "nnue_gen: out of memory\n");
        abort();
    }
    uint8_t *p = g.buf;
    put32(p, 0x7AF32F16u);
    put32(p + 4, ref_ft_hash(l1) ^ ref_net_hash(l1, h1, 32));
    put32(p + 8, (uint32_t)alen);
    memcpy(p + 12, arch, (size_t)alen);
    size_t o = 12 + (size_t)alen;
    put32(p + o, ref_ft_hash(l1));
    o += 4;
    g.ft_bias_off = o;
    for (int j = 0; j < l1; j++, o += 2)
        put16(p + o, rnd_range(-40, 160));
    g.ft_weight_off = o;
    for (size_t i = 0; i < in * (size_t)l1; i++, o += 2) {
        uint64_t r = rnd();
        int v = (r & 1023) == 0 ? (int)((r >> 10) % 40001) - 20000 : (int)((r >> 10) % 33) - 16; /* rare big */
        put16(p + o, v);
    }
    put32(p + o, ref_net_hash(l1, h1, 32));
    o += 4;
    g.b1_off = o;
    for (int i = 0; i < h1; i++, o += 4)
        put32(p + o, (uint32_t)rnd_range(-2000, 2000));
    g.w1_off = o;
    for (int i = 0; i < h1 * 2 * l1; i++, o++)
        p[o] = (uint8_t)(rnd() % 64 == 0 ? rnd_range(-128, 127) : rnd_range(-4, 4));
    g.b2_off = o;
    for (int i = 0; i < 32; i++, o += 4)
        put32(p + o, (uint32_t)rnd_range(-3000, 3000));
    g.w2_off = o;
    for (int i = 0; i < 32 * pad32(h1); i++, o++)
        p[o] = (uint8_t)rnd_range(-32, 32); /* padding gets garbage too: it must be ignored */
    g.b3_off = o;
    put32(p + o, (uint32_t)rnd_range(-10000, 10000));
    o += 4;
    g.w3_off = o;
    for (int i = 0; i < 32; i++, o++)
        p[o] = (uint8_t)rnd_range(-128, 127);
    if (o != g.len)
        abort();
    return g;
}

#endif
