/* random.h - the small deterministic generators every module shares.
 *
 * All three are pure functions of the caller's state (no hidden globals), so a run is
 * reproduced by its seed. They are not for cryptography.
 */
#ifndef HAYANAGI_UTIL_RANDOM_H
#define HAYANAGI_UTIL_RANDOM_H

#include <stdint.h>

/* xorshift64* (Vigna): the state must be non-zero; a zero state is replaced by a constant
 * so that a zero seed still gives a sequence. */
static inline uint64_t random_xorshift64star(uint64_t *s) {
    if (*s == 0)
        *s = 0x9E3779B97F4A7C15ull;
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Marsaglia's xorshift64 (13, 7, 17): the tuner's game generator, kept so that its seeds
 * reproduce the published training sets. The state must be non-zero. */
static inline uint64_t random_xorshift64(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* splitmix64: any state, including zero; good for seeding tables (Zobrist keys). */
static inline uint64_t random_splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
