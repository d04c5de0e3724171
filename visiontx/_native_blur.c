/* Separable Gaussian blur of uint8 or float32 planes for visiontx._native, in the float32 steps of visiontx's torch
 * path (functional/_misc/_blur.py): uint8 values read as floats; a vertical pass, then a horizontal one; each output
 * the first tap's product, then one fused multiply-add per further tap in order (torch's add with alpha); reflected
 * borders (no edge repeat); uint8 outputs rounded half to even and saturated. Only with AVX2 and FMA (elsewhere the
 * caller keeps OpenCV's sepFilter2D); 16 lanes where the caller says the CPU also has AVX-512, with the same
 * values. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BLUR_SIMD 1
#else
#define BLUR_SIMD 0
#endif

/* Row i of a reflected axis of length n (n > the kernel's half, so one reflection suffices). */
static inline ptrdiff_t reflect(ptrdiff_t i, ptrdiff_t n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); }

#if BLUR_SIMD
#define BLUR_TARGET __attribute__((target("avx2,fma")))
#define WIDE_TARGET __attribute__((target("avx512f")))

/* Eight sums rounded half to even, saturated to 0..255, into d[0..7]. */
BLUR_TARGET static inline void store_bytes8(uint8_t *d, __m256 v) {
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    __m256i ints = _mm256_cvtps_epi32(v);
    __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    _mm_storel_epi64((__m128i *)d, _mm_packus_epi16(words, words));
}

/* Sixteen of them into d[0..15]. */
WIDE_TARGET static inline void store_bytes16(uint8_t *d, __m512 v) {
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(255.0f));
    _mm_storeu_si128((__m128i *)d, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
}

/* NAME(src, w, taps, x, width, out, bytes): for x <= i < width, the sum over k of ROW(src, k)[i] * w[k] (the first a
 * product, the rest fused multiply-adds in order) into out[i] (floats), or rounded into bytes[i] where bytes is
 * given; four independent chains of LANES a turn, then one; returns the first i it left. The vertical pass sums the
 * rows of the reflected input (src[k]), the horizontal one its reflected row shifted by k (src + k). */
#define WEIGHTED_SUMS(NAME, TARGET, SOURCE, ROW, VEC, LANES, LOAD, SET1, MUL, FMADD, STORE, STORE_BYTES)               \
    TARGET static ptrdiff_t NAME(SOURCE src, const float *w, int taps, ptrdiff_t x, ptrdiff_t width, float *out,    \
                                 uint8_t *bytes) {                                                                   \
        for (; x + 4 * LANES <= width; x += 4 * LANES) {                                                             \
            VEC weight = SET1(w[0]);                                                                                 \
            const float *row = ROW(src, 0) + x;                                                                      \
            VEC a = MUL(LOAD(row), weight), b = MUL(LOAD(row + LANES), weight);                                      \
            VEC c = MUL(LOAD(row + 2 * LANES), weight), d = MUL(LOAD(row + 3 * LANES), weight);                      \
            for (int k = 1; k < taps; k++) {                                                                         \
                weight = SET1(w[k]);                                                                                 \
                row = ROW(src, k) + x;                                                                               \
                a = FMADD(LOAD(row), weight, a);                                                                     \
                b = FMADD(LOAD(row + LANES), weight, b);                                                             \
                c = FMADD(LOAD(row + 2 * LANES), weight, c);                                                         \
                d = FMADD(LOAD(row + 3 * LANES), weight, d);                                                         \
            }                                                                                                        \
            if (bytes) {                                                                                             \
                STORE_BYTES(bytes + x, a);                                                                           \
                STORE_BYTES(bytes + x + LANES, b);                                                                   \
                STORE_BYTES(bytes + x + 2 * LANES, c);                                                               \
                STORE_BYTES(bytes + x + 3 * LANES, d);                                                               \
            } else {                                                                                                 \
                STORE(out + x, a);                                                                                   \
                STORE(out + x + LANES, b);                                                                           \
                STORE(out + x + 2 * LANES, c);                                                                       \
                STORE(out + x + 3 * LANES, d);                                                                       \
            }                                                                                                        \
        }                                                                                                            \
        for (; x + LANES <= width; x += LANES) {                                                                     \
            VEC sum = MUL(LOAD(ROW(src, 0) + x), SET1(w[0]));                                                        \
            for (int k = 1; k < taps; k++) sum = FMADD(LOAD(ROW(src, k) + x), SET1(w[k]), sum);                     \
            if (bytes) STORE_BYTES(bytes + x, sum);                                                                  \
            else STORE(out + x, sum);                                                                                \
        }                                                                                                            \
        return x;                                                                                                    \
    }

#define LISTED(src, k) ((src)[k])
#define SHIFTED(src, k) ((src) + (k))
#define AVX2_OPS \
    __m256, 8, _mm256_loadu_ps, _mm256_set1_ps, _mm256_mul_ps, _mm256_fmadd_ps, _mm256_storeu_ps, store_bytes8
#define AVX512_OPS \
    __m512, 16, _mm512_loadu_ps, _mm512_set1_ps, _mm512_mul_ps, _mm512_fmadd_ps, _mm512_storeu_ps, store_bytes16
#define SUMS(...) WEIGHTED_SUMS(__VA_ARGS__)  /* (expands the ops lists first) */
SUMS(vertical8, BLUR_TARGET, const float *const *, LISTED, AVX2_OPS)
SUMS(vertical16, WIDE_TARGET, const float *const *, LISTED, AVX512_OPS)
SUMS(horizontal8, BLUR_TARGET, const float *, SHIFTED, AVX2_OPS)
SUMS(horizontal16, WIDE_TARGET, const float *, SHIFTED, AVX512_OPS)

/* The same sums for from <= i < width, one at a time (the columns the vector loops leave); rows[k]: the k-th row. */
BLUR_TARGET static void weighted_tail(const float *const *rows, const float *w, int taps, ptrdiff_t from,
                                      ptrdiff_t width, float *out, uint8_t *bytes) {
    for (ptrdiff_t x = from; x < width; x++) {
        float sum = rows[0][x] * w[0];
        for (int k = 1; k < taps; k++) sum = fmaf(rows[k][x], w[k], sum);
        if (bytes) {
            sum = nearbyintf(sum);  /* the default rounding mode: half to even */
            bytes[x] = (uint8_t)(sum < 0.0f ? 0.0f : (sum > 255.0f ? 255.0f : sum));
        } else {
            out[x] = sum;
        }
    }
}

/* Row r of a uint8 plane as floats (exact). */
BLUR_TARGET static void bytes_to_floats(const uint8_t *s, ptrdiff_t width, float *d) {
    ptrdiff_t x = 0;
    for (; x + 8 <= width; x += 8)
        _mm256_storeu_ps(d + x, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(s + x)))));
    for (; x < width; x++) d[x] = (float)s[x];
}

/* Scratch of one plane's blur: the reflected row of the vertical pass's output and the kx views of it the horizontal
 * pass reads (shifted by 0..kx-1), the rows the vertical pass reads, and (uint8 planes) ky rows as floats, slot
 * r % ky holding row tag[slot]. */
typedef struct {
    float *padded;
    const float **shifted;
    const float **rows;
    float *ring;
    ptrdiff_t *tag;
} Scratch;

BLUR_TARGET static void blur_plane(const uint8_t *src, ptrdiff_t row_stride, ptrdiff_t height, ptrdiff_t width,
                                   int is_float, const float *wy, int ky, const float *wx, int kx, uint8_t *dst,
                                   const Scratch *scratch, int wide) {
    int ry = ky / 2, rx = kx / 2;
    float *middle = scratch->padded + rx;
    for (int k = 0; k < kx; k++) scratch->shifted[k] = scratch->padded + k;
    for (int k = 0; k < ky && !is_float; k++) scratch->tag[k] = -1;
    for (ptrdiff_t y = 0; y < height; y++) {
        for (int k = 0; k < ky; k++) {
            ptrdiff_t r = reflect(y - ry + k, height);
            if (is_float) {
                scratch->rows[k] = (const float *)(src + r * row_stride);
                continue;
            }
            /* the rows of one output span fewer than ky consecutive indices: their slots differ */
            float *slot = scratch->ring + (r % ky) * width;
            if (scratch->tag[r % ky] != r) {
                bytes_to_floats(src + r * row_stride, width, slot);
                scratch->tag[r % ky] = r;
            }
            scratch->rows[k] = slot;
        }
        ptrdiff_t x = vertical8(scratch->rows, wy, ky, wide ? vertical16(scratch->rows, wy, ky, 0, width, middle, NULL)
                                                        : 0, width, middle, NULL);
        weighted_tail(scratch->rows, wy, ky, x, width, middle, NULL);
        for (int i = 1; i <= rx; i++) {
            middle[-i] = middle[i];
            middle[width - 1 + i] = middle[width - 1 - i];
        }
        float *out = is_float ? (float *)dst + y * width : NULL;
        uint8_t *bytes = is_float ? NULL : dst + y * width;
        x = horizontal8(scratch->padded, wx, kx, wide ? horizontal16(scratch->padded, wx, kx, 0, width, out, bytes) : 0,
                        width, out, bytes);
        weighted_tail(scratch->shifted, wx, kx, x, width, out, bytes);
    }
}

static int blur_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#endif

/* The blur of planes (planes x height x width, uint8 or float32 as is_float says; contiguous rows, strides in bytes)
 * by the kernels wy (ky taps, down the columns) and wx (kx taps, along the rows) into dst (C-contiguous, the same
 * dtype). Half of each kernel must fit in the plane (ky / 2 < height, kx / 2 < width). Returns 1 when done, 0 when
 * this machine lacks AVX2 or FMA (nothing written), -1 when out of memory. avx512: the 16-lane loops too (the
 * caller has checked the CPU has AVX-512). */
int blur_planes(const uint8_t *src, int is_float, ptrdiff_t planes, ptrdiff_t plane_stride, ptrdiff_t row_stride,
                ptrdiff_t height, ptrdiff_t width, const float *wy, int ky, const float *wx, int kx, uint8_t *dst,
                int avx2, int avx512) {
#if BLUR_SIMD
    if (!avx2 || !blur_supported()) return 0;

    Scratch scratch = {malloc(sizeof(float) * (size_t)(width + kx)), malloc(sizeof(float *) * (size_t)kx),
                       malloc(sizeof(float *) * (size_t)ky),
                       is_float ? NULL : malloc(sizeof(float) * (size_t)(ky * width)),
                       is_float ? NULL : malloc(sizeof(ptrdiff_t) * (size_t)ky)};
    int ok = scratch.padded && scratch.shifted && scratch.rows && (is_float || (scratch.ring && scratch.tag));
    size_t plane_bytes = (size_t)(height * width) * (is_float ? sizeof(float) : 1);
    for (ptrdiff_t p = 0; ok && p < planes; p++)
        blur_plane(src + p * plane_stride, row_stride, height, width, is_float, wy, ky, wx, kx, dst + p * plane_bytes,
                   &scratch, avx512);
    free(scratch.padded);
    free(scratch.shifted);
    free(scratch.rows);
    free(scratch.ring);
    free(scratch.tag);
    return ok ? 1 : -1;
#else
    return 0;
#endif
}
