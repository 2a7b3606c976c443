#include <stdint.h>
#include <string.h>
#include "core/host_copy.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2: part of every x86-64 CPU, no build flag needed */

/* Below a few cache lines the set-up costs more than the read-for-ownership it saves. */
#define RS_STREAMING_MIN_BYTES 4096

void rs_host_copy_streaming(void *dst, const void *src, size_t bytes) {
  if (bytes < RS_STREAMING_MIN_BYTES) {
    memcpy(dst, src, bytes);
    return;
  }
  char *d = dst;
  const char *s = src;
  /* Streaming stores want 16-byte aligned destinations: copy the head plainly. */
  size_t head = (16 - ((uintptr_t)d & 15)) & 15;
  memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  /* A cache line per iteration: four loads, then four stores that fill the line whole, so
   * the write-combining buffer flushes it without reading it first. */
  size_t lines = bytes / 64;
  for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
    _mm_stream_si128((__m128i *)(void *)d, a);
    _mm_stream_si128((__m128i *)(void *)(d + 16), b);
    _mm_stream_si128((__m128i *)(void *)(d + 32), c);
    _mm_stream_si128((__m128i *)(void *)(d + 48), e);
  }
  memcpy(d, s, bytes % 64);
  /* Streaming stores are weakly ordered: without the fence another thread (or the DMA it
   * starts) could see the buffer before the stores reach it. */
  _mm_sfence();
}

#else

void rs_host_copy_streaming(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }

#endif
