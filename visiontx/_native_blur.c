/* Separable Gaussian blur of uint8 or float32 planes for visiontx._native, in the float32 steps of visiontx's torch
 * path (functional/_misc/_blur.py): uint8 values read as floats; a vertical pass, then a horizontal one; each output
 * the first tap's product, then one fused multiply-add per further tap in order (torch's add with alpha); reflected
 * borders (no edge repeat); uint8 outputs rounded half to even and saturated. Only with AVX2 and FMA (elsewhere the
 * caller keeps OpenCV's sepFilter2D); 16 lanes where the CPU also has AVX-512, with the same values. */
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

/* out[x] = sum over k of rows[k][x] * w[k] (the first a product, the rest fused multiply-adds), from <= x < width. */
BLUR_TARGET static void vertical_pass(const float *const *rows, const float *w, int taps, ptrdiff_t from,
                                      ptrdiff_t width, float *out) {
    ptrdiff_t x = from;
    for (; x + 32 <= width; x += 32) {  /* four independent chains a turn */
        __m256 weight = _mm256_set1_ps(w[0]);
        const float *row = rows[0] + x;
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(row), weight), b = _mm256_mul_ps(_mm256_loadu_ps(row + 8), weight);
        __m256 c = _mm256_mul_ps(_mm256_loadu_ps(row + 16), weight);
        __m256 d = _mm256_mul_ps(_mm256_loadu_ps(row + 24), weight);
        for (int k = 1; k < taps; k++) {
            weight = _mm256_set1_ps(w[k]);
            row = rows[k] + x;
            a = _mm256_fmadd_ps(_mm256_loadu_ps(row), weight, a);
            b = _mm256_fmadd_ps(_mm256_loadu_ps(row + 8), weight, b);
            c = _mm256_fmadd_ps(_mm256_loadu_ps(row + 16), weight, c);
            d = _mm256_fmadd_ps(_mm256_loadu_ps(row + 24), weight, d);
        }
        _mm256_storeu_ps(out + x, a);
        _mm256_storeu_ps(out + x + 8, b);
        _mm256_storeu_ps(out + x + 16, c);
        _mm256_storeu_ps(out + x + 24, d);
    }
    for (; x + 8 <= width; x += 8) {
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(rows[0] + x), _mm256_set1_ps(w[0]));
        for (int k = 1; k < taps; k++) a = _mm256_fmadd_ps(_mm256_loadu_ps(rows[k] + x), _mm256_set1_ps(w[k]), a);
        _mm256_storeu_ps(out + x, a);
    }
    for (; x < width; x++) {
        float a = rows[0][x] * w[0];
        for (int k = 1; k < taps; k++) a = fmaf(rows[k][x], w[k], a);
        out[x] = a;
    }
}

/* Eight sums rounded half to even, saturated to 0..255, into d[0..7]. */
BLUR_TARGET static inline void store_bytes(uint8_t *d, __m256 v) {
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    __m256i ints = _mm256_cvtps_epi32(v);
    __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    _mm_storel_epi64((__m128i *)d, _mm_packus_epi16(words, words));
}

/* out[x] = sum over k of padded[x + k] * w[k] for from <= x < width: floats into out, or (bytes) rounded into bytes. */
BLUR_TARGET static void horizontal_pass(const float *padded, const float *w, int taps, ptrdiff_t from, ptrdiff_t width,
                                        float *out, uint8_t *bytes) {
    ptrdiff_t x = from;
    for (; x + 32 <= width; x += 32) {
        __m256 weight = _mm256_set1_ps(w[0]);
        const float *p = padded + x;
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(p), weight), b = _mm256_mul_ps(_mm256_loadu_ps(p + 8), weight);
        __m256 c = _mm256_mul_ps(_mm256_loadu_ps(p + 16), weight), d = _mm256_mul_ps(_mm256_loadu_ps(p + 24), weight);
        for (int k = 1; k < taps; k++) {
            weight = _mm256_set1_ps(w[k]);
            p = padded + x + k;
            a = _mm256_fmadd_ps(_mm256_loadu_ps(p), weight, a);
            b = _mm256_fmadd_ps(_mm256_loadu_ps(p + 8), weight, b);
            c = _mm256_fmadd_ps(_mm256_loadu_ps(p + 16), weight, c);
            d = _mm256_fmadd_ps(_mm256_loadu_ps(p + 24), weight, d);
        }
        if (bytes) {
            store_bytes(bytes + x, a);
            store_bytes(bytes + x + 8, b);
            store_bytes(bytes + x + 16, c);
            store_bytes(bytes + x + 24, d);
        } else {
            _mm256_storeu_ps(out + x, a);
            _mm256_storeu_ps(out + x + 8, b);
            _mm256_storeu_ps(out + x + 16, c);
            _mm256_storeu_ps(out + x + 24, d);
        }
    }
    for (; x + 8 <= width; x += 8) {
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(padded + x), _mm256_set1_ps(w[0]));
        for (int k = 1; k < taps; k++) a = _mm256_fmadd_ps(_mm256_loadu_ps(padded + x + k), _mm256_set1_ps(w[k]), a);
        if (bytes) store_bytes(bytes + x, a);
        else _mm256_storeu_ps(out + x, a);
    }
    for (; x < width; x++) {
        float a = padded[x] * w[0];
        for (int k = 1; k < taps; k++) a = fmaf(padded[x + k], w[k], a);
        if (bytes) {
            a = nearbyintf(a);  /* the default rounding mode: half to even */
            bytes[x] = (uint8_t)(a < 0.0f ? 0.0f : (a > 255.0f ? 255.0f : a));
        } else {
            out[x] = a;
        }
    }
}

/* The same sums on 16 lanes where the CPU has AVX-512 (the same operations in the same order: the same values);
 * each returns the first column it left to the 8-lane loops. */
#define WIDE_TARGET __attribute__((target("avx512f")))

WIDE_TARGET static ptrdiff_t vertical_pass16(const float *const *rows, const float *w, int taps, ptrdiff_t width,
                                             float *out) {
    ptrdiff_t x = 0;
    for (; x + 64 <= width; x += 64) {
        __m512 weight = _mm512_set1_ps(w[0]);
        const float *row = rows[0] + x;
        __m512 a = _mm512_mul_ps(_mm512_loadu_ps(row), weight), b = _mm512_mul_ps(_mm512_loadu_ps(row + 16), weight);
        __m512 c = _mm512_mul_ps(_mm512_loadu_ps(row + 32), weight);
        __m512 d = _mm512_mul_ps(_mm512_loadu_ps(row + 48), weight);
        for (int k = 1; k < taps; k++) {
            weight = _mm512_set1_ps(w[k]);
            row = rows[k] + x;
            a = _mm512_fmadd_ps(_mm512_loadu_ps(row), weight, a);
            b = _mm512_fmadd_ps(_mm512_loadu_ps(row + 16), weight, b);
            c = _mm512_fmadd_ps(_mm512_loadu_ps(row + 32), weight, c);
            d = _mm512_fmadd_ps(_mm512_loadu_ps(row + 48), weight, d);
        }
        _mm512_storeu_ps(out + x, a);
        _mm512_storeu_ps(out + x + 16, b);
        _mm512_storeu_ps(out + x + 32, c);
        _mm512_storeu_ps(out + x + 48, d);
    }
    for (; x + 16 <= width; x += 16) {
        __m512 a = _mm512_mul_ps(_mm512_loadu_ps(rows[0] + x), _mm512_set1_ps(w[0]));
        for (int k = 1; k < taps; k++) a = _mm512_fmadd_ps(_mm512_loadu_ps(rows[k] + x), _mm512_set1_ps(w[k]), a);
        _mm512_storeu_ps(out + x, a);
    }
    return x;
}

/* Sixteen sums rounded half to even, saturated to 0..255, into d[0..15]. */
WIDE_TARGET static inline void store_bytes16(uint8_t *d, __m512 v) {
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(255.0f));
    _mm_storeu_si128((__m128i *)d, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
}

WIDE_TARGET static inline void store16(float *out, uint8_t *bytes, ptrdiff_t x, __m512 v) {
    if (bytes) store_bytes16(bytes + x, v);
    else _mm512_storeu_ps(out + x, v);
}

WIDE_TARGET static ptrdiff_t horizontal_pass16(const float *padded, const float *w, int taps, ptrdiff_t width,
                                               float *out, uint8_t *bytes) {
    ptrdiff_t x = 0;
    for (; x + 64 <= width; x += 64) {
        __m512 weight = _mm512_set1_ps(w[0]);
        const float *p = padded + x;
        __m512 a = _mm512_mul_ps(_mm512_loadu_ps(p), weight), b = _mm512_mul_ps(_mm512_loadu_ps(p + 16), weight);
        __m512 c = _mm512_mul_ps(_mm512_loadu_ps(p + 32), weight), d = _mm512_mul_ps(_mm512_loadu_ps(p + 48), weight);
        for (int k = 1; k < taps; k++) {
            weight = _mm512_set1_ps(w[k]);
            p = padded + x + k;
            a = _mm512_fmadd_ps(_mm512_loadu_ps(p), weight, a);
            b = _mm512_fmadd_ps(_mm512_loadu_ps(p + 16), weight, b);
            c = _mm512_fmadd_ps(_mm512_loadu_ps(p + 32), weight, c);
            d = _mm512_fmadd_ps(_mm512_loadu_ps(p + 48), weight, d);
        }
        store16(out, bytes, x, a);
        store16(out, bytes, x + 16, b);
        store16(out, bytes, x + 32, c);
        store16(out, bytes, x + 48, d);
    }
    for (; x + 16 <= width; x += 16) {
        __m512 a = _mm512_mul_ps(_mm512_loadu_ps(padded + x), _mm512_set1_ps(w[0]));
        for (int k = 1; k < taps; k++) a = _mm512_fmadd_ps(_mm512_loadu_ps(padded + x + k), _mm512_set1_ps(w[k]), a);
        store16(out, bytes, x, a);
    }
    return x;
}

/* Row r of a uint8 plane as floats (exact). */
BLUR_TARGET static void bytes_to_floats(const uint8_t *s, ptrdiff_t width, float *d) {
    ptrdiff_t x = 0;
    for (; x + 8 <= width; x += 8)
        _mm256_storeu_ps(d + x, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(s + x)))));
    for (; x < width; x++) d[x] = (float)s[x];
}

/* Scratch of one plane's blur: the reflected row of the vertical pass's output, the rows the vertical pass reads,
 * and (uint8 planes) ky rows as floats, slot r % ky holding row tag[slot]. */
typedef struct {
    float *padded;
    const float **rows;
    float *ring;
    ptrdiff_t *tag;
} Scratch;

BLUR_TARGET static void blur_plane(const uint8_t *src, ptrdiff_t row_stride, ptrdiff_t height, ptrdiff_t width,
                                   int is_float, const float *wy, int ky, const float *wx, int kx, uint8_t *dst,
                                   const Scratch *scratch, int wide) {
    int ry = ky / 2, rx = kx / 2;
    float *middle = scratch->padded + rx;
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
        vertical_pass(scratch->rows, wy, ky, wide ? vertical_pass16(scratch->rows, wy, ky, width, middle) : 0, width,
                      middle);
        for (int i = 1; i <= rx; i++) {
            middle[-i] = middle[i];
            middle[width - 1 + i] = middle[width - 1 - i];
        }
        float *out = is_float ? (float *)dst + y * width : NULL;
        uint8_t *bytes = is_float ? NULL : dst + y * width;
        ptrdiff_t done = wide ? horizontal_pass16(scratch->padded, wx, kx, width, out, bytes) : 0;
        horizontal_pass(scratch->padded, wx, kx, done, width, out, bytes);
    }
}

static int blur_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static int blur_wide_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}
#endif

/* Whether the blur's 16-lane loops can run here (the CPU has AVX2, FMA and AVX-512). */
int blur_wide_available(void) {
#if BLUR_SIMD
    return blur_supported() && blur_wide_supported();
#else
    return 0;
#endif
}

/* The blur of planes (planes x height x width, uint8 or float32 as is_float says; contiguous rows, strides in bytes)
 * by the kernels wy (ky taps, down the columns) and wx (kx taps, along the rows) into dst (C-contiguous, the same
 * dtype). Half of each kernel must fit in the plane (ky / 2 < height, kx / 2 < width). Returns 1 when done, 0 when
 * this machine lacks AVX2 or FMA (nothing written), -1 when out of memory. */
int blur_planes(const uint8_t *src, int is_float, ptrdiff_t planes, ptrdiff_t plane_stride, ptrdiff_t row_stride,
                ptrdiff_t height, ptrdiff_t width, const float *wy, int ky, const float *wx, int kx, uint8_t *dst,
                int avx2, int avx512) {
#if BLUR_SIMD
    if (!avx2 || !blur_supported()) return 0;
    int wide = avx512 && blur_wide_supported();
    Scratch scratch = {malloc(sizeof(float) * (size_t)(width + kx)), malloc(sizeof(float *) * (size_t)ky),
                       is_float ? NULL : malloc(sizeof(float) * (size_t)(ky * width)),
                       is_float ? NULL : malloc(sizeof(ptrdiff_t) * (size_t)ky)};
    int ok = scratch.padded && scratch.rows && (is_float || (scratch.ring && scratch.tag));
    size_t plane_bytes = (size_t)(height * width) * (is_float ? sizeof(float) : 1);
    for (ptrdiff_t p = 0; ok && p < planes; p++)
        blur_plane(src + p * plane_stride, row_stride, height, width, is_float, wy, ky, wx, kx, dst + p * plane_bytes,
                   &scratch, wide);
    free(scratch.padded);
    free(scratch.rows);
    free(scratch.ring);
    free(scratch.tag);
    return ok ? 1 : -1;
#else
    return 0;
#endif
}
