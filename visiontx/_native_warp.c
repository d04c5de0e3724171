/* Two steps of visiontx's OpenCV warps (functional/_cv2/_warp.py) in one pass each: the border blend of bilinear
 * warps with a fill, and the source pixels of nearest warps.
 *
 * Border blend:
 * OpenCV gives a border pixel s + (1 - w) fill, rounded, where s is the in-image part of the bilinear sum and w the
 * in-image share of its footprint; the torch path gives s w + (1 - w) fill. Where the sampled alpha (w in 0..255)
 * is strictly between its bounds, the pixel becomes s w + (1 - w) fill, with s and w recomputed from the source
 * point and the input's pixels (from OpenCV's rounded value, the blend would round twice: up to a level off).
 * OpenCV's alpha quantises the share (its source points are 1/32 pixel apart): pixels whose exact share is strictly
 * between 0 and 1 can read 0 or 255 there. Warps by a matrix find those too, row by row from the map (where the
 * source point is near the input's edges); for remaps (any map) the band of the alpha is all.
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

/* x rounded half to even (np.rint), without a call: exact for |x| < 2^51, beyond which the caller saturates. */
static inline double round_half_even(double x) {
    const double magic = 6755399441055744.0;  /* 1.5 * 2^52: adding it leaves no fraction bits */
    return (x + magic) - magic;
}

/* floor(x) for x in (-1, 2^52) (a source point whose footprint reaches the image). */
static inline double floor_near(double x) {
    double truncated = (double)(ptrdiff_t)x;
    return truncated > x ? truncated - 1.0 : truncated;
}

/* Recomputes pixel k from the source point (u, v) where its alpha is in the band (in_band) or its exact share w is
 * strictly between 0 and 1: rint(s w + (1 - w) fill), s the bilinear sum of the taps in the image. */
static void blend_pixel(const Blend *job, ptrdiff_t k, double u, double v, int in_band) {
    double w = axis_share(u, (double)job->in_w) * axis_share(v, (double)job->in_h);
    if (isnan(w) || !(in_band || (w > 0.0 && w < 1.0))) return;  /* elsewhere OpenCV's value is the torch path's */
    double weights[4] = {0.0, 0.0, 0.0, 0.0}, rest = 1.0 - w;
    ptrdiff_t offsets[4] = {0, 0, 0, 0}, in_plane = job->in_h * job->in_w;
    if (w > 0.0) {  /* the bilinear taps in the image (u in (-1, in_w), v in (-1, in_h)), in numpy's order */
        double left = floor_near(u), top = floor_near(v), ax = u - left, ay = v - top;
        ptrdiff_t x0 = (ptrdiff_t)left, y0 = (ptrdiff_t)top;
        for (int t = 0; t < 4; t++) {
            ptrdiff_t y = y0 + (t >> 1), x = x0 + (t & 1);
            int inside = y >= 0 && y < job->in_h && x >= 0 && x < job->in_w;
            weights[t] = inside ? ((t >> 1) ? ay : 1.0 - ay) * ((t & 1) ? ax : 1.0 - ax) : 0.0;
            offsets[t] = inside ? y * job->in_w + x : 0;
        }
    }
    for (ptrdiff_t p = 0; p < job->planes; p++) {
        const uint8_t *plane = job->src + p * in_plane;
        double sum = 0.0;
        for (int t = 0; t < 4; t++) sum += weights[t] * (double)plane[offsets[t]];
        double fill_part = rest > 0.0 ? rest * (double)job->fills[p] : 0.0;  /* (none at all inside) */
        double blended = round_half_even(sum * w + fill_part);  /* as np.rint */
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

/* Whether a x + b + c over x in [0, n] stays well inside double's exact range (no term swallowing another: the
 * spans are then within their pixel of margin); NaN and infinities are not. */
static int tame(double a, double b, double c, double n) { return fabs(a) * n + fabs(b) + fabs(c) < 1e12; }

/* Where (a x + b) / (g x + h) equals level, and in *slack how far rounding may have moved it: a millionth of a pixel,
 * more where the terms are large beside the slope (about 1e-9 of them, relative; bm and hm are the sizes of the parts
 * b and h were summed from, which may have cancelled). */
static double level_crossing(double a, double b, double g, double h, double bm, double hm, double level,
                             double *slack) {
    double slope = a - level * g, x = (level * h - b) / slope;
    *slack = 1e-9 * (fabs(level) * hm + bm + fabs(x) * (fabs(a) + fabs(level * g))) / fabs(slope) + 1e-6;
    return x;
}

/* The x in [0, n) where t(x) = (a x + b) / (g x + h) lies in (p, q), give or take rounding, on a row where the
 * divisor keeps its sign over [-1, n], so that t is monotone there: t runs from t0 (at x = -1) to t1 (at x = n),
 * and the span ends where t crosses p or q, else at the row's ends. A row whose t stays a rounding away from
 * (p, q) is taken whole (t flat along it, at a level). */
static void monotone_span(double a, double b, double g, double h, double bm, double hm, double t0, double t1,
                          double p, double q, ptrdiff_t n, ptrdiff_t *lo, ptrdiff_t *hi) {
    int rising = t1 > t0;
    double low = rising ? t0 : t1, high = rising ? t1 : t0, slack_a = 0.0, slack_b = 0.0;
    *lo = *hi = 0;
    if (!(high > p && low < q)) {
        double gap = high <= p ? p - high : low - q;  /* how far t stays from (p, q); NaN: not near */
        if (gap <= 1e-9 * (fabs(p) + fabs(q) + fabs(low) + fabs(high) + 1.0)) *hi = n;
        return;
    }
    double xa = low > p ? (rising ? -1.0 : (double)n) : level_crossing(a, b, g, h, bm, hm, p, &slack_a);
    double xb = high < q ? (rising ? (double)n : -1.0) : level_crossing(a, b, g, h, bm, hm, q, &slack_b);
    if (!isfinite(xa) || !isfinite(xb) || !isfinite(slack_a) || !isfinite(slack_b)) {  /* at an asymptote: all */
        *hi = n;
        return;
    }
    double s = xa < xb ? xa - slack_a : xb - slack_b, t = xa < xb ? xb + slack_b : xa + slack_a;
    s = s < -2.0 ? -2.0 : (s > (double)n + 2.0 ? (double)n + 2.0 : s);
    t = t < -2.0 ? -2.0 : (t > (double)n + 2.0 ? (double)n + 2.0 : t);
    ptrdiff_t first = (ptrdiff_t)ceil(s), last = (ptrdiff_t)floor(t) + 1;  /* the pixels in [s, t] */
    *lo = first < 0 ? 0 : (first > n ? n : first);
    *hi = last < *lo ? *lo : (last > n ? n : last);
}

/* The pixels of row y of a warp (m: output -> input pixel centres, its last row dividing; [0, 0, 1] for an affine
 * map) whose source point may have a share strictly between 0 and 1, beside the alpha band: where u or v lies
 * within a pixel of the input's edges (in (-1, 0) or (extent - 1, extent)), found from u and v at the row's ends
 * where the divisor keeps its sign along the row (u and v are monotone there); elsewhere (the horizon crossing the
 * row, terms too large for the spans) the whole row, each pixel tested. */
static void blend_matrix_row(const Blend *job, const double *m, const uint8_t *alpha, ptrdiff_t y, ptrdiff_t out_w) {
    double yy = (double)y, n = (double)out_w, in_w = (double)job->in_w, in_h = (double)job->in_h;
    double b = m[1] * yy + m[2], e = m[4] * yy + m[5], h = m[7] * yy + m[8];
    double bm = fabs(m[1] * yy) + fabs(m[2]), em = fabs(m[4] * yy) + fabs(m[5]), hm = fabs(m[7] * yy) + fabs(m[8]);
    double d0 = h - m[6], d1 = m[6] * n + h;
    ptrdiff_t spans[4][2];
    int count = 0;
    if (tame(m[0], m[1] * yy, m[2], n) && tame(m[3], m[4] * yy, m[5], n) && tame(m[6], m[7] * yy, m[8], n)
        && d0 * d1 > 0.0) {  /* (the parts tested, not their sums, which may cancel) */
        double u0 = (b - m[0]) / d0, u1 = (m[0] * n + b) / d1, v0 = (e - m[3]) / d0, v1 = (m[3] * n + e) / d1;
        monotone_span(m[0], b, m[6], h, bm, hm, u0, u1, -1.0, 0.0, out_w, &spans[0][0], &spans[0][1]);
        monotone_span(m[0], b, m[6], h, bm, hm, u0, u1, in_w - 1.0, in_w, out_w, &spans[1][0], &spans[1][1]);
        monotone_span(m[3], e, m[6], h, em, hm, v0, v1, -1.0, 0.0, out_w, &spans[2][0], &spans[2][1]);
        monotone_span(m[3], e, m[6], h, em, hm, v0, v1, in_h - 1.0, in_h, out_w, &spans[3][0], &spans[3][1]);
        count = 4;
    } else {
        spans[0][0] = 0;
        spans[0][1] = out_w;
        count = 1;
    }
    for (int i = 0; i < count; i++)
        for (ptrdiff_t x = spans[i][0]; x < spans[i][1]; x++) {
            ptrdiff_t k = y * out_w + x;
            if ((uint8_t)(alpha[k] - 1) < 254) continue;  /* the band scan's */
            double xx = (double)x, den = m[6] * xx + m[7] * yy + m[8];  /* (1 for an affine map: the band scan's) */
            blend_pixel(job, k, (m[0] * xx + m[1] * yy + m[2]) / den, (m[3] * xx + m[4] * yy + m[5]) / den, 0);
        }
}

/* Recomputes the pixels of out (planes x out_h x out_w uint8, C-contiguous) whose alpha is 1..254 or, for a matrix,
 * whose exact footprint share is strictly between 0 and 1; the source points are matrix (3 x 3, output -> input
 * pixel centres; projective: its last row divides) or, without one, map_x and map_y (out_h x out_w); src holds the
 * input's planes (in_h x in_w). */
void border_blend(uint8_t *out, ptrdiff_t planes, ptrdiff_t out_h, ptrdiff_t out_w, const uint8_t *alpha,
                  const float *fills, const uint8_t *src, ptrdiff_t in_h, ptrdiff_t in_w, const double *matrix,
                  int projective, const float *map_x, const float *map_y) {
    const Blend job = {out, planes, out_h * out_w, in_h, in_w, fills, src};
    for (ptrdiff_t y = 0; y < out_h; y++) {
        const uint8_t *row = alpha + y * out_w;
        for (ptrdiff_t x0 = 0; x0 < out_w; x0 += 16) {
            unsigned band = 0;  /* bit i: pixel x0 + i has alpha 1..254 (strictly inside and outside) */
#if defined(__SSE2__)
            if (x0 + 16 <= out_w) {
                __m128i a = _mm_loadu_si128((const __m128i *)(row + x0));
                __m128i ends = _mm_or_si128(_mm_cmpeq_epi8(a, _mm_setzero_si128()),
                                            _mm_cmpeq_epi8(a, _mm_set1_epi8(-1)));
                band = ~(unsigned)_mm_movemask_epi8(ends) & 0xFFFFu;
            } else
#endif
                for (ptrdiff_t i = 0; i < 16 && x0 + i < out_w; i++)
                    band |= (unsigned)((uint8_t)(row[x0 + i] - 1) < 254) << i;
            for (; band; band &= band - 1) {
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
                blend_pixel(&job, k, u, v, 1);
            }
        }
        if (matrix) blend_matrix_row(&job, matrix, alpha, y, out_w);
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
