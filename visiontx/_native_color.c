/* Per-pixel colour ops on uint8 RGB for visiontx._native (the module's functions are in _native.c): the hue
 * rotation, and 3 x 3 colour matrices (saturation).
 *
 * Hue: the float32 arithmetic of visiontx's torch path (functional/_color/_hue.py), step for step, so the bytes are
 * the same: value V = max(R, G, B), chroma C = V - min(R, G, B); the hue in turns is (G - B), (B - R + 2C) or
 * (R - G + 4C) (where V is R, else G, else B) over 6C (6 where C is 0), wrapped into [0, 1), plus the factor,
 * wrapped again; each channel is V - C * w, its weight w = clamp(max(2 - d, d - 4), 0, 1) with d the distance in
 * sextants from the hue opposite the channel (3, 5, 1 for R, G, B); rounded half to even. Wrapping is torch's
 * remainder(h, 1.0) for the h met here (-1 <= h < 2): h - 1 at 1 and above, h + 1 below 0.
 *
 * Matrix m (row-major): output channel c is (m[3c] * R + m[3c + 1] * G) + m[3c + 2] * B in float32, in that
 * order, rounded half to even and saturated to 0..255.
 *
 * The hue's loops are long chains of dependent steps: each turn works on four independent blocks of 8 pixels, and
 * GCC schedules the instructions before allocating registers (off by default on x86), so that the blocks' steps
 * interleave: 224 x 224 planar 110 -> 73 us. On planes both ops also run 16 lanes at a time where the CPU has
 * AVX-512F (the same steps, bit for bit): the hue 56 -> 39 us.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("schedule-insns")
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <math.h>

#define CHUNK 64 /* pixels deinterleaved at a time without AVX2 (a multiple of 8) */
#define COLOR_HUE 0    /* the ops, as _native.c names them */
#define COLOR_MATRIX 1

#ifdef __SSE2__
#include <emmintrin.h>

static inline __m128 ps_from_bytes(const uint8_t *p) {
    int32_t word;
    memcpy(&word, p, 4);
    const __m128i zero = _mm_setzero_si128();
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(word), zero), zero));
}

static inline __m128 select_ps(__m128 mask, __m128 a, __m128 b) {
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}

static inline __m128 wrap_turn(__m128 h) {
    const __m128 one = _mm_set1_ps(1.0f);
    h = _mm_sub_ps(h, _mm_and_ps(_mm_cmpge_ps(h, one), one));
    return _mm_add_ps(h, _mm_and_ps(_mm_cmplt_ps(h, _mm_setzero_ps()), one));
}

static inline __m128i channel4(__m128 v, __m128 c, __m128 sextant, float opposite) {
    const __m128 sign = _mm_set1_ps(-0.0f);
    __m128 d = _mm_andnot_ps(sign, _mm_sub_ps(sextant, _mm_set1_ps(opposite)));
    __m128 w = _mm_max_ps(_mm_sub_ps(_mm_set1_ps(2.0f), d), _mm_sub_ps(d, _mm_set1_ps(4.0f)));
    w = _mm_min_ps(_mm_max_ps(w, _mm_setzero_ps()), _mm_set1_ps(1.0f));
    return _mm_cvtps_epi32(_mm_sub_ps(v, _mm_mul_ps(c, w)));  /* rounds half to even (the default MXCSR mode) */
}

static inline void store4(__m128i x, uint8_t *p) {
    x = _mm_packus_epi16(_mm_packs_epi32(x, x), x);
    int32_t word = _mm_cvtsi128_si32(x);
    memcpy(p, &word, 4);
}

/* Lanes 0..n-1 (n a multiple of 4; of 8 for the AVX2 loop) of the planes r, g, b rotated into o[0..2]. */
static void hue_lanes(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, float factor,
                      uint8_t *const *o) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), six = _mm_set1_ps(6.0f), f = _mm_set1_ps(factor);
    for (ptrdiff_t i = 0; i < n; i += 4) {
        __m128 R = ps_from_bytes(r + i), G = ps_from_bytes(g + i), B = ps_from_bytes(b + i);
        __m128 v = _mm_max_ps(_mm_max_ps(R, G), B);
        __m128 c = _mm_sub_ps(v, _mm_min_ps(_mm_min_ps(R, G), B));
        __m128 is_r = _mm_cmpeq_ps(v, R), is_g = _mm_andnot_ps(is_r, _mm_cmpeq_ps(v, G));
        __m128 num = select_ps(is_r, _mm_sub_ps(G, B),
                               select_ps(is_g, _mm_add_ps(_mm_sub_ps(B, R), _mm_add_ps(c, c)),
                                         _mm_add_ps(_mm_sub_ps(R, G), _mm_mul_ps(c, _mm_set1_ps(4.0f)))));
        __m128 h = _mm_div_ps(num, _mm_mul_ps(_mm_max_ps(c, one), six));  /* C is whole: max(C, 1) */
        h = _mm_add_ps(h, _mm_and_ps(_mm_cmplt_ps(h, zero), one));  /* h < 5/6 here: no -1 */
        h = wrap_turn(_mm_add_ps(h, f));
        __m128 sextant = _mm_mul_ps(h, six);
        store4(channel4(v, c, sextant, 3.0f), o[0] + i);
        store4(channel4(v, c, sextant, 5.0f), o[1] + i);
        store4(channel4(v, c, sextant, 1.0f), o[2] + i);
    }
}

/* Lanes 0..n-1 (n a multiple of 4) of the planes r, g, b through the colour matrix m into o[0..2]. */
static void matrix_lanes(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, const float *m,
                         uint8_t *const *o) {
    __m128 M[9];
    for (int k = 0; k < 9; k++) M[k] = _mm_set1_ps(m[k]);
    for (ptrdiff_t i = 0; i < n; i += 4) {
        __m128 R = ps_from_bytes(r + i), G = ps_from_bytes(g + i), B = ps_from_bytes(b + i);
        for (int c = 0; c < 3; c++) {
            __m128 x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(M[3 * c], R), _mm_mul_ps(M[3 * c + 1], G)),
                                  _mm_mul_ps(M[3 * c + 2], B));
            store4(_mm_cvtps_epi32(x), o[c] + i);
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define COLOR_AVX2 1
#define AVX2_FN static inline __attribute__((always_inline, target("avx2")))

AVX2_FN __m256 floats8(__m128i bytes) { /* the 8 bytes in the low half */
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
}

AVX2_FN __m256 wrap_turn8(__m256 h) {
    const __m256 one = _mm256_set1_ps(1.0f);
    h = _mm256_sub_ps(h, _mm256_and_ps(_mm256_cmp_ps(h, one, _CMP_GE_OQ), one));
    return _mm256_add_ps(h, _mm256_and_ps(_mm256_cmp_ps(h, _mm256_setzero_ps(), _CMP_LT_OQ), one));
}

AVX2_FN __m256i channel8(__m256 v, __m256 c, __m256 sextant, float opposite) {  /* rounded, as int32 */
    __m256 d = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(sextant, _mm256_set1_ps(opposite)));
    __m256 w = _mm256_max_ps(_mm256_sub_ps(_mm256_set1_ps(2.0f), d), _mm256_sub_ps(d, _mm256_set1_ps(4.0f)));
    w = _mm256_min_ps(_mm256_max_ps(w, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
    return _mm256_cvtps_epi32(_mm256_sub_ps(v, _mm256_mul_ps(c, w)));
}

/* Three channels of 8 int32 each, saturated to bytes: R in bytes 0-7 of the result, G in 8-15, B in 16-23 (through
 * int16 [R0-3 G0-3 | R4-7 G4-7] and [B0-3 0 | B4-7 0], then bytes [R0-3 G0-3 B0-3 0 | R4-7 G4-7 B4-7 0]). */
AVX2_FN __m256i pack3(__m256i r, __m256i g, __m256i b) {
    __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(r, g), _mm256_packs_epi32(b, _mm256_setzero_si256()));
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* 8 pixels of bytes (the low halves of r, g, b) rotated, packed as pack3. */
AVX2_FN __m256i rotate8(__m128i r, __m128i g, __m128i b, __m256 f) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), six = _mm256_set1_ps(6.0f);
    __m256 R = floats8(r), G = floats8(g), B = floats8(b);
    __m256 v = _mm256_max_ps(_mm256_max_ps(R, G), B);
    __m256 c = _mm256_sub_ps(v, _mm256_min_ps(_mm256_min_ps(R, G), B));
    __m256 is_r = _mm256_cmp_ps(v, R, _CMP_EQ_OQ);
    __m256 is_g = _mm256_andnot_ps(is_r, _mm256_cmp_ps(v, G, _CMP_EQ_OQ));
    __m256 num_b = _mm256_add_ps(_mm256_sub_ps(R, G), _mm256_mul_ps(c, _mm256_set1_ps(4.0f)));
    __m256 num_g = _mm256_add_ps(_mm256_sub_ps(B, R), _mm256_add_ps(c, c));
    __m256 num = _mm256_blendv_ps(_mm256_blendv_ps(num_b, num_g, is_g), _mm256_sub_ps(G, B), is_r);
    __m256 h = _mm256_div_ps(num, _mm256_mul_ps(_mm256_max_ps(c, one), six));  /* C is whole: max(C, 1) */
    h = _mm256_add_ps(h, _mm256_and_ps(_mm256_cmp_ps(h, zero, _CMP_LT_OQ), one));  /* h < 5/6 here: no -1 */
    h = wrap_turn8(_mm256_add_ps(h, f));
    __m256 sextant = _mm256_mul_ps(h, six);
    return pack3(channel8(v, c, sextant, 3.0f), channel8(v, c, sextant, 5.0f), channel8(v, c, sextant, 1.0f));
}

/* 8 pixels of bytes (the low halves of r, g, b) through the colour matrix M (broadcast), packed as pack3. */
AVX2_FN __m256i matrix8(__m128i r, __m128i g, __m128i b, const __m256 *M) {
    __m256 R = floats8(r), G = floats8(g), B = floats8(b);
    __m256i x[3];
    for (int c = 0; c < 3; c++)
        x[c] = _mm256_cvtps_epi32(_mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(M[3 * c], R), _mm256_mul_ps(M[3 * c + 1], G)), _mm256_mul_ps(M[3 * c + 2], B)));
    return pack3(x[0], x[1], x[2]);
}

AVX2_FN __m128i load8(const uint8_t *p) { return _mm_loadl_epi64((const __m128i *)p); }

AVX2_FN void store_planes8(__m256i out, uint8_t *const *planes, ptrdiff_t i) {  /* rotate8's R, G, B to planes */
    __m128i rg = _mm256_castsi256_si128(out);
    _mm_storel_epi64((__m128i *)(planes[0] + i), rg);
    _mm_storel_epi64((__m128i *)(planes[1] + i), _mm_unpackhi_epi64(rg, rg));
    _mm_storel_epi64((__m128i *)(planes[2] + i), _mm256_extracti128_si256(out, 1));
}

/* An op on 8 pixels (bytes in the low halves of r, g, b), packed as pack3; params: its constants. */
typedef __m256i (*Op8)(__m128i r, __m128i g, __m128i b, const void *params);

AVX2_FN __m256i rotate8_op(__m128i r, __m128i g, __m128i b, const void *params) {
    return rotate8(r, g, b, *(const __m256 *)params);
}

AVX2_FN __m256i matrix8_op(__m128i r, __m128i g, __m128i b, const void *params) {
    return matrix8(r, g, b, (const __m256 *)params);
}

/* Lanes 0..n-1 (n a multiple of 8) of the planes r, g, b through op into o[0..2], four independent blocks a turn
 * (inlined with a constant op: the blocks' steps interleave). */
AVX2_FN void op_planes_avx2(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, Op8 op,
                            const void *params, uint8_t *const *o) {
    uint8_t *const planes[3] = {o[0], o[1], o[2]};
    ptrdiff_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i first = op(load8(r + i), load8(g + i), load8(b + i), params);
        __m256i second = op(load8(r + i + 8), load8(g + i + 8), load8(b + i + 8), params);
        __m256i third = op(load8(r + i + 16), load8(g + i + 16), load8(b + i + 16), params);
        __m256i fourth = op(load8(r + i + 24), load8(g + i + 24), load8(b + i + 24), params);
        store_planes8(first, planes, i);
        store_planes8(second, planes, i + 8);
        store_planes8(third, planes, i + 16);
        store_planes8(fourth, planes, i + 24);
    }
    for (; i < n; i += 8) store_planes8(op(load8(r + i), load8(g + i), load8(b + i), params), planes, i);
}

__attribute__((target("avx2"))) static void hue_lanes_avx2(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                                           ptrdiff_t n, float factor, uint8_t *const *o) {
    const __m256 f = _mm256_set1_ps(factor);
    op_planes_avx2(r, g, b, n, rotate8_op, &f, o);
}

__attribute__((target("avx2"))) static void matrix_lanes_avx2(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                                              ptrdiff_t n, const float *m, uint8_t *const *o) {
    __m256 M[9];
    for (int k = 0; k < 9; k++) M[k] = _mm256_set1_ps(m[k]);
    op_planes_avx2(r, g, b, n, matrix8_op, M, o);
}

/* The hue rotation again on 16 lanes (AVX-512F, where the CPU has it): rotate8's steps, its masks as mask registers
 * (each "add 1 where" an add of 1.0 or 0.0, as there), saturated to bytes as pack3 does, stored to the planes. */
#define AVX512_FN static inline __attribute__((always_inline, target("avx512f")))

AVX512_FN __m512 floats16(const uint8_t *p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)));
}

AVX512_FN __m512 ones_where(__mmask16 k) { return _mm512_maskz_mov_ps(k, _mm512_set1_ps(1.0f)); }

AVX512_FN __m512 wrap_turn16(__m512 h) {
    h = _mm512_sub_ps(h, ones_where(_mm512_cmp_ps_mask(h, _mm512_set1_ps(1.0f), _CMP_GE_OQ)));
    return _mm512_add_ps(h, ones_where(_mm512_cmp_ps_mask(h, _mm512_setzero_ps(), _CMP_LT_OQ)));
}

AVX512_FN void channel16(__m512 v, __m512 c, __m512 sextant, float opposite, uint8_t *d) {
    __m512 dist = _mm512_abs_ps(_mm512_sub_ps(sextant, _mm512_set1_ps(opposite)));
    __m512 w = _mm512_max_ps(_mm512_sub_ps(_mm512_set1_ps(2.0f), dist), _mm512_sub_ps(dist, _mm512_set1_ps(4.0f)));
    w = _mm512_min_ps(_mm512_max_ps(w, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
    __m512i x = _mm512_cvtps_epi32(_mm512_sub_ps(v, _mm512_mul_ps(c, w)));
    _mm_storeu_si128((__m128i *)d, _mm512_cvtusepi32_epi8(_mm512_max_epi32(x, _mm512_setzero_si512())));
}

AVX512_FN void rotate16(const uint8_t *r, const uint8_t *g, const uint8_t *b, __m512 f, uint8_t *const *o,
                        ptrdiff_t i) {
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), six = _mm512_set1_ps(6.0f);
    __m512 R = floats16(r + i), G = floats16(g + i), B = floats16(b + i);
    __m512 v = _mm512_max_ps(_mm512_max_ps(R, G), B);
    __m512 c = _mm512_sub_ps(v, _mm512_min_ps(_mm512_min_ps(R, G), B));
    __mmask16 is_r = _mm512_cmp_ps_mask(v, R, _CMP_EQ_OQ);
    __mmask16 is_g = (__mmask16)(~is_r & _mm512_cmp_ps_mask(v, G, _CMP_EQ_OQ));
    __m512 num_b = _mm512_add_ps(_mm512_sub_ps(R, G), _mm512_mul_ps(c, _mm512_set1_ps(4.0f)));
    __m512 num_g = _mm512_add_ps(_mm512_sub_ps(B, R), _mm512_add_ps(c, c));
    __m512 num = _mm512_mask_blend_ps(is_r, _mm512_mask_blend_ps(is_g, num_b, num_g), _mm512_sub_ps(G, B));
    __m512 h = _mm512_div_ps(num, _mm512_mul_ps(_mm512_max_ps(c, one), six));
    h = _mm512_add_ps(h, ones_where(_mm512_cmp_ps_mask(h, zero, _CMP_LT_OQ)));
    __m512 sextant = _mm512_mul_ps(wrap_turn16(_mm512_add_ps(h, f)), six);
    channel16(v, c, sextant, 3.0f, o[0] + i);
    channel16(v, c, sextant, 5.0f, o[1] + i);
    channel16(v, c, sextant, 1.0f, o[2] + i);
}

/* Lanes 0.. of the planes through rotate16, four blocks a turn, then one: returns how many (a multiple of 16). */
__attribute__((target("avx512f"))) static ptrdiff_t hue_lanes_avx512(const uint8_t *r, const uint8_t *g,
                                                                    const uint8_t *b, ptrdiff_t n, float factor,
                                                                    uint8_t *const *o) {
    const __m512 f = _mm512_set1_ps(factor);
    ptrdiff_t i = 0;
    for (; i + 64 <= n; i += 64) {
        rotate16(r, g, b, f, o, i);
        rotate16(r, g, b, f, o, i + 16);
        rotate16(r, g, b, f, o, i + 32);
        rotate16(r, g, b, f, o, i + 48);
    }
    for (; i + 16 <= n; i += 16) rotate16(r, g, b, f, o, i);
    return i;
}

AVX512_FN void matrix16(const uint8_t *r, const uint8_t *g, const uint8_t *b, const __m512 *M, uint8_t *const *o,
                        ptrdiff_t i) {
    __m512 R = floats16(r + i), G = floats16(g + i), B = floats16(b + i);
    for (int c = 0; c < 3; c++) {
        __m512i x = _mm512_cvtps_epi32(_mm512_add_ps(
            _mm512_add_ps(_mm512_mul_ps(M[3 * c], R), _mm512_mul_ps(M[3 * c + 1], G)), _mm512_mul_ps(M[3 * c + 2], B)));
        _mm_storeu_si128((__m128i *)(o[c] + i), _mm512_cvtusepi32_epi8(_mm512_max_epi32(x, _mm512_setzero_si512())));
    }
}

/* Lanes 0.. of the planes through the colour matrix m, 16 at a time (matrix8's steps): returns how many. */
__attribute__((target("avx512f"))) static ptrdiff_t matrix_lanes_avx512(const uint8_t *r, const uint8_t *g,
                                                                       const uint8_t *b, ptrdiff_t n, const float *m,
                                                                       uint8_t *const *o) {
    __m512 M[9];
    for (int k = 0; k < 9; k++) M[k] = _mm512_set1_ps(m[k]);
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) matrix16(r, g, b, M, o, i);
    return i;
}

#define Z (-1) /* a zero byte in a shuffle */

/* rotate8's R, G, B (R in bytes 0-7 and G in 8-15 of the low half, B in 0-7 of the high half) as 24 bytes of
 * interleaved pixels at d. */
AVX2_FN void store_pixels8(__m256i out, uint8_t *d) {
    const __m128i rg_0 = _mm_setr_epi8(0, 8, Z, 1, 9, Z, 2, 10, Z, 3, 11, Z, 4, 12, Z, 5);
    const __m128i b_0 = _mm_setr_epi8(Z, Z, 0, Z, Z, 1, Z, Z, 2, Z, Z, 3, Z, Z, 4, Z);
    const __m128i rg_1 = _mm_setr_epi8(13, Z, 6, 14, Z, 7, 15, Z, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i b_1 = _mm_setr_epi8(Z, 5, Z, Z, 6, Z, Z, 7, Z, Z, Z, Z, Z, Z, Z, Z);
    __m128i rg = _mm256_castsi256_si128(out), b = _mm256_extracti128_si256(out, 1);
    _mm_storeu_si128((__m128i *)d, _mm_or_si128(_mm_shuffle_epi8(rg, rg_0), _mm_shuffle_epi8(b, b_0)));
    _mm_storel_epi64((__m128i *)(d + 16), _mm_or_si128(_mm_shuffle_epi8(rg, rg_1), _mm_shuffle_epi8(b, b_1)));
}

/* The R, G, B bytes of 8 interleaved pixels (bytes 0-15 of them in lo, 16-23 in the low half of hi), each in the
 * low half of a vector. */
AVX2_FN void deinterleave8(__m128i lo, __m128i hi, __m128i *r, __m128i *g, __m128i *b) {
    const __m128i r_lo = _mm_setr_epi8(0, 3, 6, 9, 12, 15, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i r_hi = _mm_setr_epi8(Z, Z, Z, Z, Z, Z, 2, 5, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i g_lo = _mm_setr_epi8(1, 4, 7, 10, 13, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i g_hi = _mm_setr_epi8(Z, Z, Z, Z, Z, 0, 3, 6, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i b_lo = _mm_setr_epi8(2, 5, 8, 11, 14, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z);
    const __m128i b_hi = _mm_setr_epi8(Z, Z, Z, Z, Z, 1, 4, 7, Z, Z, Z, Z, Z, Z, Z, Z);
    *r = _mm_or_si128(_mm_shuffle_epi8(lo, r_lo), _mm_shuffle_epi8(hi, r_hi));
    *g = _mm_or_si128(_mm_shuffle_epi8(lo, g_lo), _mm_shuffle_epi8(hi, g_hi));
    *b = _mm_or_si128(_mm_shuffle_epi8(lo, b_lo), _mm_shuffle_epi8(hi, b_hi));
}

/* The first n / 8 * 8 interleaved pixels of s through op into d (which may be s), split into planes and merged
 * back by byte shuffles, four blocks of 24 bytes a turn. Returns the pixels done. */
AVX2_FN ptrdiff_t op_pixels_avx2(const uint8_t *s, uint8_t *d, ptrdiff_t n, Op8 op, const void *params) {
    ptrdiff_t i = 0;
    for (; i + 32 <= n; i += 32) {  /* all four blocks loaded before any is stored: d may be s */
        const __m128i *p = (const __m128i *)(s + 3 * i);
        __m128i v0 = _mm_loadu_si128(p), v1 = _mm_loadu_si128(p + 1), v2 = _mm_loadu_si128(p + 2);
        __m128i v3 = _mm_loadu_si128(p + 3), v4 = _mm_loadu_si128(p + 4), v5 = _mm_loadu_si128(p + 5);
        __m128i r0, g0, b0, r1, g1, b1, r2, g2, b2, r3, g3, b3;
        deinterleave8(v0, v1, &r0, &g0, &b0);
        deinterleave8(_mm_alignr_epi8(v2, v1, 8), _mm_srli_si128(v2, 8), &r1, &g1, &b1);
        deinterleave8(v3, v4, &r2, &g2, &b2);
        deinterleave8(_mm_alignr_epi8(v5, v4, 8), _mm_srli_si128(v5, 8), &r3, &g3, &b3);
        __m256i first = op(r0, g0, b0, params), second = op(r1, g1, b1, params);
        __m256i third = op(r2, g2, b2, params), fourth = op(r3, g3, b3, params);
        store_pixels8(first, d + 3 * i);
        store_pixels8(second, d + 3 * i + 24);
        store_pixels8(third, d + 3 * i + 48);
        store_pixels8(fourth, d + 3 * i + 72);
    }
    for (; i + 8 <= n; i += 8) {
        const uint8_t *p = s + 3 * i;
        __m128i r, g, b;
        deinterleave8(_mm_loadu_si128((const __m128i *)p), _mm_loadl_epi64((const __m128i *)(p + 16)), &r, &g, &b);
        store_pixels8(op(r, g, b, params), d + 3 * i);
    }
    return i;
}

__attribute__((target("avx2"))) static ptrdiff_t hue_pixels_avx2(const uint8_t *s, uint8_t *d, ptrdiff_t n,
                                                                 float factor) {
    const __m256 f = _mm256_set1_ps(factor);
    return op_pixels_avx2(s, d, n, rotate8_op, &f);
}

__attribute__((target("avx2"))) static ptrdiff_t matrix_pixels_avx2(const uint8_t *s, uint8_t *d, ptrdiff_t n,
                                                                    const float *m) {
    __m256 M[9];
    for (int k = 0; k < 9; k++) M[k] = _mm256_set1_ps(m[k]);
    return op_pixels_avx2(s, d, n, matrix8_op, M);
}
#undef Z
#else
#define COLOR_AVX2 0
#endif

#else /* plain C: the same steps one pixel at a time */
#define COLOR_AVX2 0

static float wrap_turn1(float h) {
    if (h >= 1.0f) h -= 1.0f;
    if (h < 0.0f) h += 1.0f;
    return h;
}

static uint8_t channel1(float v, float c, float sextant, float opposite) {
    float d = fabsf(sextant - opposite);
    float w = fminf(fmaxf(fmaxf(2.0f - d, d - 4.0f), 0.0f), 1.0f);
    return (uint8_t)nearbyintf(v - c * w);
}

static void hue_lanes(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, float factor,
                      uint8_t *const *o) {
    for (ptrdiff_t i = 0; i < n; i++) {
        float R = r[i], G = g[i], B = b[i];
        float v = fmaxf(fmaxf(R, G), B), c = v - fminf(fminf(R, G), B);
        float num = v == R ? G - B : v == G ? (B - R) + (c + c) : (R - G) + c * 4.0f;
        float sextant = wrap_turn1(wrap_turn1(num / ((c == 0.0f ? 1.0f : c) * 6.0f)) + factor) * 6.0f;
        o[0][i] = channel1(v, c, sextant, 3.0f);
        o[1][i] = channel1(v, c, sextant, 5.0f);
        o[2][i] = channel1(v, c, sextant, 1.0f);
    }
}

static void matrix_lanes(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, const float *m,
                         uint8_t *const *o) {
    for (ptrdiff_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            float x = nearbyintf((m[3 * c] * (float)r[i] + m[3 * c + 1] * (float)g[i]) + m[3 * c + 2] * (float)b[i]);
            o[c][i] = (uint8_t)(x < 0.0f ? 0.0f : x > 255.0f ? 255.0f : x);
        }
}
#endif

#if !COLOR_AVX2 /* never called: the callers test COLOR_AVX2 first */
static ptrdiff_t hue_lanes_avx512(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, float factor,
                                  uint8_t *const *o) {
    return 0;
}
static ptrdiff_t matrix_lanes_avx512(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, const float *m,
                                     uint8_t *const *o) {
    return 0;
}
static void hue_lanes_avx2(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, float factor,
                           uint8_t *const *o) {}
static void matrix_lanes_avx2(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, const float *m,
                              uint8_t *const *o) {}
static ptrdiff_t hue_pixels_avx2(const uint8_t *s, uint8_t *d, ptrdiff_t n, float factor) { return 0; }
static ptrdiff_t matrix_pixels_avx2(const uint8_t *s, uint8_t *d, ptrdiff_t n, const float *m) { return 0; }
#endif

/* Lanes 0..n-1 (n a multiple of 8) of the planes r, g, b through op (COLOR_HUE: params[0] the factor;
 * COLOR_MATRIX: params[0..8] the matrix) into o[0..2]; avx2: 0 (SSE2), 1 (AVX2), 2 (AVX2 and the 16-lane loops: the
 * caller has checked the CPU has AVX-512). */
static void op_lanes(const uint8_t *r, const uint8_t *g, const uint8_t *b, ptrdiff_t n, int op, const float *params,
                     uint8_t *const *o, int avx2) {
    if (op == COLOR_HUE) {
        if (avx2 && COLOR_AVX2) {
            ptrdiff_t done = avx2 > 1 ? hue_lanes_avx512(r, g, b, n, params[0], o) : 0;
            uint8_t *const rest[3] = {o[0] + done, o[1] + done, o[2] + done};
            if (done < n) hue_lanes_avx2(r + done, g + done, b + done, n - done, params[0], rest);
        } else {
            hue_lanes(r, g, b, n, params[0], o);
        }
    } else if (avx2 && COLOR_AVX2) {
        ptrdiff_t done = avx2 > 1 ? matrix_lanes_avx512(r, g, b, n, params, o) : 0;
        uint8_t *const rest[3] = {o[0] + done, o[1] + done, o[2] + done};
        if (done < n) matrix_lanes_avx2(r + done, g + done, b + done, n - done, params, rest);
    } else {
        matrix_lanes(r, g, b, n, params, o);
    }
}

/* One row of width interleaved RGB pixels from src through op (see op_lanes) into dst (which may be src itself): by
 * byte shuffles with AVX2, else (and for the last width % 8 pixels) in chunks copied into planes; a chunk's last
 * lanes are padded to a whole vector and their results dropped. */
void color_pixels_row(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int op, const float *params, int avx2) {
    uint8_t in[3][CHUNK], out[3][CHUNK];
    uint8_t *o[3] = {out[0], out[1], out[2]};
    ptrdiff_t x0 = 0;
    if (avx2 && COLOR_AVX2)
        x0 = op == COLOR_HUE ? hue_pixels_avx2(src, dst, width, params[0])
                             : matrix_pixels_avx2(src, dst, width, params);
    for (; x0 < width; x0 += CHUNK) {
        int n = width - x0 < CHUNK ? (int)(width - x0) : CHUNK, lanes = (n + 7) & ~7;
        const uint8_t *s = src + 3 * x0;
        for (int i = 0; i < n; i++) {
            in[0][i] = s[3 * i];
            in[1][i] = s[3 * i + 1];
            in[2][i] = s[3 * i + 2];
        }
        for (int k = 0; k < 3; k++) memset(in[k] + n, 0, (size_t)(lanes - n));
        op_lanes(in[0], in[1], in[2], lanes, op, params, o, avx2);
        uint8_t *d = dst + 3 * x0;
        for (int i = 0; i < n; i++) {
            d[3 * i] = out[0][i];
            d[3 * i + 1] = out[1][i];
            d[3 * i + 2] = out[2][i];
        }
    }
}

/* One row of width pixels of the planes r, g, b through op (see op_lanes) into the rows o[0..2]: whole vectors where
 * they are, the last width % 8 pixels through a padded copy. */
void color_planes_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, uint8_t *const *o, ptrdiff_t width, int op,
                      const float *params, int avx2) {
    ptrdiff_t whole = width & ~(ptrdiff_t)7;
    if (whole > 0) op_lanes(r, g, b, whole, op, params, o, avx2);
    int n = (int)(width - whole);
    if (n == 0) return;
    uint8_t in[3][8] = {{0}}, out[3][8];
    uint8_t *tail[3] = {out[0], out[1], out[2]};
    memcpy(in[0], r + whole, (size_t)n);
    memcpy(in[1], g + whole, (size_t)n);
    memcpy(in[2], b + whole, (size_t)n);
    op_lanes(in[0], in[1], in[2], 8, op, params, tail, avx2);
    for (int k = 0; k < 3; k++) memcpy(o[k] + whole, out[k], (size_t)n);
}
