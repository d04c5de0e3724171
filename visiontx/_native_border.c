/* The border blend of visiontx's OpenCV warps (functional/_cv2/_warp.py), in one pass over the sampled alpha plane.
 *
 * OpenCV gives a border pixel v + (1 - w) fill, where v is the in-image part of the bilinear sum and w the in-image
 * share of its footprint; the torch path gives v w + (1 - w) fill. Where the sampled alpha (w in 0..255) is strictly
 * between its bounds, the pixel becomes w out + (1 - w)^2 fill, with w recomputed exactly from the source point.
 * The arithmetic is numpy's of the Python version, step for step: source point and share in double, the blend in
 * float32 (one rounding an operation), rounded half to even and saturated.
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
    float w = (float)(axis_share(u, (double)job->in_w) * axis_share(v, (double)job->in_h));
    if (!(w > 0.0f && w < 1.0f)) return;  /* elsewhere OpenCV's value is already the torch path's */
    float rest = 1.0f - w, share = rest * rest;
    for (ptrdiff_t p = 0; p < job->planes; p++) {
        uint8_t *pixel = job->out + p * job->plane_stride + k;
        float fill_part = share * job->fills[p];
        float blended = (float)*pixel * w;
        blended = blended + fill_part;  /* 0 <= blended < 2^22 (fills are 0..255): adding 2^23 rounds half to even */
        blended = (blended + 8388608.0f) - 8388608.0f;
        blended = blended > 255.0f ? 255.0f : blended;
        *pixel = (uint8_t)(blended > 0.0f ? blended : 0.0f);  /* fills outside 0..255 (direct calls) clip as numpy */
    }
}

/* Blends the pixels of out (planes x out_h x out_w uint8, C-contiguous) whose alpha is 1..254; the source points
 * are matrix (3 x 3, output -> input pixel centres; projective: its last row divides) or, without one, map_x and
 * map_y (out_h x out_w); in_h x in_w is the input's size. */
void border_blend(uint8_t *out, ptrdiff_t planes, ptrdiff_t out_h, ptrdiff_t out_w, const uint8_t *alpha,
                  const float *fills, ptrdiff_t in_h, ptrdiff_t in_w, const double *matrix, int projective,
                  const float *map_x, const float *map_y) {
    const Blend job = {out, planes, out_h * out_w, in_h, in_w, fills};
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
                ptrdiff_t x = x0 + __builtin_ctz(band), k = y * out_w + x;
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
