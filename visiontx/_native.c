/* visiontx._native: optional compiled kernels, built at install time where a C compiler is present.
 *
 * resize(src, dst, bicubic, antialias): torch's uint8 resize (interpolate(..., antialias=...): bilinear, and
 * bicubic with antialias) of each H x W plane of src into dst, with torch's values exactly. torch computes
 * the weights of each axis in double (antialiased, the filter widened by the scale where the axis shrinks),
 * normalises them, rounds them to int16 at the largest precision its largest weight allows, and runs a
 * horizontal pass into a uint8 buffer, then a vertical pass; each output is the integer dot product plus
 * half a unit, shifted down and clamped to 0..255. This file does the same arithmetic in the same order,
 * plane by plane. The vertical pass combines whole rows, two at a time per multiply-add (_mm_madd_epi16).
 * The horizontal pass runs along the rows where it halves the width (each output's taps then sit two
 * pixels after the previous output's; the few edge outputs, whose taps the border cuts, then go 16 rows at
 * a time from each row's first and last 16 bytes, transposed); along the rows by 16-byte windows where every
 * output has at most six taps and four outputs' taps fit one window (bilinear without antialias up to a scale of
 * ~4.3, antialiased up to ~2.7, upscales; AVX2: each window's bytes shuffled into int16 pairs, one
 * _mm256_madd_epi16 a pair of taps for 8 outputs);
 * otherwise 32 rows at a time are transposed into a tile that stays in cache, where each output column is a sum
 * of whole columns, as in the vertical pass. Both ask for the rows they read ahead (software prefetch: a freshly
 * decoded image is out of cache). It skips the input rows the vertical pass does not read (reductions without
 * antialias). The weights of the last few axes are kept between calls. A halving without antialias (weights of one
 * half) is one fused pass of rounded pair means.
 *
 * luma(src, dst, weights): the torch grayscale kernel's fixed-point luma of RGB images, as the vertical
 * pass over the rows R, G, G, B.
 *
 * hue(src, dst, factor) and hue_pixels(src, dst, factor): the hue rotation of visiontx's torch path, in its float32
 * arithmetic, of planar and of interleaved RGB; color_matrix(src, dst, m) and color_matrix_pixels(src, dst, m): a
 * 3 x 3 colour matrix in float32 (saturation) (_native_color.c).
 *
 * normalize(src, dst, scale, mean, std): torch's to_dtype(float32, scale=True) then normalize of uint8 images, in
 * the same float32 steps.
 *
 * pad(src, dst, (left, top, right, bottom), fills): a constant pad of uint8 planes, each byte written once.
 *
 * blur(src, dst, wx, wy): the separable blur of uint8 or float32 planes in the torch path's float32 steps, reflected
 * borders; AVX2 with FMA only (_native_blur.c).
 *
 * nearest_points(u, v, coefficients, projective, half_width, half_height, x0, y0): the rounded source points of a
 * nearest warp, in the float32 steps of the numpy version (_native_warp.c).
 *
 * pack_masks(src, dst) and unpack_masks(src, dst): 0 / 1 masks eight to a byte plane and back (_native_masks.c).
 *
 * mt_uniform(state, position, out, centred): torch.rand's floats from its CPU generator's state (_native_random.c).
 *
 * blend_border(out, alpha, fills, src, matrix, projective, map_x, map_y): the torch path's border blend of an OpenCV
 * warp or remap of src with a fill, where its sampled alpha plane is strictly between 0 and 255 and, for a warp by a
 * matrix, where the exact share of the footprint in the image is (_native_warp.c).
 *
 * The loops use SSE2 (every x86-64 CPU), and AVX2 where the CPU has it (checked when the module loads; the
 * halving's 1, 3, 3, 1 loops, the blur and the hue rotation and colour matrix of planes also 512-bit ones where it
 * has AVX-512);
 * other machines get plain C loops, and visiontx prefers torch's kernels there (SIMD is 0).
 * src: uint8 buffers with contiguous rows (any plane and row strides); dst: C-contiguous uint8 buffers.
 * The GIL is released while they work.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The 512-bit loops (the blur's, the halving's, the hue rotation's and colour matrix's) where the CPU has AVX-512
 * (wide_loops); switchable for tests (set_avx512) */
static int use_avx512 = 1;

typedef struct {
    Py_ssize_t out;       /* output length */
    int taps;             /* weights stored per output */
    int precision;        /* fixed-point bits of the weights */
    Py_ssize_t *start;    /* first input index of each output */
    int *count;           /* taps used by each output */
    int16_t *weights;     /* out x taps */
} Axis;

/* Groups of 4 outputs a window plan holds: one more than the outputs fill, an empty one (no taps), so that a block
 * of 8 outputs can end in it. */
static inline Py_ssize_t window_groups(Py_ssize_t out) { return (out + 3) / 4 + 1; }

static double linear_filter(double x) {
    if (x < 0.0) x = -x;
    return x < 1.0 ? 1.0 - x : 0.0;
}

static double cubic_filter(double x) { /* Keys' cubic, a = -0.5, in torch's order of operations */
    const double a = -0.5;
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    return 0.0;
}

static void axis_free(Axis *axis) {  /* safe to call twice */
    free(axis->start);
    free(axis->count);
    free(axis->weights);
    axis->start = NULL;
    axis->count = NULL;
    axis->weights = NULL;
}

/* The weights of one axis resized from in to out, as torch's uint8 path computes them: antialiased, the
 * filter is widened by the scale where the axis shrinks; bilinear without antialias keeps its width. */
static int axis_init(Axis *axis, Py_ssize_t in, Py_ssize_t out, int bicubic, int antialias) {
    double (*filter)(double) = bicubic ? cubic_filter : linear_filter;
    double scale = (double)in / (double)out;
    double half = bicubic ? 2.0 : 1.0;
    int widen = antialias && scale >= 1.0;
    double support = widen ? half * scale : half;
    double invscale = widen ? 1.0 / scale : 1.0;
    double taps_wanted = ceil(support) * 2.0 + 1.0;
    if (taps_wanted > (double)(1 << 30) || (double)out * taps_wanted > (double)(PY_SSIZE_T_MAX / 16)) return -1;
    int taps = (int)taps_wanted;
    double *w = malloc(sizeof(double) * (size_t)(out * taps));
    axis->out = out;
    axis->taps = taps;
    axis->start = malloc(sizeof(Py_ssize_t) * (size_t)out);
    axis->count = malloc(sizeof(int) * (size_t)out);
    axis->weights = malloc(sizeof(int16_t) * (size_t)(out * taps));
    if (!w || !axis->start || !axis->count || !axis->weights) {
        free(w);
        axis_free(axis);
        return -1;
    }
    double w_max = 0.0;
    for (Py_ssize_t i = 0; i < out; i++) {
        double center = scale * ((double)i + 0.5);
        int64_t lo = (int64_t)(center - support + 0.5);
        int64_t hi = (int64_t)(center + support + 0.5);
        if (lo < 0) lo = 0;
        if (hi > in) hi = in;
        int64_t size = hi - lo;
        if (size < 0) size = 0;
        if (size > taps) size = taps;
        double *row = w + i * taps;
        double total = 0.0;
        int64_t j = 0;
        for (; j < size; j++) {
            row[j] = filter(((double)(j + lo) - center + 0.5) * invscale);
            total += row[j];
        }
        if (total != 0.0) {
            for (j = 0; j < size; j++) {
                row[j] /= total;
                if (row[j] > w_max) w_max = row[j];
            }
        }
        for (; j < taps; j++) row[j] = 0.0;
        axis->start[i] = (Py_ssize_t)lo;
        axis->count[i] = (int)size;
    }
    int precision;
    for (precision = 0; precision < 22; precision++) {
        int next = (int)(0.5 + w_max * (double)(1 << (precision + 1)));
        if (next >= (1 << 15)) break;
    }
    axis->precision = precision;
    for (Py_ssize_t k = 0; k < out * taps; k++) {
        double v = w[k] * (double)(1 << precision);
        axis->weights[k] = (int16_t)(v < 0 ? (int)(-0.5 + v) : (int)(0.5 + v));
    }
    free(w);
    return 0;
}

static inline uint8_t clamp_shift(int32_t acc, int precision) {
    int32_t v = acc >> precision;
    return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

static void row_plain(const uint8_t *s, uint8_t *d, const Axis *axis, Py_ssize_t j0, Py_ssize_t j1) {
    int32_t bias = 1 << (axis->precision - 1);
    for (Py_ssize_t j = j0; j < j1; j++) {
        const int16_t *w = axis->weights + j * axis->taps;
        const uint8_t *q = s + axis->start[j];
        int32_t acc = bias;
        for (int t = 0; t < axis->count[j]; t++) acc += (int32_t)w[t] * (int32_t)q[t];
        d[j] = clamp_shift(acc, axis->precision);
    }
}

/* Columns x0..width-1 of one output row of the vertical pass; src points at its first input row. */
static void vertical_columns(const uint8_t *src, Py_ssize_t stride, Py_ssize_t x0, Py_ssize_t width, const int16_t *w,
                             int count, int precision, uint8_t *d) {
    int32_t bias = 1 << (precision - 1);
    for (Py_ssize_t x = x0; x < width; x++) {
        int32_t acc = bias;
        for (int t = 0; t < count; t++) acc += (int32_t)w[t] * (int32_t)src[t * stride + x];
        d[x] = clamp_shift(acc, precision);
    }
}

/* Columns x0..width-1 of one row of luma: (wr * R + wg * G + wb * B + 2^15) >> 16, torch's uint8 kernel's
 * fixed point. */
static void luma_columns(const uint8_t *r, const uint8_t *g, const uint8_t *b, const int32_t *weights, Py_ssize_t x0,
                         Py_ssize_t width, uint8_t *d) {
    for (Py_ssize_t x = x0; x < width; x++)
        d[x] = clamp_shift(weights[0] * r[x] + weights[1] * g[x] + weights[2] * b[x] + (1 << 15), 16);
}

/* Outputs x0..width-1 of one row of a halving without antialias, from input rows r0 and r1: torch's weights are
 * halves there, so its two passes give (a + b + 1) >> 1 across, then the same down. */
static void mean2x2_columns(const uint8_t *r0, const uint8_t *r1, Py_ssize_t x0, Py_ssize_t width, uint8_t *d) {
    for (Py_ssize_t x = x0; x < width; x++) {
        int top = (r0[2 * x] + r0[2 * x + 1] + 1) >> 1, bottom = (r1[2 * x] + r1[2 * x + 1] + 1) >> 1;
        d[x] = (uint8_t)((top + bottom + 1) >> 1);
    }
}

#ifdef __SSE2__
#include <emmintrin.h>
#define SIMD 1
#define MAX_PAIRS 32  /* taps up to 64: resizes by factors up to 16 (bilinear) or 8 (bicubic) */

/* Two int16 weights as the (low, high) pair _mm_madd_epi16 multiplies adjacent int16 values by. */
static inline __m128i weight_pair(int16_t low, int16_t high) {
    return _mm_set1_epi32((int32_t)(((uint32_t)(uint16_t)high << 16) | (uint16_t)low));
}

/* Four int32 sums shifted down and clamped to uint8 the way torch packs them: 16 bytes. */
static inline __m128i pack_sums(__m128i a0, __m128i a1, __m128i a2, __m128i a3, __m128i shift) {
    __m128i lo = _mm_packs_epi32(_mm_sra_epi32(a0, shift), _mm_sra_epi32(a1, shift));
    __m128i hi = _mm_packs_epi32(_mm_sra_epi32(a2, shift), _mm_sra_epi32(a3, shift));
    return _mm_packus_epi16(lo, hi);
}

/* a[0..3] += the pairs (r0[i], r1[i]) of 16 byte lanes times the weight pair w (lanes 0-3, 4-7, 8-11, 12-15). */
static inline void accumulate_rows(__m128i *a, __m128i r0, __m128i r1, __m128i w) {
    const __m128i zero = _mm_setzero_si128();
    __m128i lo = _mm_unpacklo_epi8(r0, r1), hi = _mm_unpackhi_epi8(r0, r1);  /* the two rows interleaved */
    a[0] = _mm_add_epi32(a[0], _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), w));
    a[1] = _mm_add_epi32(a[1], _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), w));
    a[2] = _mm_add_epi32(a[2], _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), w));
    a[3] = _mm_add_epi32(a[3], _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), w));
}

#define INLINE static inline __attribute__((always_inline))

/* Where the next block of n outputs of a run [j0, j1) starts, the loop being at j: j itself while the block
 * fits the run and its loads fit the row (2 * start <= room), else one last block overlapping the previous
 * (ending at j1) where that fits; -1 when the run is done or no block fits. The plain loop takes what is left. */
static inline Py_ssize_t block_start(Py_ssize_t j, Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t n, Py_ssize_t room) {
    if (j >= j1) return -1;
    if (j + n <= j1 && 2 * j <= room) return j;
    Py_ssize_t last = j1 - n;
    return last >= j0 && 2 * last <= room ? last : -1;
}

/* Outputs j0, j0 + 8, ... of a halving's interior, eight at a time, while the loads stay inside the row:
 * bytes 2m and 2m + 1 of a load are output m's pair of taps. Inlined with a constant pair count where it
 * is a common one, for the compiler to unroll. */
INLINE Py_ssize_t halving_blocks(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j0, Py_ssize_t j,
                                 Py_ssize_t j1, Py_ssize_t offset, const __m128i *wp, const int pairs, int precision) {
    const __m128i zero = _mm_setzero_si128(), shift = _mm_cvtsi32_si128(precision);
    const __m128i bias = _mm_set1_epi32(1 << (precision - 1));
    for (Py_ssize_t at; (at = block_start(j, j0, j1, 8, width - offset - 2 * pairs - 14)) >= 0; j = at + 8) {
        __m128i a0 = bias, a1 = bias;
        const uint8_t *q = s + 2 * at + offset;
        for (int p = 0; p < pairs; p++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(q + 2 * p));
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), wp[p]));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), wp[p]));
        }
        _mm_storel_epi64((__m128i *)(d + at), pack_sums(a0, a1, zero, zero, shift));
    }
    return j;
}

/* Weights w[0..count) as pairs (an odd last tap pairs with a zero weight); 0 pairs where there are too many. */
static int weight_pairs(const int16_t *w, int count, __m128i *wp) {
    int pairs = (count + 1) / 2;
    if (pairs > MAX_PAIRS) return 0;
    for (int p = 0; p < pairs; p++) wp[p] = weight_pair(w[2 * p], 2 * p + 1 < count ? w[2 * p + 1] : 0);
    return pairs;
}


/* Bilinear halving's interior weights are 1, 3, 3, 1 eighths, exactly representable: with u = 2^(precision - 3)
 * torch's (u * sum + 2^(precision - 1)) >> precision is (sum + 4) >> 3, small enough for 16-bit lanes (twice
 * the pixels per instruction of the 32-bit multiply-adds). */
static int is_1331(const int16_t *w, int count, int precision) {
    if (count != 4 || precision < 3) return 0;
    int u = 1 << (precision - 3);
    return w[0] == u && w[1] == 3 * u && w[2] == 3 * u && w[3] == u;
}

/* (a + 3 b + 3 c + d + 4) >> 3 of 16-bit lanes. */
static inline __m128i eighths_1331(__m128i a, __m128i b, __m128i c, __m128i d) {
    __m128i inner = _mm_add_epi16(b, c);
    __m128i sum = _mm_add_epi16(_mm_add_epi16(a, d), _mm_add_epi16(inner, _mm_add_epi16(inner, inner)));
    return _mm_srli_epi16(_mm_add_epi16(sum, _mm_set1_epi16(4)), 3);
}

/* Columns x, x + 16, ... of an output row from four input rows weighted 1, 3, 3, 1 eighths. */
static Py_ssize_t vertical_1331(const uint8_t *const *rows, Py_ssize_t x, Py_ssize_t width, uint8_t *d) {
    const __m128i zero = _mm_setzero_si128();
    for (Py_ssize_t at; (at = block_start(x, 0, width, 16, 2 * width)) >= 0; x = at + 16) {
        const uint8_t *r0 = rows[0] + at, *r1 = rows[1] + at, *r2 = rows[2] + at, *r3 = rows[3] + at;
        __m128i a = _mm_loadu_si128((const __m128i *)r0), b = _mm_loadu_si128((const __m128i *)r1);
        __m128i c = _mm_loadu_si128((const __m128i *)r2), e = _mm_loadu_si128((const __m128i *)r3);
        __m128i lo = eighths_1331(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero), _mm_unpacklo_epi8(c, zero),
                                  _mm_unpacklo_epi8(e, zero));
        __m128i hi = eighths_1331(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero), _mm_unpackhi_epi8(c, zero),
                                  _mm_unpackhi_epi8(e, zero));
        _mm_storeu_si128((__m128i *)(d + at), _mm_packus_epi16(lo, hi));
    }
    return x;
}

/* Eight halving outputs from q[0..17]: the 16-bit lanes of the loads at q and q + 2 hold taps 0, 1 and 2, 3. */
static inline __m128i halving_1331_8(const uint8_t *q) {
    const __m128i low = _mm_set1_epi16(0xFF);
    __m128i v0 = _mm_loadu_si128((const __m128i *)q), v1 = _mm_loadu_si128((const __m128i *)(q + 2));
    return eighths_1331(_mm_and_si128(v0, low), _mm_srli_epi16(v0, 8), _mm_and_si128(v1, low), _mm_srli_epi16(v1, 8));
}

/* Outputs j, j + 16, ... of a halving's interior whose taps, at 2 * j + offset, weigh 1, 3, 3, 1 eighths. */
static Py_ssize_t halving_1331(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j0, Py_ssize_t j,
                               Py_ssize_t j1, Py_ssize_t offset) {
    for (Py_ssize_t at; (at = block_start(j, j0, j1, 16, width - offset - 34)) >= 0; j = at + 16) {
        const uint8_t *q = s + 2 * at + offset;
        _mm_storeu_si128((__m128i *)(d + at), _mm_packus_epi16(halving_1331_8(q), halving_1331_8(q + 16)));
    }
    return j;
}

#define PREFETCH_AHEAD 256  /* bytes: how far ahead along its rows the transposed pass asks for them */
#define TILE 32  /* rows per block of the transposed horizontal pass: one tile column is 32 bytes */

/* The horizontal pass of TILE rows, transposed: tile holds their pixels column by column (TILE bytes a column,
 * rows in lanes), so each output column is the vertical pass's sum over whole columns, 16 lanes at a time. */
static void tile_columns(const uint8_t *tile, const Axis *axis, const int32_t *pairs, const Py_ssize_t *first_pair,
                         uint8_t *out) {
    const __m128i shift = _mm_cvtsi32_si128(axis->precision);
    const __m128i bias = _mm_set1_epi32(1 << (axis->precision - 1));
    for (Py_ssize_t j = 0; j < axis->out; j++) {
        for (int half = 0; half < TILE; half += 16) {
            const uint8_t *q = tile + axis->start[j] * TILE + half;
            const int32_t *wp = pairs + first_pair[j];
            __m128i a[4] = {bias, bias, bias, bias};
            for (int t = 0; t < axis->count[j]; t += 2, q += 2 * TILE, wp++)
                accumulate_rows(a, _mm_loadu_si128((const __m128i *)q), _mm_loadu_si128((const __m128i *)(q + TILE)),
                                _mm_set1_epi32(*wp));
            _mm_storeu_si128((__m128i *)(out + j * TILE + half), pack_sums(a[0], a[1], a[2], a[3], shift));
        }
    }
}

/* The same loops on 256-bit vectors where the CPU has AVX2 (checked when the module loads; compiled for it
 * whatever the build's flags). Lane by lane they are the 128-bit loops, so the bytes come out in order. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define AVX2 1
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

AVX2_INLINE __m256i pack_sums_avx2(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m128i shift) {
    __m256i lo = _mm256_packs_epi32(_mm256_sra_epi32(a0, shift), _mm256_sra_epi32(a1, shift));
    __m256i hi = _mm256_packs_epi32(_mm256_sra_epi32(a2, shift), _mm256_sra_epi32(a3, shift));
    return _mm256_packus_epi16(lo, hi);
}

AVX2_INLINE void accumulate_rows_avx2(__m256i *a, __m256i r0, __m256i r1, __m256i w) {  /* lane by lane */
    const __m256i zero = _mm256_setzero_si256();
    __m256i lo = _mm256_unpacklo_epi8(r0, r1), hi = _mm256_unpackhi_epi8(r0, r1);
    a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), w));
    a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), w));
    a[2] = _mm256_add_epi32(a[2], _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), w));
    a[3] = _mm256_add_epi32(a[3], _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), w));
}

AVX2_INLINE Py_ssize_t halving_blocks_avx2(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j, Py_ssize_t j1,
                                           Py_ssize_t offset, const __m128i *pairs128, const int pairs, int precision) {
    const __m256i zero = _mm256_setzero_si256(), bias = _mm256_set1_epi32(1 << (precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(precision);
    __m256i wp[MAX_PAIRS];
    for (int p = 0; p < pairs; p++) wp[p] = _mm256_broadcastsi128_si256(pairs128[p]);
    for (; j + 16 <= j1 && 2 * j + offset + 2 * pairs + 30 <= width; j += 16) {
        __m256i a0 = bias, a1 = bias;
        const uint8_t *q = s + 2 * j + offset;
        for (int p = 0; p < pairs; p++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(q + 2 * p));  /* lane 0: outputs 0-7, lane 1: 8-15 */
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(v, zero), wp[p]));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(v, zero), wp[p]));
        }
        __m256i packed = pack_sums_avx2(a0, a1, zero, zero, shift);  /* outputs in bytes 0-7 and 16-23 */
        _mm_storeu_si128((__m128i *)(d + j), _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08)));
    }
    return j;
}

__attribute__((target("avx2"))) static Py_ssize_t halving_avx2(const uint8_t *s, Py_ssize_t width, uint8_t *d,
                                                              Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t offset,
                                                              const __m128i *wp, int pairs, int precision) {
    switch (pairs) {
        case 2: return halving_blocks_avx2(s, width, d, j0, j1, offset, wp, 2, precision);
        case 4: return halving_blocks_avx2(s, width, d, j0, j1, offset, wp, 4, precision);
        default: return halving_blocks_avx2(s, width, d, j0, j1, offset, wp, pairs, precision);
    }
}

AVX2_INLINE Py_ssize_t vertical_blocks_avx2(const uint8_t *const *rows, Py_ssize_t width, const __m128i *pairs128,
                                            const int pairs, int precision, uint8_t *d) {
    const __m256i bias = _mm256_set1_epi32(1 << (precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(precision);
    __m256i wp[MAX_PAIRS];
    for (int p = 0; p < pairs; p++) wp[p] = _mm256_broadcastsi128_si256(pairs128[p]);
    Py_ssize_t x = 0;
    for (Py_ssize_t at; (at = block_start(x, 0, width, 32, 2 * width)) >= 0; x = at + 32) {
        __m256i a[4] = {bias, bias, bias, bias};
        for (int p = 0; p < pairs; p++)
            accumulate_rows_avx2(a, _mm256_loadu_si256((const __m256i *)(rows[2 * p] + at)),
                                 _mm256_loadu_si256((const __m256i *)(rows[2 * p + 1] + at)), wp[p]);
        _mm256_storeu_si256((__m256i *)(d + at), pack_sums_avx2(a[0], a[1], a[2], a[3], shift));
    }
    return x;
}

__attribute__((target("avx2"))) static Py_ssize_t vertical_avx2(const uint8_t *const *rows, Py_ssize_t width,
                                                               const __m128i *wp, int pairs, int precision,
                                                               uint8_t *d) {
    switch (pairs) {
        case 2: return vertical_blocks_avx2(rows, width, wp, 2, precision, d);
        case 4: return vertical_blocks_avx2(rows, width, wp, 4, precision, d);
        default: return vertical_blocks_avx2(rows, width, wp, pairs, precision, d);
    }
}

/* (a + 3 b + 3 c + d + 4) >> 3 in 16-bit lanes, from bytes paired as (a, b) in ab and (c, d) in cd: two
 * unsigned-by-signed byte multiply-adds (no sum exceeds 1020). */
AVX2_INLINE __m256i eighths_1331_avx2(__m256i ab, __m256i cd) {
    __m256i sum = _mm256_add_epi16(_mm256_maddubs_epi16(ab, _mm256_set1_epi16(0x0301)),
                                   _mm256_maddubs_epi16(cd, _mm256_set1_epi16(0x0103)));
    return _mm256_srli_epi16(_mm256_add_epi16(sum, _mm256_set1_epi16(4)), 3);
}

__attribute__((target("avx2"))) static Py_ssize_t vertical_1331_avx2(const uint8_t *const *rows, Py_ssize_t x,
                                                                    Py_ssize_t width, uint8_t *d) {
    for (Py_ssize_t at; (at = block_start(x, 0, width, 32, 2 * width)) >= 0; x = at + 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(rows[0] + at));
        __m256i b = _mm256_loadu_si256((const __m256i *)(rows[1] + at));
        __m256i c = _mm256_loadu_si256((const __m256i *)(rows[2] + at));
        __m256i e = _mm256_loadu_si256((const __m256i *)(rows[3] + at));
        __m256i lo = eighths_1331_avx2(_mm256_unpacklo_epi8(a, b), _mm256_unpacklo_epi8(c, e));
        __m256i hi = eighths_1331_avx2(_mm256_unpackhi_epi8(a, b), _mm256_unpackhi_epi8(c, e));
        _mm256_storeu_si256((__m256i *)(d + at), _mm256_packus_epi16(lo, hi));  /* lane by lane: in order */
    }
    return x;
}

AVX2_INLINE __m256i halving_1331_16_avx2(const uint8_t *q) {  /* lane 0: outputs 0-7, lane 1: 8-15 */
    /* the byte pairs of the loads at q and q + 2 are taps (0, 1) and (2, 3) of each output */
    return eighths_1331_avx2(_mm256_loadu_si256((const __m256i *)q), _mm256_loadu_si256((const __m256i *)(q + 2)));
}

__attribute__((target("avx2"))) static Py_ssize_t halving_1331_avx2(const uint8_t *s, Py_ssize_t width, uint8_t *d,
                                                                   Py_ssize_t j, Py_ssize_t j1, Py_ssize_t offset) {
    for (Py_ssize_t at, j0 = j; (at = block_start(j, j0, j1, 32, width - offset - 66)) >= 0; j = at + 32) {
        const uint8_t *q = s + 2 * at + offset;
        __m256i packed = _mm256_packus_epi16(halving_1331_16_avx2(q), halving_1331_16_avx2(q + 32));
        /* lanes hold outputs (0-7, 16-23) and (8-15, 24-31): put the quarters in order */
        _mm256_storeu_si256((__m256i *)(d + at), _mm256_permute4x64_epi64(packed, 0xD8));
    }
    return j;
}

/* The two 1, 3, 3, 1 loops again on 512-bit vectors (AVX-512BW, checked when the module loads): lane by lane the
 * 128-bit ones, 64 bytes a turn. */
#define AVX512_INLINE static inline __attribute__((always_inline, target("avx512bw")))

AVX512_INLINE __m512i eighths_1331_avx512(__m512i ab, __m512i cd) {
    __m512i sum = _mm512_add_epi16(_mm512_maddubs_epi16(ab, _mm512_set1_epi16(0x0301)),
                                   _mm512_maddubs_epi16(cd, _mm512_set1_epi16(0x0103)));
    return _mm512_srli_epi16(_mm512_add_epi16(sum, _mm512_set1_epi16(4)), 3);
}

__attribute__((target("avx512bw"))) static Py_ssize_t vertical_1331_avx512(const uint8_t *const *rows,
                                                                         Py_ssize_t width, uint8_t *d) {
    Py_ssize_t x = 0;
    for (Py_ssize_t at; (at = block_start(x, 0, width, 64, 2 * width)) >= 0; x = at + 64) {
        __m512i a = _mm512_loadu_si512(rows[0] + at), b = _mm512_loadu_si512(rows[1] + at);
        __m512i c = _mm512_loadu_si512(rows[2] + at), e = _mm512_loadu_si512(rows[3] + at);
        __m512i lo = eighths_1331_avx512(_mm512_unpacklo_epi8(a, b), _mm512_unpacklo_epi8(c, e));
        __m512i hi = eighths_1331_avx512(_mm512_unpackhi_epi8(a, b), _mm512_unpackhi_epi8(c, e));
        _mm512_storeu_si512(d + at, _mm512_packus_epi16(lo, hi));  /* lane by lane: in order */
    }
    return x;
}

__attribute__((target("avx512bw"))) static Py_ssize_t halving_1331_avx512(const uint8_t *s, Py_ssize_t width,
                                                                        uint8_t *d, Py_ssize_t j, Py_ssize_t j1,
                                                                        Py_ssize_t offset) {
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    for (Py_ssize_t at, j0 = j; (at = block_start(j, j0, j1, 64, width - offset - 130)) >= 0; j = at + 64) {
        const uint8_t *q = s + 2 * at + offset;  /* lane k of each half: outputs 8k..8k+7 of its 32 */
        __m512i first = eighths_1331_avx512(_mm512_loadu_si512(q), _mm512_loadu_si512(q + 2));
        __m512i second = eighths_1331_avx512(_mm512_loadu_si512(q + 64), _mm512_loadu_si512(q + 66));
        /* lane k: outputs 8k..8k+7 then 32+8k..; the eight quarters in order */
        _mm512_storeu_si512(d + at, _mm512_permutexvar_epi64(order, _mm512_packus_epi16(first, second)));
    }
    return j;
}

static int cpu_has_avx512(void) {  /* the F and BW subsets, all the 512-bit loops use */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

__attribute__((target("avx2"))) static void tile_columns_avx2(const uint8_t *tile, const Axis *axis,
                                                             const int32_t *pairs, const Py_ssize_t *first_pair,
                                                             uint8_t *out) {
    const __m256i bias = _mm256_set1_epi32(1 << (axis->precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(axis->precision);
    for (Py_ssize_t j = 0; j < axis->out; j++) {
        const uint8_t *q = tile + axis->start[j] * TILE;
        const int32_t *wp = pairs + first_pair[j];
        __m256i a[4] = {bias, bias, bias, bias};
        for (int t = 0; t < axis->count[j]; t += 2, q += 2 * TILE, wp++)
            accumulate_rows_avx2(a, _mm256_loadu_si256((const __m256i *)q),
                                 _mm256_loadu_si256((const __m256i *)(q + TILE)), _mm256_set1_epi32(*wp));
        _mm256_storeu_si256((__m256i *)(out + j * TILE), pack_sums_avx2(a[0], a[1], a[2], a[3], shift));
    }
}

AVX2_INLINE __m256i pair_means_avx2(const uint8_t *q) {  /* 32 outputs from q[0..63], quarters as in halving */
    const __m256i low = _mm256_set1_epi16(0xFF);
    __m256i v0 = _mm256_loadu_si256((const __m256i *)q), v1 = _mm256_loadu_si256((const __m256i *)(q + 32));
    return _mm256_packus_epi16(_mm256_avg_epu16(_mm256_and_si256(v0, low), _mm256_srli_epi16(v0, 8)),
                               _mm256_avg_epu16(_mm256_and_si256(v1, low), _mm256_srli_epi16(v1, 8)));
}

__attribute__((target("avx2"))) static Py_ssize_t mean2x2_avx2(const uint8_t *r0, const uint8_t *r1,
                                                              Py_ssize_t width, uint8_t *d) {
    Py_ssize_t x = 0;
    for (Py_ssize_t at; (at = block_start(x, 0, width, 32, 2 * width - 64)) >= 0; x = at + 32) {
        __m256i mean = _mm256_avg_epu8(pair_means_avx2(r0 + 2 * at), pair_means_avx2(r1 + 2 * at));
        _mm256_storeu_si256((__m256i *)(d + at), _mm256_permute4x64_epi64(mean, 0xD8));
    }
    return x;
}

/* Sums of 8 outputs, groups g and g + 1 of 4 outputs: each group's 16-byte window of the row (window[g]); for each
 * pair p of taps, its bytes picked into int16 pairs (picks: 16 shuffle bytes a group, pair-major: p * groups + g),
 * times their weights (8 int16 a group, the same order), summed. */
AVX2_INLINE __m256i window_sums_avx2(const uint8_t *s, const Py_ssize_t *window, const uint8_t *picks,
                                     const int16_t *weights, Py_ssize_t g, __m256i bias, const int pairs,
                                     Py_ssize_t groups) {
    __m128i lo = _mm_loadu_si128((const __m128i *)(s + window[g]));
    __m128i hi = _mm_loadu_si128((const __m128i *)(s + window[g + 1]));
    __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), sum = bias;
    for (int p = 0; p < pairs; p++) {
        Py_ssize_t at = p * groups + g;
        __m256i taps = _mm256_shuffle_epi8(bytes, _mm256_loadu_si256((const __m256i *)(picks + 16 * at)));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(taps, _mm256_loadu_si256((const __m256i *)(weights + 8 * at))));
    }
    return sum;
}

/* The outputs of one row by windows (see window_sums_avx2), 16 at a time: returns the first left over. Inlined with a
 * constant pair count, for the compiler to unroll. */
AVX2_INLINE Py_ssize_t windows_blocks_avx2(const uint8_t *s, uint8_t *d, Py_ssize_t out, const Py_ssize_t *window,
                                           const uint8_t *picks, const int16_t *weights, int precision,
                                           const int pairs) {
    const __m256i bias = _mm256_set1_epi32(1 << (precision - 1)), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m128i shift = _mm_cvtsi32_si128(precision);
    Py_ssize_t j = 0, groups = window_groups(out);
    for (; j + 16 <= out; j += 16) {
        __m256i a = window_sums_avx2(s, window, picks, weights, j / 4, bias, pairs, groups);
        __m256i b = window_sums_avx2(s, window, picks, weights, j / 4 + 2, bias, pairs, groups);
        __m256i packed = _mm256_packs_epi32(_mm256_sra_epi32(a, shift), _mm256_sra_epi32(b, shift));
        /* lanes: outputs 0-3 and 8-11 | 4-7 and 12-15 */
        __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(packed, packed), order);
        _mm_storeu_si128((__m128i *)(d + j), _mm256_castsi256_si128(bytes));
    }
    for (; j + 4 <= out; j += 4) {  /* the last blocks of 4 (the plan's extra group pairs with the last one) */
        __m256i a = _mm256_sra_epi32(window_sums_avx2(s, window, picks, weights, j / 4, bias, pairs, groups), shift);
        __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(a), _mm256_castsi256_si128(a));
        *(int32_t *)(d + j) = _mm_cvtsi128_si32(_mm_packus_epi16(packed, packed));
    }
    return j;
}

__attribute__((target("avx2"))) static Py_ssize_t row_windows_avx2(const uint8_t *s, uint8_t *d, Py_ssize_t out,
                                                                  const Py_ssize_t *window, const uint8_t *picks,
                                                                  const int16_t *weights, int precision, int pairs) {
    switch (pairs) {
        case 1: return windows_blocks_avx2(s, d, out, window, picks, weights, precision, 1);  /* two taps */
        case 2: return windows_blocks_avx2(s, d, out, window, picks, weights, precision, 2);
        case 3: return windows_blocks_avx2(s, d, out, window, picks, weights, precision, 3);
        default: return windows_blocks_avx2(s, d, out, window, picks, weights, precision, pairs);
    }
}

static int cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#else
#define AVX2 0

static Py_ssize_t halving_avx2(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j0, Py_ssize_t j1,
                               Py_ssize_t offset, const __m128i *wp, int pairs, int precision) {
    return j0;
}

static Py_ssize_t vertical_avx2(const uint8_t *const *rows, Py_ssize_t width, const __m128i *wp, int pairs,
                                int precision, uint8_t *d) {
    return 0;
}

static Py_ssize_t vertical_1331_avx2(const uint8_t *const *rows, Py_ssize_t x, Py_ssize_t width, uint8_t *d) {
    return x;
}

static void tile_columns_avx2(const uint8_t *tile, const Axis *axis, const int32_t *pairs,
                              const Py_ssize_t *first_pair, uint8_t *out) {}

static Py_ssize_t halving_1331_avx2(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j, Py_ssize_t j1,
                                    Py_ssize_t offset) {
    return j;
}

static Py_ssize_t mean2x2_avx2(const uint8_t *r0, const uint8_t *r1, Py_ssize_t width, uint8_t *d) { return 0; }

static Py_ssize_t vertical_1331_avx512(const uint8_t *const *rows, Py_ssize_t width, uint8_t *d) { return 0; }

static Py_ssize_t halving_1331_avx512(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j, Py_ssize_t j1,
                                      Py_ssize_t offset) {
    return j;
}

static int cpu_has_avx512(void) { return 0; }

static Py_ssize_t row_windows_avx2(const uint8_t *s, uint8_t *d, Py_ssize_t out, const Py_ssize_t *window,
                                   const uint8_t *picks, const int16_t *weights, int precision, int pairs) {
    return 0;
}

static int cpu_has_avx2(void) { return 0; }
#endif

static int use_avx2;  /* set when the module loads; switchable for tests (set_avx2) */
static int has_avx512;  /* set when the module loads */

/* Whether the 512-bit loops run (the halving's here; the blur's, the hue rotation's and colour matrix's in the other
 * files, told by their callers): with the AVX2 ones, where the CPU has AVX-512 and set_avx512 allows. */
static inline int wide_loops(void) { return use_avx2 && use_avx512 && has_avx512; }

/* The weights of a halving's interior, once per call: 1, 3, 3, 1 eighths, or pairs (none: too many taps). */
typedef struct {
    int eighths, pairs;
    __m128i wp[MAX_PAIRS];
} Halving;

static void halving_init(Halving *h, const int16_t *w, int count, int precision) {
    h->eighths = is_1331(w, count, precision);
    h->pairs = h->eighths ? 0 : weight_pairs(w, count, h->wp);
}

/* The outputs j0 <= j < j1 of one row whose taps start at 2 * j + offset with the same weights h (a whole-factor
 * halving); returns the first output left to the plain loop. */
static Py_ssize_t row_halving(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j0, Py_ssize_t j1,
                              Py_ssize_t offset, const Halving *h, int precision) {
    const __m128i *wp = h->wp;
    int pairs = h->pairs;
    if (h->eighths) {
        Py_ssize_t j = wide_loops() ? halving_1331_avx512(s, width, d, j0, j1, offset) : j0;
        j = use_avx2 ? halving_1331_avx2(s, width, d, j, j1, offset) : j;
        return halving_1331(s, width, d, j0, j, j1, offset);
    }
    if (pairs == 0) return j0;
    Py_ssize_t j = use_avx2 ? halving_avx2(s, width, d, j0, j1, offset, wp, pairs, precision) : j0;
    switch (pairs) {
        case 2: return halving_blocks(s, width, d, j0, j, j1, offset, wp, 2, precision);  /* bilinear */
        case 4: return halving_blocks(s, width, d, j0, j, j1, offset, wp, 4, precision);  /* bicubic */
        default: return halving_blocks(s, width, d, j0, j, j1, offset, wp, pairs, precision);
    }
}

/* Columns x, x + 16, ... of one output row of the vertical pass, sixteen at a time; rows[2p], rows[2p + 1] are the
 * input rows of weight pair p. Inlined with a constant pair count where it is a common one. */
INLINE Py_ssize_t vertical_blocks(const uint8_t *const *rows, Py_ssize_t x, Py_ssize_t width, const __m128i *wp,
                                  const int pairs, int precision, uint8_t *d) {
    const __m128i shift = _mm_cvtsi32_si128(precision);
    const __m128i bias = _mm_set1_epi32(1 << (precision - 1));
    for (Py_ssize_t at; (at = block_start(x, 0, width, 16, 2 * width)) >= 0; x = at + 16) {
        __m128i a[4] = {bias, bias, bias, bias};
        for (int p = 0; p < pairs; p++)
            accumulate_rows(a, _mm_loadu_si128((const __m128i *)(rows[2 * p] + at)),
                            _mm_loadu_si128((const __m128i *)(rows[2 * p + 1] + at)), wp[p]);
        _mm_storeu_si128((__m128i *)(d + at), pack_sums(a[0], a[1], a[2], a[3], shift));
    }
    return x;
}

static void vertical_row(const uint8_t *src, Py_ssize_t stride, Py_ssize_t width, const int16_t *w, int count,
                         int precision, uint8_t *d) {
    __m128i wp[MAX_PAIRS];
    const uint8_t *rows[2 * MAX_PAIRS];
    int pairs = weight_pairs(w, count, wp);
    for (int t = 0; t < 2 * pairs; t++) rows[t] = src + (t < count ? t : t - 1) * stride;  /* weight 0 past the end */
    if (is_1331(w, count, precision)) {
        Py_ssize_t x = wide_loops() ? vertical_1331_avx512(rows, width, d) : 0;
        x = use_avx2 ? vertical_1331_avx2(rows, x, width, d) : x;
        vertical_columns(src, stride, vertical_1331(rows, x, width, d), width, w, count, precision, d);
        return;
    }
    Py_ssize_t x = pairs && use_avx2 ? vertical_avx2(rows, width, wp, pairs, precision, d) : 0;
    switch (pairs) {
        case 0: break;
        case 2: x = vertical_blocks(rows, x, width, wp, 2, precision, d); break;
        case 4: x = vertical_blocks(rows, x, width, wp, 4, precision, d); break;
        default: x = vertical_blocks(rows, x, width, wp, pairs, precision, d); break;
    }
    vertical_columns(src, stride, x, width, w, count, precision, d);
}

/* One row of luma (see luma_columns): the vertical pass's loop over the rows R, G, G, B, G's weight split in two
 * (each half fits an int16), at 16 bits of precision. */
static void luma_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, const int32_t *weights, Py_ssize_t width,
                     uint8_t *d) {
    const uint8_t *rows[4] = {r, g, g, b};
    int32_t half = weights[1] / 2;
    __m128i wp[2] = {weight_pair((int16_t)weights[0], (int16_t)half),
                     weight_pair((int16_t)(weights[1] - half), (int16_t)weights[2])};
    Py_ssize_t x = use_avx2 ? vertical_avx2(rows, width, wp, 2, 16, d) : 0;
    x = vertical_blocks(rows, x, width, wp, 2, 16, d);
    luma_columns(r, g, b, weights, x, width, d);
}

static inline __m128i pair_means(const uint8_t *q) {  /* 16 outputs from q[0..31] */
    const __m128i low = _mm_set1_epi16(0xFF);
    __m128i v0 = _mm_loadu_si128((const __m128i *)q), v1 = _mm_loadu_si128((const __m128i *)(q + 16));
    return _mm_packus_epi16(_mm_avg_epu16(_mm_and_si128(v0, low), _mm_srli_epi16(v0, 8)),
                            _mm_avg_epu16(_mm_and_si128(v1, low), _mm_srli_epi16(v1, 8)));
}

/* One output row of a halving without antialias (see mean2x2_columns), from input rows r0 and r1. */
static void mean2x2_row(const uint8_t *r0, const uint8_t *r1, Py_ssize_t width, uint8_t *d) {
    Py_ssize_t x = use_avx2 ? mean2x2_avx2(r0, r1, width, d) : 0;
    for (Py_ssize_t at; (at = block_start(x, 0, width, 16, 2 * width - 32)) >= 0; x = at + 16)
        _mm_storeu_si128((__m128i *)(d + at), _mm_avg_epu8(pair_means(r0 + 2 * at), pair_means(r1 + 2 * at)));
    mean2x2_columns(r0, r1, x, width, d);
}
#else
#define SIMD 0
#define AVX2 0

static int use_avx2;
static int has_avx512;

static inline int wide_loops(void) { return 0; }

static int cpu_has_avx2(void) { return 0; }

static int cpu_has_avx512(void) { return 0; }

static Py_ssize_t row_windows_avx2(const uint8_t *s, uint8_t *d, Py_ssize_t out, const Py_ssize_t *window,
                                   const uint8_t *picks, const int16_t *weights, int precision, int pairs) {
    return 0;  /* never called: plan_init plans no windows without AVX2 */
}

#define TILE 32

static void tile_columns(const uint8_t *tile, const Axis *axis, const int32_t *pairs, const Py_ssize_t *first_pair,
                         uint8_t *out) {}  /* never called: plan_init plans no tiles without SIMD */

static void tile_columns_avx2(const uint8_t *tile, const Axis *axis, const int32_t *pairs,
                              const Py_ssize_t *first_pair, uint8_t *out) {}

static void luma_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, const int32_t *weights, Py_ssize_t width,
                     uint8_t *d) {
    luma_columns(r, g, b, weights, 0, width, d);
}

static void mean2x2_row(const uint8_t *r0, const uint8_t *r1, Py_ssize_t width, uint8_t *d) {
    mean2x2_columns(r0, r1, 0, width, d);
}

typedef struct {
    int unused;
} Halving;

static void halving_init(Halving *h, const int16_t *w, int count, int precision) {}

static Py_ssize_t row_halving(const uint8_t *s, Py_ssize_t width, uint8_t *d, Py_ssize_t j0, Py_ssize_t j1,
                              Py_ssize_t offset, const Halving *h, int precision) {
    return j0;
}

static void vertical_row(const uint8_t *src, Py_ssize_t stride, Py_ssize_t width, const int16_t *w, int count,
                         int precision, uint8_t *d) {
    vertical_columns(src, stride, 0, width, w, count, precision, d);
}
#endif

/* Rows of bytes: row r at base + r * stride, or at base + index[r] * stride where an index is given. */
typedef struct {
    uint8_t *base;
    Py_ssize_t stride;
    const Py_ssize_t *index;
} Rows;

static inline uint8_t *row_at(Rows rows, Py_ssize_t r) {
    return rows.base + (rows.index ? rows.index[r] : r) * rows.stride;
}

#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

#if SIMD
/* Columns c0.. of the 8 rows s[0..7], transposed into byte r.. of rows c0.. of dst: 8 x 8 tiles, then one by one. */
ALWAYS_INLINE void transpose8_cols(const uint8_t *const *s, Py_ssize_t c0, Py_ssize_t cols, Rows dst, Py_ssize_t r) {
    Py_ssize_t c = c0;
    for (; c + 8 <= cols; c += 8) {
        uint8_t *d[8];
        for (int k = 0; k < 8; k++) d[k] = row_at(dst, c + k) + r;
        __m128i a[8];
        for (int k = 0; k < 8; k++) a[k] = _mm_loadl_epi64((const __m128i *)(s[k] + c));
        __m128i t0 = _mm_unpacklo_epi8(a[0], a[1]), t1 = _mm_unpacklo_epi8(a[2], a[3]);
        __m128i t2 = _mm_unpacklo_epi8(a[4], a[5]), t3 = _mm_unpacklo_epi8(a[6], a[7]);
        __m128i u0 = _mm_unpacklo_epi16(t0, t1), u1 = _mm_unpackhi_epi16(t0, t1);  /* rows 0-3: columns 0-3, 4-7 */
        __m128i u2 = _mm_unpacklo_epi16(t2, t3), u3 = _mm_unpackhi_epi16(t2, t3);  /* rows 4-7 */
        __m128i v[4] = {_mm_unpacklo_epi32(u0, u2), _mm_unpackhi_epi32(u0, u2), _mm_unpacklo_epi32(u1, u3),
                        _mm_unpackhi_epi32(u1, u3)};  /* columns (0, 1), (2, 3), (4, 5), (6, 7) */
        for (int k = 0; k < 4; k++) {
            _mm_storel_epi64((__m128i *)d[2 * k], v[k]);
            _mm_storel_epi64((__m128i *)d[2 * k + 1], _mm_srli_si128(v[k], 8));
        }
    }
    for (; c < cols; c++) {
        uint8_t *d = row_at(dst, c) + r;
        for (int k = 0; k < 8; k++) d[k] = s[k][c];
    }
}

/* Columns c..c+15 of the 16 rows s[0..15] into bytes r..r+15 of rows c..c+15 of dst: four rounds of unpacking, each
 * doubling the run of one column's bytes (1, 2, 4, 8 rows), about half the operations a byte of 8 x 8 tiles. */
ALWAYS_INLINE void transpose16(const uint8_t *const *s, Py_ssize_t c, Rows dst, Py_ssize_t r) {
    __m128i a[16], b[16];
    for (int k = 0; k < 16; k++) a[k] = _mm_loadu_si128((const __m128i *)(s[k] + c));
    for (int p = 0; p < 8; p++) {  /* b[p]: rows 2p, 2p + 1 of columns 0-7; b[8 + p]: of columns 8-15 */
        b[p] = _mm_unpacklo_epi8(a[2 * p], a[2 * p + 1]);
        b[8 + p] = _mm_unpackhi_epi8(a[2 * p], a[2 * p + 1]);
    }
    for (int h = 0; h < 2; h++)  /* a[8h + 4q + (0, 1)]: rows 4q..4q+3 of columns 8h + (0-3, 4-7) */
        for (int q = 0; q < 4; q++) {
            a[8 * h + 2 * q] = _mm_unpacklo_epi16(b[8 * h + 2 * q], b[8 * h + 2 * q + 1]);
            a[8 * h + 2 * q + 1] = _mm_unpackhi_epi16(b[8 * h + 2 * q], b[8 * h + 2 * q + 1]);
        }
    /* b[8g + 2x + (0, 1)]: rows 8g..8g+7 of column pairs 4x + (0, 1) and 4x + (2, 3), x the group of four columns */
    for (int g = 0; g < 2; g++)
        for (int x = 0; x < 4; x++) {
            __m128i lo = a[8 * (x / 2) + 4 * g + (x % 2)], hi = a[8 * (x / 2) + 4 * g + 2 + (x % 2)];
            b[8 * g + 2 * x] = _mm_unpacklo_epi32(lo, hi);
            b[8 * g + 2 * x + 1] = _mm_unpackhi_epi32(lo, hi);
        }
    for (int pair = 0; pair < 8; pair++) {  /* columns 2 pair, 2 pair + 1: rows 0-7 in b[pair], 8-15 in b[8 + pair] */
        _mm_storeu_si128((__m128i *)(row_at(dst, c + 2 * pair) + r), _mm_unpacklo_epi64(b[pair], b[8 + pair]));
        _mm_storeu_si128((__m128i *)(row_at(dst, c + 2 * pair + 1) + r), _mm_unpackhi_epi64(b[pair], b[8 + pair]));
    }
}
#endif

/* dst row c, byte r = src row r, byte c for a rows x cols block (16 x 16 and 8 x 8 tiles through SSE2 where built
 * with it). Inlined where it is called, so that the compiler drops the index lookups of Rows without one. */
ALWAYS_INLINE void transpose(Rows src, Py_ssize_t rows, Py_ssize_t cols, Rows dst) {
    Py_ssize_t r = 0;
#if SIMD
    for (; r + 16 <= rows; r += 16) {
        const uint8_t *s[16];
        for (int k = 0; k < 16; k++) s[k] = row_at(src, r + k);
        Py_ssize_t c = 0;
        /* software prefetch PREFETCH_AHEAD bytes ahead along the 16 rows, running on into the next 16 rows' starts:
         * 16 interleaved streams are more than the hardware prefetchers follow from a freshly decoded image */
        const uint8_t *next[16];
        int more = r + 32 <= rows;
        for (int k = 0; k < 16; k++) next[k] = more ? row_at(src, r + 16 + k) : s[k];
        for (; c + 16 <= cols; c += 16) {
            if ((c & 63) == 0) {
                Py_ssize_t ahead = c + PREFETCH_AHEAD;
                for (int k = 0; k < 16; k++)
                    _mm_prefetch((const char *)(ahead < cols ? s[k] + ahead : next[k] + (ahead - cols)), _MM_HINT_T0);
            }
            transpose16(s, c, dst, r);
        }
        transpose8_cols(s, c, cols, dst, r);
        transpose8_cols(s + 8, c, cols, dst, r + 8);
    }
    for (; r + 8 <= rows; r += 8) {
        const uint8_t *s[8];
        for (int k = 0; k < 8; k++) s[k] = row_at(src, r + k);
        transpose8_cols(s, 0, cols, dst, r);
    }
#endif
    for (; r < rows; r++) {
        const uint8_t *s = row_at(src, r);
        for (Py_ssize_t c = 0; c < cols; c++) row_at(dst, c)[r] = s[c];
    }
}

/* The longest run of outputs [j0, j1) with the same taps two input pixels apart (a halving's interior). */
static void halving_run(const Axis *axis, Py_ssize_t *j0, Py_ssize_t *j1) {
    Py_ssize_t out = axis->out, best0 = 0, best1 = 0, i = 0;
    size_t row = sizeof(int16_t) * (size_t)axis->taps;
    while (i < out) {
        Py_ssize_t e = i + 1;
        while (e < out && axis->count[e] == axis->count[i] && axis->start[e] - axis->start[e - 1] == 2
               && memcmp(axis->weights + e * axis->taps, axis->weights + i * axis->taps, row) == 0)
            e++;
        if (e - i > best1 - best0) {
            best0 = i;
            best1 = e;
        }
        i = e;
    }
    *j0 = best0;
    *j1 = best1;
}

/* How the horizontal pass of a call runs: along the rows where most of it is a halving (j0..j1, vectorised); along
 * the rows by 16-byte windows where every output has at most 2 * WINDOW_PAIRS taps and four outputs' taps fit a
 * window (bilinear without a low-pass filter up to a scale of ~4.3, antialiased up to ~2.7, upscales; AVX2);
 * otherwise (with SSE2) TILE rows at a time, transposed into a tile of TILE-byte columns (see tile_columns). */
typedef struct {
    Py_ssize_t j0, j1;
    uint8_t *tile, *tile_out;  /* (in_w + 1) x TILE and out_w x TILE, or NULL along the rows */
    int32_t *pairs;            /* each output's weights in pairs, from first_pair[j] */
    Py_ssize_t *first_pair;
    Py_ssize_t *window;        /* by windows: each group of 4 outputs' 16-byte window, or NULL */
    int window_pairs;          /* pairs of taps an output (the most any output has) */
    uint8_t *picks;            /* a shuffle a pair and group (16 bytes: each output's pair as int16), pair-major */
    int16_t *window_weights;   /* and its weights (8: each output's pair, 0 for a missing tap) */
} Plan;

#define WINDOW_PAIRS 3

/* The window plan of an axis (see Plan): 1 planned, 0 where an output has more than 2 * WINDOW_PAIRS taps or four
 * outputs' taps do not fit 16 bytes, -1 out of memory. */
static int plan_windows(Plan *plan, const Axis *axis, Py_ssize_t in_w) {
    Py_ssize_t out = axis->out, groups = window_groups(out);
    int pairs = 1;
    if (!use_avx2 || in_w < 16) return 0;
    for (Py_ssize_t j = 0; j < out; j++) {
        Py_ssize_t first = axis->start[j - j % 4], window = first < in_w - 16 ? first : in_w - 16;
        if (axis->count[j] > 2 * WINDOW_PAIRS || axis->start[j] + axis->count[j] > window + 16) return 0;
        if ((axis->count[j] + 1) / 2 > pairs) pairs = (axis->count[j] + 1) / 2;
    }
    plan->window_pairs = pairs;
    plan->window = malloc(sizeof(Py_ssize_t) * (size_t)groups);
    plan->picks = malloc((size_t)(16 * pairs * groups));
    plan->window_weights = calloc((size_t)(8 * pairs * groups), sizeof(int16_t));
    if (!plan->window || !plan->picks || !plan->window_weights) return -1;
    memset(plan->picks, 0x80, (size_t)(16 * pairs * groups));  /* 0x80: a zero byte */
    for (Py_ssize_t g = 0; g < groups; g++) plan->window[g] = 0;  /* the extra group's, and those filled below */
    for (Py_ssize_t j = 0; j < out; j++) {
        Py_ssize_t g = j / 4, first = axis->start[4 * g];
        Py_ssize_t window = plan->window[g] = first < in_w - 16 ? first : in_w - 16;
        const int16_t *w = axis->weights + j * axis->taps;
        for (int t = 0; t < axis->count[j]; t++) {
            Py_ssize_t at = (t / 2) * groups + g;  /* pair t / 2 of group g */
            plan->picks[16 * at + 4 * (j % 4) + 2 * (t % 2)] = (uint8_t)(axis->start[j] + t - window);
            plan->window_weights[8 * at + 2 * (j % 4) + t % 2] = w[t];
        }
    }
    return 1;
}

static int plan_init(Plan *plan, const Axis *axis, Py_ssize_t in_w) {
    halving_run(axis, &plan->j0, &plan->j1);
    plan->tile = plan->tile_out = NULL;
    plan->pairs = NULL;
    plan->first_pair = NULL;
    plan->window = NULL;
    plan->picks = NULL;
    plan->window_weights = NULL;
    if (!SIMD || 2 * (plan->j1 - plan->j0) >= axis->out) return 0;
    int windows = plan_windows(plan, axis, in_w);
    if (windows != 0) return windows < 0 ? -1 : 0;
    Py_ssize_t total = 0;
    for (Py_ssize_t j = 0; j < axis->out; j++) total += (axis->count[j] + 1) / 2;
    plan->tile = calloc((size_t)(in_w + 1), TILE);  /* the extra column: an odd tap's partner, at weight 0 */
    plan->tile_out = malloc((size_t)(axis->out * TILE));
    plan->pairs = malloc(sizeof(int32_t) * (size_t)(total + 1));
    plan->first_pair = malloc(sizeof(Py_ssize_t) * (size_t)axis->out);
    if (!plan->tile || !plan->tile_out || !plan->pairs || !plan->first_pair) return -1;
    for (Py_ssize_t j = 0, k = 0; j < axis->out; j++) {
        const int16_t *w = axis->weights + j * axis->taps;
        plan->first_pair[j] = k;
        for (int t = 0; t < axis->count[j]; t += 2, k++) {
            uint16_t high = t + 1 < axis->count[j] ? (uint16_t)w[t + 1] : 0;
            plan->pairs[k] = (int32_t)(((uint32_t)high << 16) | (uint16_t)w[t]);
        }
    }
    return 0;
}

static void plan_free(Plan *plan) {
    free(plan->tile);
    free(plan->tile_out);
    free(plan->pairs);
    free(plan->first_pair);
    free(plan->window);
    free(plan->picks);
    free(plan->window_weights);
}

#if SIMD
/* Outputs j_from <= j < j_to (taps inside bytes [base, base + 16) of every row) of 16 rows at once: bytes base.. of
 * the rows transposed, each byte position then a vector of the 16 rows, summed as the vertical pass sums rows. */
static void edge_block(const uint8_t *const *s, uint8_t *const *d, const Axis *axis, Py_ssize_t j_from,
                       Py_ssize_t j_to, Py_ssize_t base) {
    uint8_t columns[16 * 16], sums[16];
    const uint8_t *window[16];
    for (int k = 0; k < 16; k++) window[k] = s[k] + base;
    transpose16(window, 0, (Rows){columns, 16, NULL}, 0);  /* columns row b: byte base + b of the 16 rows */
    __m128i v[17];
    for (int b = 0; b < 16; b++) v[b] = _mm_loadu_si128((const __m128i *)(columns + 16 * b));
    v[16] = _mm_setzero_si128();  /* an odd tap's partner, at weight 0 */
    const __m128i shift = _mm_cvtsi32_si128(axis->precision);
    const __m128i bias = _mm_set1_epi32(1 << (axis->precision - 1));
    for (Py_ssize_t j = j_from; j < j_to; j++) {
        const int16_t *w = axis->weights + j * axis->taps;
        int count = axis->count[j];
        Py_ssize_t first = axis->start[j] - base;
        __m128i a[4] = {bias, bias, bias, bias};
        for (int t = 0; t < count; t += 2) {
            int16_t high = t + 1 < count ? w[t + 1] : 0;
            accumulate_rows(a, v[first + t], t + 1 < count ? v[first + t + 1] : v[16], weight_pair(w[t], high));
        }
        _mm_storeu_si128((__m128i *)sums, pack_sums(a[0], a[1], a[2], a[3], shift));
        for (int k = 0; k < 16; k++) d[k][j] = sums[k];
    }
}

/* Outputs j_from <= j < j_to of the rows listed in rows[0..n), whose taps all lie in bytes [base, base + 16) of a
 * row at least 16 bytes wide: 16 rows at a time through edge_block, the rest one by one. */
static void edges(const uint8_t *src, Py_ssize_t src_stride, const Py_ssize_t *rows, Py_ssize_t n, uint8_t *dst,
                  Py_ssize_t dst_stride, const Axis *axis, Py_ssize_t j_from, Py_ssize_t j_to, Py_ssize_t base) {
    Py_ssize_t k = 0;
    if (j_from < j_to)
        for (; k + 16 <= n; k += 16) {
            const uint8_t *s[16];
            uint8_t *d[16];
            for (int m = 0; m < 16; m++) {
                s[m] = src + rows[k + m] * src_stride;
                d[m] = dst + rows[k + m] * dst_stride;
            }
            edge_block(s, d, axis, j_from, j_to, base);
        }
    for (; k < n; k++) row_plain(src + rows[k] * src_stride, dst + rows[k] * dst_stride, axis, j_from, j_to);
}

/* Whether the taps of outputs j_from <= j < j_to all lie in bytes [base, base + 16) of the row. */
static int taps_within(const Axis *axis, Py_ssize_t j_from, Py_ssize_t j_to, Py_ssize_t base) {
    for (Py_ssize_t j = j_from; j < j_to; j++)
        if (axis->start[j] < base || axis->start[j] + axis->count[j] > base + 16) return 0;
    return 1;
}
#endif

#define ROWS_AHEAD 4  /* rows the windowed pass asks for ahead of the one it works on (~60 ns of work a row) */

static inline void prefetch_row(const uint8_t *row, Py_ssize_t width) {
#if SIMD
    for (Py_ssize_t x = 0; x < width; x += 64) _mm_prefetch((const char *)(row + x), _MM_HINT_T0);
#endif
}

/* The horizontal pass of the input rows listed in rows[0..n): each into the same row of dst. */
static void horizontal(const uint8_t *src, Py_ssize_t src_stride, const Py_ssize_t *rows, Py_ssize_t n,
                       Py_ssize_t width, uint8_t *dst, Py_ssize_t dst_stride, const Axis *axis, const Plan *plan) {
    if (plan->window) {
        for (Py_ssize_t k = 0; k < n; k++) {
            const uint8_t *s = src + rows[k] * src_stride;
            uint8_t *d = dst + rows[k] * dst_stride;
            if (k + ROWS_AHEAD < n) prefetch_row(src + rows[k + ROWS_AHEAD] * src_stride, width);
            Py_ssize_t j = row_windows_avx2(s, d, axis->out, plan->window, plan->picks, plan->window_weights,
                                            axis->precision, plan->window_pairs);
            row_plain(s, d, axis, j, axis->out);
        }
        return;
    }
    if (plan->tile) {
        Rows tile = {plan->tile, TILE, NULL}, tile_out = {plan->tile_out, TILE, NULL};
        for (Py_ssize_t k = 0; k < n; k += TILE) {  /* a short last block leaves stale lanes, never stored */
            Py_ssize_t m = n - k < TILE ? n - k : TILE;
            /* consecutive rows (all of them, but for reductions without antialias): strided, no index to read;
             * each transpose is called with a constant index for the compiler to drop the lookups */
            int consecutive = rows[k + m - 1] - rows[k] == m - 1;
            Rows in = {(uint8_t *)src + rows[k] * src_stride, src_stride, NULL};
            Rows out = {dst + rows[k] * dst_stride, dst_stride, NULL};
            Rows in_index = {(uint8_t *)src, src_stride, rows + k}, out_index = {dst, dst_stride, rows + k};
            if (consecutive) transpose(in, m, width, tile);
            else transpose(in_index, m, width, tile);
            (use_avx2 ? tile_columns_avx2 : tile_columns)(plan->tile, axis, plan->pairs, plan->first_pair,
                                                          plan->tile_out);
            if (consecutive) transpose(tile_out, axis->out, m, out);
            else transpose(tile_out, axis->out, m, out_index);
        }
        return;
    }
    Py_ssize_t j0 = plan->j0, j1 = plan->j1;
    const int16_t *w = axis->weights + j0 * axis->taps;
    Py_ssize_t offset = axis->start[j0] - 2 * j0;
    Halving halving;
    halving_init(&halving, w, j1 > j0 ? axis->count[j0] : 0, axis->precision);
    Py_ssize_t rest = axis->out;  /* the first output row_halving leaves: the same for every row */
    for (Py_ssize_t k = 0; k < n; k++)
        rest = row_halving(src + rows[k] * src_stride, width, dst + rows[k] * dst_stride, j0, j1, offset, &halving,
                           axis->precision);
    /* the edge outputs (their taps cut by the border): 16 rows at a time where their taps fit 16 bytes */
#if SIMD
    if (width >= 16 && taps_within(axis, 0, j0, 0) && taps_within(axis, rest, axis->out, width - 16)) {
        edges(src, src_stride, rows, n, dst, dst_stride, axis, 0, j0, 0);
        edges(src, src_stride, rows, n, dst, dst_stride, axis, rest, axis->out, width - 16);
        return;
    }
#endif
    for (Py_ssize_t k = 0; k < n; k++) {
        const uint8_t *s = src + rows[k] * src_stride;
        uint8_t *d = dst + rows[k] * dst_stride;
        row_plain(s, d, axis, 0, j0);
        row_plain(s, d, axis, rest, axis->out);
    }
}

/* The input rows a vertical pass reads (every row without one), in order, into rows; returns how many. Without
 * antialias a reduction reads two rows an output row: the horizontal pass skips the others. */
static Py_ssize_t rows_read(const Axis *vert, Py_ssize_t in_h, Py_ssize_t *rows) {
    Py_ssize_t n = 0, next = 0;
    if (!vert) {
        for (; n < in_h; n++) rows[n] = n;
        return n;
    }
    for (Py_ssize_t i = 0; i < vert->out; i++) {
        Py_ssize_t end = vert->start[i] + vert->count[i];
        for (Py_ssize_t r = vert->start[i] > next ? vert->start[i] : next; r < end; r++) rows[n++] = r;
        if (end > next) next = end;
    }
    return n;
}

static void vertical(const uint8_t *src, Py_ssize_t src_stride, Py_ssize_t width, uint8_t *dst,
                     Py_ssize_t dst_stride, const Axis *axis) {
    for (Py_ssize_t i = 0; i < axis->out; i++) {
        const int16_t *w = axis->weights + i * axis->taps;
        const uint8_t *first = src + axis->start[i] * src_stride;
        uint8_t *d = dst + i * dst_stride;
#if SIMD
        /* a halving's inner rows straight to the 512- / 256-bit loops: a quarter of that pass went on vertical_row's
         * set-up */
        if (use_avx2 && width >= 32 && is_1331(w, axis->count[i], axis->precision)) {
            const uint8_t *rows[4] = {first, first + src_stride, first + 2 * src_stride, first + 3 * src_stride};
            Py_ssize_t x = wide_loops() ? vertical_1331_avx512(rows, width, d) : 0;
            x = vertical_1331_avx2(rows, x, width, d);
            vertical_columns(first, src_stride, x, width, w, 4, axis->precision, d);
            continue;
        }
#endif
        vertical_row(first, src_stride, width, w, axis->count[i], axis->precision, d);
    }
}

/* The axes of recent calls, kept for the next ones (a pipeline resizes the same sizes again and again: their
 * weights cost as much as a small image's passes). Taken and given back with the GIL held; an axis in use by a
 * call that released the GIL (users > 0) is never replaced. */
#define CACHED_AXES 8
typedef struct {
    Py_ssize_t in, out;
    int bicubic, antialias, users;
    unsigned long last_use;
    Axis axis;  /* weights NULL: an empty slot */
} CachedAxis;
static CachedAxis cached_axes[CACHED_AXES];
static unsigned long axis_clock;

/* The axis of a resize from in to out: a cached one, else one made in a free slot, else one made in *own (every
 * slot in use); NULL when memory ran out. Give it back with axis_give_back. */
static const Axis *axis_take(Py_ssize_t in, Py_ssize_t out, int bicubic, int antialias, Axis *own) {
    CachedAxis *slot = NULL;
    for (int k = 0; k < CACHED_AXES; k++) {
        CachedAxis *e = &cached_axes[k];
        if (e->axis.weights && e->in == in && e->out == out && e->bicubic == bicubic && e->antialias == antialias) {
            e->users++;
            e->last_use = ++axis_clock;
            return &e->axis;
        }
        if (e->users == 0 && (!slot || (slot->axis.weights && (!e->axis.weights || e->last_use < slot->last_use))))
            slot = e;  /* an empty slot, else the least recently used one */
    }
    if (!slot) return axis_init(own, in, out, bicubic, antialias) < 0 ? NULL : own;
    axis_free(&slot->axis);
    if (axis_init(&slot->axis, in, out, bicubic, antialias) < 0) {
        axis_free(&slot->axis);
        return NULL;
    }
    slot->in = in;
    slot->out = out;
    slot->bicubic = bicubic;
    slot->antialias = antialias;
    slot->users = 1;
    slot->last_use = ++axis_clock;
    return &slot->axis;
}

static void axis_give_back(const Axis *axis, Axis *own) {
    if (!axis) return;
    if (axis == own) {
        axis_free(own);
        return;
    }
    for (int k = 0; k < CACHED_AXES; k++)
        if (&cached_axes[k].axis == axis) cached_axes[k].users--;
}

/* src (read as it is: any strides) as a uint8 buffer and dst (C-contiguous, writable) as one of dst_format ("B":
 * uint8, "f": float32); -1 with an exception set. */
static int acquire_as(PyObject *src_obj, PyObject *dst_obj, Py_buffer *src, Py_buffer *dst, const char *dst_format,
                      const char *name) {
    if (PyObject_GetBuffer(src_obj, src, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return -1;
    if (PyObject_GetBuffer(dst_obj, dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(src);
        return -1;
    }
    if (!src->format || !dst->format || strcmp(src->format, "B") != 0 || strcmp(dst->format, dst_format) != 0) {
        if (strcmp(dst_format, "B") == 0)
            PyErr_Format(PyExc_ValueError, "%s: src and dst must be uint8 buffers", name);
        else
            PyErr_Format(PyExc_ValueError, "%s: src must be a uint8 buffer, dst a float32 one", name);
        PyBuffer_Release(src);
        PyBuffer_Release(dst);
        return -1;
    }
    return 0;
}

/* acquire_as with a uint8 dst. */
static int acquire(PyObject *src_obj, PyObject *dst_obj, Py_buffer *src, Py_buffer *dst, const char *name) {
    return acquire_as(src_obj, dst_obj, src, dst, "B", name);
}

/* Releases both buffers; None where the call worked, else NULL (its exception set). */
static PyObject *release(Py_buffer *src, Py_buffer *dst, int ok) {
    PyBuffer_Release(src);
    PyBuffer_Release(dst);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* A C-contiguous buffer of format ("B" uint8, "f" float32) and ndim dimensions (writable if asked); -1 with a
 * ValueError naming what is wrong. */
static int contiguous_buffer(PyObject *obj, Py_buffer *view, const char *format, int ndim, int writable,
                             const char *name, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (!view->format || strcmp(view->format, format) != 0 || view->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a C-contiguous %d-D %s buffer", name, what, ndim,
                     strcmp(format, "B") == 0 ? "uint8" : "float32");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The doubles of a sequence of n numbers into values; -1 with an exception set. */
static int doubles_of(PyObject *seq, double *values, Py_ssize_t n, const char *name, const char *what) {
    if (!PySequence_Check(seq) || PySequence_Size(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s must hold %zd numbers", name, what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        values[i] = item ? PyFloat_AsDouble(item) : -1.0;
        Py_XDECREF(item);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *resize(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj;
    int bicubic, antialias;
    if (!PyArg_ParseTuple(args, "OOpp", &src_obj, &dst_obj, &bicubic, &antialias)) return NULL;
    if (bicubic && !antialias) {  /* torch samples bicubic without antialias another way (its own border rule) */
        PyErr_SetString(PyExc_ValueError, "resize: bicubic needs antialias");
        return NULL;
    }
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, "resize") < 0) return NULL;
    if (src.ndim != 3 || dst.ndim != 3 || (src.shape[2] > 1 && src.strides[2] != 1)
        || src.shape[0] != dst.shape[0] || src.shape[1] < 1 || src.shape[2] < 1 || dst.shape[1] < 1
        || dst.shape[2] < 1) {
        PyErr_SetString(PyExc_ValueError, "resize: src and dst must be 3-D uint8 buffers of as many planes, "
                                          "src with contiguous rows, dst C-contiguous, no side empty");
        return release(&src, &dst, 0);
    }
    Py_ssize_t planes = src.shape[0], in_h = src.shape[1], in_w = src.shape[2];
    Py_ssize_t out_h = dst.shape[1], out_w = dst.shape[2];
    int across = out_w != in_w, down = out_h != in_h;
    if (!antialias && !bicubic && in_w == 2 * out_w && in_h == 2 * out_h) {  /* every output a 2 x 2 mean */
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t p = 0; p < planes; p++) {
            const uint8_t *s = (const uint8_t *)src.buf + p * src.strides[0];
            uint8_t *d = (uint8_t *)dst.buf + p * out_h * out_w;
            for (Py_ssize_t i = 0; i < out_h; i++)
                mean2x2_row(s + 2 * i * src.strides[1], s + (2 * i + 1) * src.strides[1], out_w, d + i * out_w);
        }
        Py_END_ALLOW_THREADS
        return release(&src, &dst, 1);
    }
    Axis own_horiz = {0}, own_vert = {0};
    const Axis *horiz = across ? axis_take(in_w, out_w, bicubic, antialias, &own_horiz) : NULL;
    const Axis *vert = down ? axis_take(in_h, out_h, bicubic, antialias, &own_vert) : NULL;
    Plan plan = {0};
    uint8_t *buffer = across && down ? malloc((size_t)(in_h * out_w)) : NULL;
    Py_ssize_t *rows = across ? malloc(sizeof(Py_ssize_t) * (size_t)in_h) : NULL;
    if ((across && !horiz) || (down && !vert) || (across && down && !buffer) || (across && !rows)
        || (across && plan_init(&plan, horiz, in_w) < 0)) {
        free(rows);
        free(buffer);
        plan_free(&plan);
        axis_give_back(horiz, &own_horiz);
        axis_give_back(vert, &own_vert);
        PyErr_NoMemory();
        return release(&src, &dst, 0);
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t n = across ? rows_read(vert, in_h, rows) : 0;
    for (Py_ssize_t p = 0; p < planes; p++) {
        const uint8_t *s = (const uint8_t *)src.buf + p * src.strides[0];
        uint8_t *d = (uint8_t *)dst.buf + p * out_h * out_w;
        if (across && down) {
            horizontal(s, src.strides[1], rows, n, in_w, buffer, out_w, horiz, &plan);
            vertical(buffer, out_w, out_w, d, out_w, vert);
        } else if (across) {
            horizontal(s, src.strides[1], rows, n, in_w, d, out_w, horiz, &plan);
        } else if (down) {
            vertical(s, src.strides[1], in_w, d, out_w, vert);
        } else {
            for (Py_ssize_t r = 0; r < in_h; r++) memcpy(d + r * out_w, s + r * src.strides[1], (size_t)in_w);
        }
    }
    Py_END_ALLOW_THREADS
    free(rows);
    free(buffer);
    plan_free(&plan);
    axis_give_back(horiz, &own_horiz);
    axis_give_back(vert, &own_vert);
    return release(&src, &dst, 1);
}

static PyObject *luma(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj;
    int32_t w[3];
    if (!PyArg_ParseTuple(args, "OO(iii)", &src_obj, &dst_obj, &w[0], &w[1], &w[2])) return NULL;
    if (w[0] < 0 || w[1] < 0 || w[2] < 0 || w[0] > 32767 || w[1] > 65534 || w[2] > 32767
        || w[0] + w[1] + w[2] > 65536) {
        PyErr_SetString(PyExc_ValueError,
                        "luma: weights must be 0..32767, 0..65534, 0..32767 summing to at most 65536");
        return NULL;
    }
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, "luma") < 0) return NULL;
    if (src.ndim != 4 || dst.ndim != 4 || (src.shape[3] > 1 && src.strides[3] != 1) || src.shape[1] != 3
        || dst.shape[1] < 1 || src.shape[0] != dst.shape[0] || src.shape[2] != dst.shape[2]
        || src.shape[3] != dst.shape[3]) {
        PyErr_SetString(PyExc_ValueError, "luma: src must be a 4-D uint8 buffer (images, 3, rows, columns) with "
                                          "contiguous rows, dst a C-contiguous one of as many images, rows, columns");
        return release(&src, &dst, 0);
    }
    Py_ssize_t images = src.shape[0], planes = dst.shape[1], rows = src.shape[2], width = src.shape[3];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t n = 0; n < images; n++) {
        const uint8_t *image = (const uint8_t *)src.buf + n * src.strides[0];
        uint8_t *out = (uint8_t *)dst.buf + n * planes * rows * width;
        for (Py_ssize_t y = 0; y < rows; y++) {
            const uint8_t *r = image + y * src.strides[2];
            uint8_t *d = out + y * width;
            luma_row(r, r + src.strides[1], r + 2 * src.strides[1], w, width, d);
            for (Py_ssize_t c = 1; c < planes; c++) memcpy(d + c * rows * width, d, (size_t)width);
        }
    }
    Py_END_ALLOW_THREADS
    return release(&src, &dst, 1);
}

/* Per-pixel colour ops on rows of RGB, in _native_color.c */
#define COLOR_HUE 0
#define COLOR_MATRIX 1
void color_pixels_row(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int op, const float *params, int avx2);
void color_planes_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, uint8_t *const *o, ptrdiff_t width, int op,
                      const float *params, int avx2);

/* op on the RGB images (images, 3, rows, columns) of src into dst. */
static PyObject *color_planes(PyObject *src_obj, PyObject *dst_obj, int op, const float *params, const char *name) {
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, name) < 0) return NULL;
    if (src.ndim != 4 || dst.ndim != 4 || src.shape[1] != 3 || (src.shape[3] > 1 && src.strides[3] != 1)
        || memcmp(src.shape, dst.shape, 4 * sizeof(Py_ssize_t)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: src must be a 4-D uint8 buffer (images, 3, rows, columns) with "
                                       "contiguous rows, dst a C-contiguous one of its shape", name);
        return release(&src, &dst, 0);
    }
    Py_ssize_t images = src.shape[0], rows = src.shape[2], width = src.shape[3];
    int avx2 = use_avx2 ? 1 + wide_loops() : 0;  /* 2: the 16-lane loops too */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t n = 0; n < images; n++)
        for (Py_ssize_t y = 0; y < rows; y++) {
            const uint8_t *r = (const uint8_t *)src.buf + n * src.strides[0] + y * src.strides[2];
            uint8_t *d = (uint8_t *)dst.buf + (n * 3 * rows + y) * width;
            uint8_t *o[3] = {d, d + rows * width, d + 2 * rows * width};
            color_planes_row(r, r + src.strides[1], r + 2 * src.strides[1], o, width, op, params, avx2);
        }
    Py_END_ALLOW_THREADS
    return release(&src, &dst, 1);
}

/* op on the interleaved RGB pixels (rows, columns, 3) of src into dst (src itself: in place). */
static PyObject *color_pixels(PyObject *src_obj, PyObject *dst_obj, int op, const float *params, const char *name) {
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, name) < 0) return NULL;
    if (src.ndim != 3 || src.shape[2] != 3 || src.strides[2] != 1 || (src.shape[1] > 1 && src.strides[1] != 3)
        || memcmp(src.shape, dst.shape, 3 * sizeof(Py_ssize_t)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: src must be a 3-D uint8 buffer (rows, columns, 3) with contiguous rows, "
                                       "dst a C-contiguous one of its shape (or src: in place)", name);
        return release(&src, &dst, 0);
    }
    Py_ssize_t rows = src.shape[0], width = src.shape[1];
    int avx2 = use_avx2;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t y = 0; y < rows; y++)
        color_pixels_row((const uint8_t *)src.buf + y * src.strides[0], (uint8_t *)dst.buf + y * width * 3, width, op,
                         params, avx2);
    Py_END_ALLOW_THREADS
    return release(&src, &dst, 1);
}

/* (src, dst, factor) with factor in [-1, 1]; -1 with an exception set. */
static int parse_hue(PyObject *args, PyObject **src_obj, PyObject **dst_obj, float *factor, const char *name) {
    double value;
    char format[48];
    snprintf(format, sizeof format, "OOd:%s", name);  /* PyArg's own errors name the function */
    if (!PyArg_ParseTuple(args, format, src_obj, dst_obj, &value)) return -1;
    if (!(value >= -1.0 && value <= 1.0)) {
        PyErr_Format(PyExc_ValueError, "%s: factor must be in [-1, 1]", name);
        return -1;
    }
    *factor = (float)value;
    return 0;
}

/* (src, dst, (9 floats)) with every entry in [-256, 256]; -1 with an exception set. */
static int parse_matrix(PyObject *args, PyObject **src_obj, PyObject **dst_obj, float *m, const char *name) {
    char format[48];
    snprintf(format, sizeof format, "OO(fffffffff):%s", name);
    if (!PyArg_ParseTuple(args, format, src_obj, dst_obj, &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &m[6], &m[7],
                          &m[8]))
        return -1;
    for (int k = 0; k < 9; k++)
        if (!(m[k] >= -256.0f && m[k] <= 256.0f)) {
            PyErr_Format(PyExc_ValueError, "%s: matrix entries must be in [-256, 256]", name);
            return -1;
        }
    return 0;
}

static PyObject *hue(PyObject *self, PyObject *args) {
    PyObject *src, *dst;
    float factor;
    if (parse_hue(args, &src, &dst, &factor, "hue") < 0) return NULL;
    return color_planes(src, dst, COLOR_HUE, &factor, "hue");
}

static PyObject *hue_pixels(PyObject *self, PyObject *args) {
    PyObject *src, *dst;
    float factor;
    if (parse_hue(args, &src, &dst, &factor, "hue_pixels") < 0) return NULL;
    return color_pixels(src, dst, COLOR_HUE, &factor, "hue_pixels");
}

static PyObject *color_matrix(PyObject *self, PyObject *args) {
    PyObject *src, *dst;
    float m[9];
    if (parse_matrix(args, &src, &dst, m, "color_matrix") < 0) return NULL;
    return color_planes(src, dst, COLOR_MATRIX, m, "color_matrix");
}

static PyObject *color_matrix_pixels(PyObject *self, PyObject *args) {
    PyObject *src, *dst;
    float m[9];
    if (parse_matrix(args, &src, &dst, m, "color_matrix_pixels") < 0) return NULL;
    return color_pixels(src, dst, COLOR_MATRIX, m, "color_matrix_pixels");
}

/* ------------------------------------------------------------------ uint8 -> float32, scaled and normalised */
/* d[i] = ((float)s[i] * scale - mean) / std in float32, one rounding each step (torch's to_dtype(float32,
 * scale=True) then normalize); the vector loops do the same operations on 4 or 8 values. */
static void normalize_row_tail(const uint8_t *s, float *d, Py_ssize_t i, Py_ssize_t n, float scale, float mean,
                               float std) {
    for (; i < n; i++) {
        float x = (float)s[i] * scale;
        x = x - mean;
        d[i] = x / std;
    }
}

#if AVX2
__attribute__((target("avx2"))) static Py_ssize_t normalize_row_avx2(const uint8_t *s, float *d, Py_ssize_t n,
                                                                     float scale, float mean, float std) {
    const __m256 k = _mm256_set1_ps(scale), m = _mm256_set1_ps(mean), sd = _mm256_set1_ps(std);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(s + i))));
        _mm256_storeu_ps(d + i, _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(x, k), m), sd));
    }
    return i;
}
#endif

static void normalize_row(const uint8_t *s, float *d, Py_ssize_t n, float scale, float mean, float std, int avx2) {
    Py_ssize_t i = 0;
#if AVX2
    if (avx2) i = normalize_row_avx2(s, d, n, scale, mean, std);
#endif
#if SIMD
    const __m128 k = _mm_set1_ps(scale), m = _mm_set1_ps(mean), sd = _mm_set1_ps(std);
    const __m128i zero = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) {
        int32_t word;
        memcpy(&word, s + i, 4);
        __m128i v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(word), zero), zero);
        _mm_storeu_ps(d + i, _mm_div_ps(_mm_sub_ps(_mm_mul_ps(_mm_cvtepi32_ps(v), k), m), sd));
    }
#endif
    normalize_row_tail(s, d, i, n, scale, mean, std);
}

static PyObject *normalize(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj, *mean_obj, *std_obj;
    float scale;
    if (!PyArg_ParseTuple(args, "OOfOO:normalize", &src_obj, &dst_obj, &scale, &mean_obj, &std_obj)) return NULL;
    Py_buffer src, dst;
    if (acquire_as(src_obj, dst_obj, &src, &dst, "f", "normalize") < 0) return NULL;
    double means[256], stds[256];
    float mean[256], std[256];
    Py_ssize_t channels = src.ndim == 4 ? src.shape[1] : 0;
    int ok = src.ndim == 4 && dst.ndim == 4 && memcmp(src.shape, dst.shape, 4 * sizeof(Py_ssize_t)) == 0
             && (src.shape[3] <= 1 || src.strides[3] == 1) && channels >= 1 && channels <= 256
             && PySequence_Check(mean_obj) && PySequence_Check(std_obj) && PySequence_Size(mean_obj) == channels
             && PySequence_Size(std_obj) == channels;
    if (ok && (doubles_of(mean_obj, means, channels, "normalize", "mean") < 0
               || doubles_of(std_obj, stds, channels, "normalize", "std") < 0))
        return release(&src, &dst, 0);
    for (Py_ssize_t c = 0; ok && c < channels; c++) {
        mean[c] = (float)means[c];
        std[c] = (float)stds[c];
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "normalize: src must be a 4-D uint8 buffer (images, channels, rows, "
                                          "columns) with contiguous rows, dst a C-contiguous float32 one of its "
                                          "shape, mean and std one number per channel");
        return release(&src, &dst, 0);
    }
    Py_ssize_t images = src.shape[0], rows = src.shape[2], width = src.shape[3];
    int avx2 = use_avx2;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t n = 0; n < images; n++)
        for (Py_ssize_t c = 0; c < channels; c++)
            for (Py_ssize_t y = 0; y < rows; y++)
                normalize_row((const uint8_t *)src.buf + n * src.strides[0] + c * src.strides[1] + y * src.strides[2],
                              (float *)dst.buf + ((n * channels + c) * rows + y) * width, width, scale, mean[c], std[c],
                              avx2);
    Py_END_ALLOW_THREADS
    return release(&src, &dst, 1);
}

void border_blend(uint8_t *out, ptrdiff_t planes, ptrdiff_t out_h, ptrdiff_t out_w, const uint8_t *alpha,
                  const float *fills, const uint8_t *src, ptrdiff_t in_h, ptrdiff_t in_w, const double *matrix,
                  int projective, const float *map_x, const float *map_y);  /* _native_warp.c */

int masks_pack(const uint8_t *src, ptrdiff_t planes, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t plane_stride,
               ptrdiff_t row_stride, uint8_t *dst);
void masks_unpack(const uint8_t *src, ptrdiff_t planes, ptrdiff_t rows, ptrdiff_t columns, uint8_t *dst);
/* (_native_masks.c) */

static PyObject *pack_masks(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj;
    if (!PyArg_ParseTuple(args, "OO:pack_masks", &src_obj, &dst_obj)) return NULL;
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, "pack_masks") < 0) return NULL;
    int ok = src.ndim == 3 && dst.ndim == 3 && (src.shape[2] <= 1 || src.strides[2] == 1)
             && dst.shape[0] == (src.shape[0] + 7) / 8 && dst.shape[1] == src.shape[1] && dst.shape[2] == src.shape[2];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "pack_masks: src must be a 3-D uint8 buffer with contiguous rows, dst a "
                                          "C-contiguous one of ceil(planes / 8) planes of its rows and columns");
        return release(&src, &dst, 0);
    }
    int binary;
    Py_BEGIN_ALLOW_THREADS
    binary = masks_pack((const uint8_t *)src.buf, src.shape[0], src.shape[1], src.shape[2], src.strides[0],
                        src.strides[1], (uint8_t *)dst.buf);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return PyBool_FromLong(binary);
}

static PyObject *unpack_masks(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj;
    if (!PyArg_ParseTuple(args, "OO:unpack_masks", &src_obj, &dst_obj)) return NULL;
    Py_buffer src, dst;
    if (acquire(src_obj, dst_obj, &src, &dst, "unpack_masks") < 0) return NULL;
    int ok = src.ndim == 3 && dst.ndim == 3 && PyBuffer_IsContiguous(&src, 'C')
             && src.shape[0] == (dst.shape[0] + 7) / 8 && dst.shape[1] == src.shape[1] && dst.shape[2] == src.shape[2];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "unpack_masks: src must be a C-contiguous 3-D uint8 buffer of "
                                          "ceil(planes / 8) planes of dst's rows and columns, dst a C-contiguous one");
        return release(&src, &dst, 0);
    }
    Py_BEGIN_ALLOW_THREADS
    masks_unpack((const uint8_t *)src.buf, dst.shape[0], dst.shape[1], dst.shape[2], (uint8_t *)dst.buf);
    Py_END_ALLOW_THREADS
    return release(&src, &dst, 1);
}

int mt_uniform(uint32_t *state, int position, float *out, ptrdiff_t n, int centred, int avx2);

/* mt_uniform(state, position, out, centred): out (a C-contiguous float32 buffer) filled with torch.rand's floats
 * (centred: 2 x - 1) from the Mersenne Twister state (a C-contiguous buffer of 624 uint32 words, advanced in place)
 * at position (0..624); returns the new position. */
static PyObject *mt_uniform_py(PyObject *self, PyObject *args) {
    PyObject *state_obj, *out_obj;
    int position, centred;
    if (!PyArg_ParseTuple(args, "OiOp:mt_uniform", &state_obj, &position, &out_obj, &centred)) return NULL;
    Py_buffer state, out;
    if (PyObject_GetBuffer(state_obj, &state, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (state.len != 624 * 4 || state.itemsize != 4 || position < 0 || position > 624) {
        PyErr_SetString(PyExc_ValueError, "mt_uniform: state must be 624 writable uint32 words, position 0..624");
        PyBuffer_Release(&state);
        return NULL;
    }
    if (contiguous_buffer(out_obj, &out, "f", 1, 1, "mt_uniform", "out") < 0) {
        PyBuffer_Release(&state);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    position = mt_uniform((uint32_t *)state.buf, position, (float *)out.buf, out.shape[0], centred, use_avx2);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    return PyLong_FromLong(position);
}

/* pad(src, dst, (left, top, right, bottom), fills): src's planes (planes, rows, columns; contiguous rows) into the
 * middle of dst (C-contiguous, planes x (rows + top + bottom) x (columns + left + right)), the border of each plane
 * set to fills[plane]: every byte of dst written once. */
static PyObject *pad(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj;
    Py_ssize_t left, top, right, bottom;
    Py_buffer src, dst, fills;
    if (!PyArg_ParseTuple(args, "OO(nnnn)y*:pad", &src_obj, &dst_obj, &left, &top, &right, &bottom, &fills))
        return NULL;
    if (acquire(src_obj, dst_obj, &src, &dst, "pad") < 0) {
        PyBuffer_Release(&fills);
        return NULL;
    }
    int ok = src.ndim == 3 && dst.ndim == 3 && left >= 0 && top >= 0 && right >= 0 && bottom >= 0
             && (src.shape[2] <= 1 || src.strides[2] == 1) && dst.shape[0] == src.shape[0]
             && dst.shape[1] == src.shape[1] + top + bottom && dst.shape[2] == src.shape[2] + left + right
             && fills.len == src.shape[0];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "pad: src must be a 3-D uint8 buffer with contiguous rows, dst a "
                                          "C-contiguous one of as many planes, padded by non-negative sides, "
                                          "one fill a plane");
    } else {
        Py_ssize_t rows = src.shape[1], columns = src.shape[2], out_rows = dst.shape[1], out_columns = dst.shape[2];
        const uint8_t *values = (const uint8_t *)fills.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t p = 0; p < src.shape[0]; p++) {
            uint8_t *plane = (uint8_t *)dst.buf + p * out_rows * out_columns;
            memset(plane, values[p], (size_t)(top * out_columns));
            for (Py_ssize_t y = 0; y < rows; y++) {
                uint8_t *d = plane + (top + y) * out_columns;
                memset(d, values[p], (size_t)left);
                memcpy(d + left, (const uint8_t *)src.buf + p * src.strides[0] + y * src.strides[1], (size_t)columns);
                memset(d + left + columns, values[p], (size_t)right);
            }
            memset(plane + (top + rows) * out_columns, values[p], (size_t)(bottom * out_columns));
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&fills);
    return release(&src, &dst, ok);
}

static PyObject *blend_border(PyObject *self, PyObject *args) {
    PyObject *out_obj, *alpha_obj, *fills_obj, *src_obj, *matrix_obj, *map_x_obj, *map_y_obj;
    int projective;
    if (!PyArg_ParseTuple(args, "OOOOOpOO:blend_border", &out_obj, &alpha_obj, &fills_obj, &src_obj, &matrix_obj,
                          &projective, &map_x_obj, &map_y_obj))
        return NULL;
    int maps = matrix_obj == Py_None;
    if (maps == (map_x_obj == Py_None) || maps == (map_y_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "blend_border: give either matrix or map_x and map_y");
        return NULL;
    }
    Py_buffer out, alpha, src, map_x = {0}, map_y = {0};
    if (contiguous_buffer(out_obj, &out, "B", 3, 1, "blend_border", "out") < 0) return NULL;
    if (contiguous_buffer(alpha_obj, &alpha, "B", 2, 0, "blend_border", "alpha") < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (contiguous_buffer(src_obj, &src, "B", 3, 0, "blend_border", "src") < 0) {
        PyBuffer_Release(&alpha);
        PyBuffer_Release(&out);
        return NULL;
    }
    Py_ssize_t in_h = src.shape[1], in_w = src.shape[2];
    int ok = 1;
    if (maps) {
        ok = contiguous_buffer(map_x_obj, &map_x, "f", 2, 0, "blend_border", "map_x") == 0;
        if (ok && contiguous_buffer(map_y_obj, &map_y, "f", 2, 0, "blend_border", "map_y") < 0) {
            PyBuffer_Release(&map_x);
            ok = 0;
        }
    }
    Py_ssize_t planes = out.shape[0], out_h = out.shape[1], out_w = out.shape[2];
    double matrix[9];
    float fills[256];
    double fill_values[256];
    if (ok && (planes > 256 || src.shape[0] != planes || alpha.shape[0] != out_h || alpha.shape[1] != out_w
               || (maps && (memcmp(map_x.shape, alpha.shape, 2 * sizeof(Py_ssize_t)) != 0
                            || memcmp(map_y.shape, alpha.shape, 2 * sizeof(Py_ssize_t)) != 0)))) {
        PyErr_SetString(PyExc_ValueError, "blend_border: out (at most 256 planes) and src must share their planes, "
                                          "out, alpha and the maps their rows and columns");
        ok = 0;
    }
    ok = ok && doubles_of(fills_obj, fill_values, planes, "blend_border", "fills") == 0
         && (maps || doubles_of(matrix_obj, matrix, 9, "blend_border", "matrix") == 0);
    if (ok) {
        for (Py_ssize_t p = 0; p < planes; p++) fills[p] = (float)fill_values[p];
        Py_BEGIN_ALLOW_THREADS
        border_blend((uint8_t *)out.buf, planes, out_h, out_w, (const uint8_t *)alpha.buf, fills,
                     (const uint8_t *)src.buf, in_h, in_w, maps ? NULL : matrix, projective,
                     maps ? (const float *)map_x.buf : NULL, maps ? (const float *)map_y.buf : NULL);
        Py_END_ALLOW_THREADS
    }
    if (maps && map_x.obj) {
        PyBuffer_Release(&map_x);
        PyBuffer_Release(&map_y);
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&alpha);
    PyBuffer_Release(&out);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

int nearest_source_points(float *u, float *v, ptrdiff_t out_h, ptrdiff_t out_w, const float *coefficients,
                          int projective, float half_width, float half_height, float x0, float y0,
                          int avx2);  /* _native_warp.c */

static PyObject *nearest_points(PyObject *self, PyObject *args) {
    PyObject *u_obj, *v_obj, *coefficients_obj;
    int projective;
    float half_width, half_height, x0, y0;
    if (!PyArg_ParseTuple(args, "OOOpffff:nearest_points", &u_obj, &v_obj, &coefficients_obj, &projective,
                          &half_width, &half_height, &x0, &y0))
        return NULL;
    double values[9];
    float coefficients[9];
    if (doubles_of(coefficients_obj, values, 9, "nearest_points", "coefficients") < 0) return NULL;
    for (int k = 0; k < 9; k++) coefficients[k] = (float)values[k];
    Py_buffer u, v;
    if (contiguous_buffer(u_obj, &u, "f", 2, 1, "nearest_points", "u") < 0) return NULL;
    if (contiguous_buffer(v_obj, &v, "f", 2, 1, "nearest_points", "v") < 0) {
        PyBuffer_Release(&u);
        return NULL;
    }
    int ok = memcmp(u.shape, v.shape, 2 * sizeof(Py_ssize_t)) == 0, done = 0;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "nearest_points: u and v must have one shape");
    } else {
        int avx2 = use_avx2;
        Py_BEGIN_ALLOW_THREADS
        done = nearest_source_points((float *)u.buf, (float *)v.buf, u.shape[0], u.shape[1], coefficients,
                                     projective, half_width, half_height, x0, y0, avx2);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&u);
    PyBuffer_Release(&v);
    if (!ok) return NULL;
    return PyBool_FromLong(done);
}

int blur_planes(const uint8_t *src, int is_float, ptrdiff_t planes, ptrdiff_t plane_stride, ptrdiff_t row_stride,
                ptrdiff_t height, ptrdiff_t width, const float *wy, int ky, const float *wx, int kx, uint8_t *dst,
                int avx2, int avx512);  /* _native_blur.c */


#define BLUR_MAX_TAPS 1025

/* The float32 weights of a kernel (any iterable of 1..BLUR_MAX_TAPS numbers, an odd count) into w; its count, or -1
 * with an exception set. */
static int blur_weights(PyObject *kernel, float *w, const char *what) {
    PyObject *seq = PySequence_Fast(kernel, "");
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : -1;
    if (!seq && !PyErr_ExceptionMatches(PyExc_TypeError)) return -1;  /* (a MemoryError stays one) */
    PyErr_Clear();
    if (n < 1 || n > BLUR_MAX_TAPS || n % 2 == 0) {
        PyErr_Format(PyExc_ValueError, "blur: %s must hold an odd number of weights, 1 to %d", what, BLUR_MAX_TAPS);
        Py_XDECREF(seq);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        double value = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
        if (value == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        w[k] = (float)value;
    }
    Py_DECREF(seq);
    return (int)n;
}

static PyObject *blur(PyObject *self, PyObject *args) {
    PyObject *src_obj, *dst_obj, *wx_obj, *wy_obj;
    if (!PyArg_ParseTuple(args, "OOOO:blur", &src_obj, &dst_obj, &wx_obj, &wy_obj)) return NULL;
    float wx[BLUR_MAX_TAPS], wy[BLUR_MAX_TAPS];
    int kx = blur_weights(wx_obj, wx, "wx"), ky = kx < 0 ? -1 : blur_weights(wy_obj, wy, "wy");
    if (ky < 0) return NULL;
    Py_buffer src, dst;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(dst_obj, &dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    int is_float = src.format && strcmp(src.format, "f") == 0;
    int ok = src.format && dst.format && (is_float || strcmp(src.format, "B") == 0)
             && strcmp(src.format, dst.format) == 0 && src.ndim == 3 && dst.ndim == 3
             && memcmp(src.shape, dst.shape, 3 * sizeof(Py_ssize_t)) == 0 && src.shape[1] > ky / 2
             && src.shape[2] > kx / 2 && (src.shape[2] <= 1 || src.strides[2] == src.itemsize);
    int done = 0;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "blur: src must be a 3-D uint8 or float32 buffer with contiguous rows, "
                                          "larger than half of each kernel; dst a C-contiguous one of its shape and "
                                          "dtype");
    } else {
        int avx2 = use_avx2, avx512 = wide_loops();
        Py_BEGIN_ALLOW_THREADS
        done = blur_planes((const uint8_t *)src.buf, is_float, src.shape[0], src.strides[0], src.strides[1],
                           src.shape[1], src.shape[2], wy, ky, wx, kx, (uint8_t *)dst.buf, avx2, avx512);
        Py_END_ALLOW_THREADS
        if (done < 0) {
            ok = 0;
            PyErr_NoMemory();
        }
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (!ok) return NULL;
    return PyBool_FromLong(done);
}

static PyObject *set_avx512(PyObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int before = use_avx512;
    use_avx512 = on;
    return PyBool_FromLong(before);
}

static PyObject *set_avx2(PyObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int before = use_avx2;
    use_avx2 = on && SIMD && cpu_has_avx2();
    return PyBool_FromLong(before);
}

static PyMethodDef methods[] = {
    {"set_avx512", set_avx512, METH_VARARGS,
     "set_avx512(on): let the blur, the halving, the hue rotation and the colour matrix use their 512-bit loops where "
     "the CPU has AVX-512 (the default) or not; returns the previous setting."},
    {"set_avx2", set_avx2, METH_VARARGS,
     "set_avx2(on): use the AVX2 loops where the CPU has them (the default) or not; returns the previous setting."},
    {"luma", luma, METH_VARARGS,
     "luma(src, dst, (wr, wg, wb)): the fixed-point luma of each RGB image of src into every plane of dst."},
    {"blend_border", blend_border, METH_VARARGS,
     "blend_border(out, alpha, fills, src, matrix, projective, map_x, map_y): the torch path's border blend of an "
     "OpenCV warp (matrix: 9 numbers, output -> input pixel centres) or remap (map_x, map_y: float32 source points) "
     "of the uint8 planes of src into those of out, where the sampled alpha is 1..254 (a matrix: also where the "
     "exact share of the footprint in the image is strictly between 0 and 1)."},
    {"blur", blur, METH_VARARGS,
     "blur(src, dst, wx, wy): each plane of src (planes, rows, columns; uint8 or float32) blurred down its columns "
     "by the weights wy, then along its rows by wx (reflected borders), into dst; False, nothing written, without "
     "AVX2 and FMA."},
    {"color_matrix", color_matrix, METH_VARARGS,
     "color_matrix(src, dst, m): RGB images (images, 3, rows, columns) of src through the 3 x 3 matrix m (9 floats, "
     "row-major), rounded and saturated, into dst."},
    {"color_matrix_pixels", color_matrix_pixels, METH_VARARGS,
     "color_matrix_pixels(src, dst, m): interleaved RGB pixels (rows, columns, 3) through the 3 x 3 matrix m "
     "(dst may be src)."},
    {"hue", hue, METH_VARARGS,
     "hue(src, dst, factor): RGB images (images, 3, rows, columns) of src with their hue rotated by factor turns."},
    {"hue_pixels", hue_pixels, METH_VARARGS,
     "hue_pixels(src, dst, factor): interleaved RGB pixels (rows, columns, 3) rotated by factor turns "
     "(dst may be src)."},
    {"normalize", normalize, METH_VARARGS,
     "normalize(src, dst, scale, mean, std): uint8 planes (images, channels, rows, columns) of src as float32 "
     "((x * scale - mean[c]) / std[c], one rounding a step) into dst."},
    {"nearest_points", nearest_points, METH_VARARGS,
     "nearest_points(u, v, coefficients, projective, half_width, half_height, x0, y0): a nearest warp's rounded "
     "float32 source columns u and rows v (see _native_warp.c); False, nothing written, without AVX2."},
    {"pad", pad, METH_VARARGS,
     "pad(src, dst, (left, top, right, bottom), fills): the planes of src in the middle of dst, their borders set to "
     "fills[plane] (bytes, one a plane)."},
    {"mt_uniform", mt_uniform_py, METH_VARARGS,
     "mt_uniform(state, position, out, centred): out (1-D float32) filled with torch.rand's floats (centred: 2 x - 1) "
     "from the Mersenne Twister state (624 uint32 words, advanced in place) at position; returns the new position."},
    {"pack_masks", pack_masks, METH_VARARGS,
     "pack_masks(src, dst): planes of 0 / 1 eight to a plane of dst (plane k of each eight in bit k); False, dst "
     "partly written, where a value is above 1."},
    {"unpack_masks", unpack_masks, METH_VARARGS,
     "unpack_masks(src, dst): the planes of 0 / 1 that pack_masks packed into src."},
    {"resize", resize, METH_VARARGS,
     "resize(src, dst, bicubic, antialias): torch's uint8 bilinear / bicubic resize of each plane of src into dst."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "visiontx._native",
                                    "Optional compiled kernels of visiontx.", -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    use_avx2 = SIMD && cpu_has_avx2();
    has_avx512 = use_avx2 && cpu_has_avx512();
    if (m && (PyModule_AddIntConstant(m, "SIMD", SIMD) < 0 || PyModule_AddIntConstant(m, "AVX2", use_avx2) < 0
              || PyModule_AddIntConstant(m, "AVX512", has_avx512) < 0
              || PyModule_AddIntConstant(m, "BLUR_MAX_TAPS", BLUR_MAX_TAPS) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
