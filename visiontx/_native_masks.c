/* Binary masks eight to a byte, for the nearest warps of many masks at once (functional/_cv2/_warp.py).
 *
 * A nearest warp copies each output pixel from one input pixel, whatever its bits mean: eight 0 / 1 masks packed
 * into the bits of one plane warp in one pass and unpack to the eight warped masks.
 */
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* dst[x] = sum over k < count of (rows[k][x] << k), x < width; returns the largest input value seen (the caller
 * packs only masks of 0 and 1). */
static uint8_t pack_row(const uint8_t *const *rows, int count, ptrdiff_t width, uint8_t *dst) {
    ptrdiff_t x = 0;
    uint8_t largest = 0;
#if defined(__SSE2__)
    __m128i top = _mm_setzero_si128();
    for (; x + 16 <= width; x += 16) {
        __m128i packed = _mm_setzero_si128();
        for (int k = 0; k < count; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(rows[k] + x));
            top = _mm_max_epu8(top, v);
            packed = _mm_or_si128(packed, _mm_sll_epi16(v, _mm_cvtsi32_si128(k)));  /* bytes of 0 / 1: no carry */
        }
        _mm_storeu_si128((__m128i *)(dst + x), packed);
    }
    uint8_t lanes[16];
    _mm_storeu_si128((__m128i *)lanes, top);
    for (int i = 0; i < 16; i++) largest = lanes[i] > largest ? lanes[i] : largest;
#endif
    for (; x < width; x++) {
        uint8_t packed = 0;
        for (int k = 0; k < count; k++) {
            uint8_t v = rows[k][x];
            largest = v > largest ? v : largest;
            packed |= (uint8_t)(v << k);
        }
        dst[x] = packed;
    }
    return largest;
}

/* rows[k][x] = (src[x] >> k) & 1 for k < count, x < width. */
static void unpack_row(const uint8_t *src, int count, ptrdiff_t width, uint8_t *const *rows) {
    ptrdiff_t x = 0;
#if defined(__SSE2__)
    const __m128i one = _mm_set1_epi8(1);
    for (; x + 16 <= width; x += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + x));
        for (int k = 0; k < count; k++)  /* 16-bit shifts: bit 0 of each byte after the AND is the byte's bit k */
            _mm_storeu_si128((__m128i *)(rows[k] + x), _mm_and_si128(_mm_srl_epi16(v, _mm_cvtsi32_si128(k)), one));
    }
#endif
    for (; x < width; x++)
        for (int k = 0; k < count; k++) rows[k][x] = (uint8_t)((src[x] >> k) & 1);
}

/* Packs planes (planes x rows x columns; plane and row strides in bytes, contiguous rows) eight to a plane of dst
 * (C-contiguous, ceil(planes / 8) x rows x columns); returns 0 as soon as a value above 1 is seen (dst is then
 * partly written), else 1. */
int masks_pack(const uint8_t *src, ptrdiff_t planes, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t plane_stride,
               ptrdiff_t row_stride, uint8_t *dst) {
    for (ptrdiff_t first = 0; first < planes; first += 8) {
        int count = planes - first < 8 ? (int)(planes - first) : 8;
        for (ptrdiff_t y = 0; y < rows; y++) {
            const uint8_t *in[8];
            for (int k = 0; k < count; k++) in[k] = src + (first + k) * plane_stride + y * row_stride;
            if (pack_row(in, count, columns, dst + ((first / 8) * rows + y) * columns) > 1) return 0;
        }
    }
    return 1;
}

/* Unpacks src (C-contiguous, ceil(planes / 8) x rows x columns) into planes 0 / 1 of dst (C-contiguous, planes x
 * rows x columns). */
void masks_unpack(const uint8_t *src, ptrdiff_t planes, ptrdiff_t rows, ptrdiff_t columns, uint8_t *dst) {
    for (ptrdiff_t first = 0; first < planes; first += 8) {
        int count = planes - first < 8 ? (int)(planes - first) : 8;
        for (ptrdiff_t y = 0; y < rows; y++) {
            uint8_t *out[8];
            for (int k = 0; k < count; k++) out[k] = dst + ((first + k) * rows + y) * columns;
            unpack_row(src + ((first / 8) * rows + y) * columns, count, columns, out);
        }
    }
}
