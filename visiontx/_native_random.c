/* torch's CPU random floats, many at a time (transforms/_random.py: ElasticTransform's noise planes).
 *
 * torch's CPU generator is a 32-bit Mersenne Twister (MT19937); ``torch.rand`` (``uniform_`` of float32) takes one
 * word a float, serially, and keeps its low 24 bits: ``(word & 0xffffff) * 2^-24``. These loops run the same
 * twister on the state torch's ``Generator.get_state`` gives and write the same floats, several times faster than
 * torch's one-at-a-time loop; the caller hands the advanced state back with ``set_state``.
 */
#include <stddef.h>
#include <stdint.h>

#define STATE_WORDS 624
#define SHIFT 397
#define UPPER_BIT 0x80000000u
#define LOWER_BITS 0x7fffffffu
#define MATRIX_A 0x9908b0dfu

static inline __attribute__((always_inline)) uint32_t twisted(uint32_t word, uint32_t next, uint32_t far) {
    uint32_t y = (word & UPPER_BIT) | (next & LOWER_BITS);
    return far ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
}

/* The loops, compiled twice: for the build's baseline (SSE2 on x86-64) and for AVX2 (8 words a step). */
#define MT_LOOPS(SUFFIX, ATTRIBUTE)                                                                                  \
    /* The next 624 words of the state, in place (each loop reads only words it has not yet rewritten, or rewrote \
     * at least 227 steps before: the compiler vectorises both). */                                              \
    ATTRIBUTE static void twist##SUFFIX(uint32_t *s) {                                                               \
        int k = 0;                                                                                                   \
        for (; k < STATE_WORDS - SHIFT; k++) s[k] = twisted(s[k], s[k + 1], s[k + SHIFT]);                           \
        for (; k < STATE_WORDS - 1; k++) s[k] = twisted(s[k], s[k + 1], s[k + SHIFT - STATE_WORDS]);                 \
        s[STATE_WORDS - 1] = twisted(s[STATE_WORDS - 1], s[0], s[SHIFT - 1]);                                        \
    }                                                                                                                \
    ATTRIBUTE static int uniform##SUFFIX(uint32_t *state, int position, float *out, ptrdiff_t n, int centred) {      \
        const float scale = centred ? 1.0f / 8388608.0f : 1.0f / 16777216.0f; /* 2^-23, 2^-24 */                     \
        const int32_t offset = centred ? 8388608 : 0;                                                                \
        ptrdiff_t done = 0;                                                                                          \
        while (done < n) {                                                                                           \
            if (position >= STATE_WORDS) {                                                                           \
                twist##SUFFIX(state);                                                                                \
                position = 0;                                                                                        \
            }                                                                                                        \
            ptrdiff_t take = STATE_WORDS - position;                                                                 \
            if (take > n - done) take = n - done;                                                                    \
            const uint32_t *words = state + position;                                                               \
            float *dst = out + done;                                                                                 \
            for (ptrdiff_t i = 0; i < take; i++)                                                                     \
                dst[i] = (float)((int32_t)(tempered(words[i]) & 0xffffffu) - offset) * scale;                        \
            position += (int)take;                                                                                   \
            done += take;                                                                                            \
        }                                                                                                            \
        return position;                                                                                             \
    }

static inline __attribute__((always_inline)) uint32_t tempered(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

MT_LOOPS(_sse2, )
#if defined(__x86_64__) || defined(__i386__)
MT_LOOPS(_avx2, __attribute__((target("avx2"))))
#endif

/* n floats of [0, 1) into out, as torch.rand: word after word from state[position] on (position 624: the state is
 * spent and twists first); returns the new position. centred: 2 x - 1 instead (exact in float32: (k - 2^23) 2^-23
 * for the 24-bit k), torch's ``rand().mul_(2).sub_(1)``. avx2: the CPU has AVX2. */
int mt_uniform(uint32_t *state, int position, float *out, ptrdiff_t n, int centred, int avx2) {
#if defined(__x86_64__) || defined(__i386__)
    if (avx2) return uniform_avx2(state, position, out, n, centred);
#endif
    return uniform_sse2(state, position, out, n, centred);
}
