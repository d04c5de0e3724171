/* Two steps of visiontx's OpenCV warps (functional/_cv2/_warp.py) in one pass each: the border blend of bilinear
 * warps with a fill, and the source pixels of nearest warps.
 *
 * Border blend:
 * OpenCV gives a border pixel v + (1 - w) fill, rounded, where v is the in-image part of the bilinear sum and w the
 * in-image share of its footprint; the torch path gives v w + (1 - w) fill. Where the sampled alpha (w in 0..255)
 * is strictly between its bounds, the pixel becomes v w + (1 - w) fill, with v and w recomputed from the source
 * point and the input's pixels (from OpenCV's rounded value, the blend would round twice: up to a level off).
 * OpenCV's alpha is the share rounded, so shares within a rounding of 0 or 1 read 0 or 255: the pixels looked at
 * are those whose 3 x 3 neighbourhood holds an alpha below 255 and one above 0 (such a pixel has a neighbour
 * across the border), each recomputed (its exact share may be 0 or 1 there: then the fill, or the bilinear value).
 * The arithmetic is numpy's of the Python version, step for step, in double; rounded half to even and saturated.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct {
    uint8_t *out;             /* planes x out_h x out_w, C-contiguous: blended in place */
    ptrdiff_t planes, plane_stride, in_h, in_w;
    const float *fills;       /* one per plane */
    const uint8_t *src;       /* planes x in_h x in_w, C-contiguous: the warped input */
} Blend;

/* min(u + 1, extent - u) clamped to [0, 1]: the share of a footprint one pixel wide centred at u that falls in
 * [-0.5, extent - 0.5]. NaN stays NaN (as numpy's minimum and maximum), which no band test passes. */
static double axis_share(double u, double extent) {
    double a = u + 1.0, b = extent - u;
    double share = isnan(a) ? a : (a < b ? a : b);
    if (share < 0.0) share = 0.0;
    if (share > 1.0) share = 1.0;
    return share;
}

static void blend_pixel(const Blend *job, ptrdiff_t k, double u, double v) {
    double w = axis_share(u, (double)job->in_w) * axis_share(v, (double)job->in_h);
    if (isnan(w)) return;  /* (a degenerate map's point) */
    /* the bilinear taps at (u, v) that fall in the image (w > 0: u in (-1, in_w), v in (-1, in_h)) */
    double left = floor(u), top = floor(v), ax = u - left, ay = v - top, rest = 1.0 - w;
    ptrdiff_t x0 = (ptrdiff_t)left, y0 = (ptrdiff_t)top, in_plane = job->in_h * job->in_w;
    for (ptrdiff_t p = 0; p < job->planes; p++) {
        const uint8_t *plane = job->src + p * in_plane;
        double sum = 0.0;
        for (int dy = 0; dy < 2; dy++) {
            ptrdiff_t y = y0 + dy;
            if (y < 0 || y >= job->in_h) continue;
            double wy = dy ? ay : 1.0 - ay;
            for (int dx = 0; dx < 2; dx++) {
                ptrdiff_t x = x0 + dx;
                if (x < 0 || x >= job->in_w) continue;
                sum += wy * (dx ? ax : 1.0 - ax) * (double)plane[y * job->in_w + x];
            }
        }
        double fill_part = rest > 0.0 ? rest * (double)job->fills[p] : 0.0;  /* (no fill at all inside) */
        double blended = rint(sum * w + fill_part);  /* half to even, as np.rint */
        blended = blended > 255.0 ? 255.0 : blended;
        job->out[p * job->plane_stride + k] = (uint8_t)(blended > 0.0 ? blended : 0.0);  /* clips as numpy */
    }
}

/* The index of the lowest set bit of v (not 0). */
static int lowest_bit(unsigned v) {
#if defined(__GNUC__)
    return __builtin_ctz(v);
#else
    int k = 0;
    for (; !(v & 1u); v >>= 1) k++;
    return k;
#endif
}

/* Bit i set: pixel x0 + i of row y (x0 + i < w) has, in the 3 x 3 neighbourhood of alpha (h x w, clamped at the
 * edges), an alpha below 255 and one above 0. */
static unsigned candidates16(const uint8_t *alpha, ptrdiff_t h, ptrdiff_t w, ptrdiff_t y, ptrdiff_t x0) {
    const uint8_t *rows[3] = {alpha + (y > 0 ? y - 1 : 0) * w, alpha + y * w, alpha + (y + 1 < h ? y + 1 : y) * w};
    unsigned bits = 0;
#if defined(__SSE2__)
    if (x0 >= 1 && x0 + 17 <= w) {
        __m128i low = _mm_set1_epi8(-1), high = _mm_setzero_si128();
        for (int r = 0; r < 3; r++)
            for (int dx = -1; dx <= 1; dx++) {
                __m128i a = _mm_loadu_si128((const __m128i *)(rows[r] + x0 + dx));
                low = _mm_min_epu8(low, a);
                high = _mm_max_epu8(high, a);
            }
        __m128i full = _mm_cmpeq_epi8(low, _mm_set1_epi8(-1)), empty = _mm_cmpeq_epi8(high, _mm_setzero_si128());
        return ~(unsigned)_mm_movemask_epi8(_mm_or_si128(full, empty)) & 0xFFFFu;
    }
#endif
    for (ptrdiff_t i = 0; i < 16 && x0 + i < w; i++) {
        ptrdiff_t x = x0 + i, from = x > 0 ? x - 1 : 0, to = x + 1 < w ? x + 1 : x;
        uint8_t low = 255, high = 0;
        for (int r = 0; r < 3; r++)
            for (ptrdiff_t c = from; c <= to; c++) {
                uint8_t a = rows[r][c];
                low = a < low ? a : low;
                high = a > high ? a : high;
            }
        bits |= (unsigned)(low < 255 && high > 0) << i;
    }
    return bits;
}

/* Blends the pixels of out (planes x out_h x out_w uint8, C-contiguous) near the border of the sampled alpha (see
 * candidates16); the source points are matrix (3 x 3, output -> input pixel centres; projective: its last row
 * divides) or, without one, map_x and map_y (out_h x out_w); src holds the input's planes (in_h x in_w). */
void border_blend(uint8_t *out, ptrdiff_t planes, ptrdiff_t out_h, ptrdiff_t out_w, const uint8_t *alpha,
                  const float *fills, const uint8_t *src, ptrdiff_t in_h, ptrdiff_t in_w, const double *matrix,
                  int projective, const float *map_x, const float *map_y) {
    const Blend job = {out, planes, out_h * out_w, in_h, in_w, fills, src};
    for (ptrdiff_t y = 0; y < out_h; y++) {
        for (ptrdiff_t x0 = 0; x0 < out_w; x0 += 16) {
            for (unsigned band = candidates16(alpha, out_h, out_w, y, x0); band; band &= band - 1) {
                ptrdiff_t x = x0 + lowest_bit(band), k = y * out_w + x;
                double u, v;
                if (!matrix) {
                    u = (double)map_x[k];
                    v = (double)map_y[k];
                } else {
                    const double *m = matrix;
                    u = m[0] * (double)x + m[1] * (double)y + m[2];
                    v = m[3] * (double)x + m[4] * (double)y + m[5];
                    if (projective) {
                        double d = m[6] * (double)x + m[7] * (double)y + m[8];
                        u = u / d;
                        v = v / d;
                    }
                }
                blend_pixel(&job, k, u, v);
            }
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define AVX2_POINTS 1
/* A nearest warp's source column or row, as functional/_cv2/_warp.py's _source_points computes it in numpy (float32,
 * the same operations in the same order) and _rounded_source_points then rounds: half to even, not finite -> -1
 * (off the image). */
static float source_coordinate(float value, float half_extent) {
    value = rintf(((value + 1.0f) * half_extent) - 0.5f);  /* half to even, as np.rint */
    return isfinite(value) ? value : -1.0f;
}

/* source_coordinate of eight lanes. */
__attribute__((target("avx2"))) static inline __m256 source_coordinates8(__m256 value, __m256 half_extent) {
    value = _mm256_sub_ps(_mm256_mul_ps(_mm256_add_ps(value, _mm256_set1_ps(1.0f)), half_extent),
                          _mm256_set1_ps(0.5f));
    value = _mm256_round_ps(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  /* half to even */
    __m256 finite = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), value), _mm256_set1_ps(INFINITY),
                                  _CMP_LT_OQ);
    return _mm256_blendv_ps(_mm256_set1_ps(-1.0f), value, finite);
}

/* Columns x.. of one row of nearest_source_points, eight at a time; returns the first column left. */
__attribute__((target("avx2"))) static ptrdiff_t source_row8(float *pu, float *pv, ptrdiff_t out_w, const float *k,
                                                             int projective, float x0, float row_u, float row_v,
                                                             float row_d, float half_width, float half_height) {
    const __m256 half_u = _mm256_set1_ps(half_width), half_v = _mm256_set1_ps(half_height);
    const __m256 one = _mm256_set1_ps(1.0f), eight = _mm256_set1_ps(8.0f);
    /* exact: x0 is a whole or half number, the columns below 2^22 */
    __m256 xs = _mm256_add_ps(_mm256_set1_ps(x0), _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f));
    ptrdiff_t x = 0;
    for (; x + 8 <= out_w && x < (1 << 22); x += 8, xs = _mm256_add_ps(xs, eight)) {
        __m256 su = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(xs, _mm256_set1_ps(k[0])), _mm256_set1_ps(row_u)),
                                  _mm256_set1_ps(k[2]));
        __m256 sv = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(xs, _mm256_set1_ps(k[3])), _mm256_set1_ps(row_v)),
                                  _mm256_set1_ps(k[5]));
        if (projective) {
            __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(xs, _mm256_set1_ps(k[6])), _mm256_set1_ps(row_d)),
                                     _mm256_set1_ps(k[8]));
            su = _mm256_sub_ps(_mm256_div_ps(su, d), one);
            sv = _mm256_sub_ps(_mm256_div_ps(sv, d), one);
        }
        _mm256_storeu_ps(pu + x, source_coordinates8(su, half_u));
        _mm256_storeu_ps(pv + x, source_coordinates8(sv, half_v));
    }
    return x;
}
#endif

/* The rounded source columns u and rows v (out_h x out_w float32 each) of a nearest warp: per output pixel (x, y),
 * with xs = x0 + x and ys = y0 + y in float32 (exact), u = (xs a + ys b) + c and v = (xs d + ys e) + f; projective
 * (g, h, i given): both divided by (xs g + ys h) + i, then 1 taken off; then each through source_coordinate with its
 * half extent (torchvision's grid: functional/_grid_terms.py). Only with AVX2 (avx2 set, the CPU has it): numpy's own
 * loops are as fast as narrower ones here; returns 0, having written nothing, without. */
int nearest_source_points(float *u, float *v, ptrdiff_t out_h, ptrdiff_t out_w, const float *coefficients,
                          int projective, float half_width, float half_height, float x0, float y0, int avx2) {
#if !AVX2_POINTS
    return 0;
#else
    if (!avx2) return 0;
    const float *k = coefficients;
    for (ptrdiff_t y = 0; y < out_h; y++) {
        float ys = y0 + (float)y;
        float row_u = ys * k[1], row_v = ys * k[4], row_d = projective ? ys * k[7] : 1.0f;
        float *pu = u + y * out_w, *pv = v + y * out_w;
        ptrdiff_t x = source_row8(pu, pv, out_w, k, projective, x0, row_u, row_v, row_d, half_width, half_height);
        for (; x < out_w; x++) {
            float xs = x0 + (float)x;
            float su = (xs * k[0] + row_u) + k[2], sv = (xs * k[3] + row_v) + k[5];
            if (projective) {
                float d = (xs * k[6] + row_d) + k[8];
                su = su / d - 1.0f;
                sv = sv / d - 1.0f;
            }
            pu[x] = source_coordinate(su, half_width);
            pv[x] = source_coordinate(sv, half_height);
        }
    }
    return 1;
#endif
}
