/* The staging's host copy with streaming stores (src/core/host_copy.h): every byte lands
 * where memcpy would put it, for every alignment of source and destination, sizes around
 * the switch to streaming stores and around a cache line, and nothing outside the range
 * is touched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/host_copy.h"
#include "harness.h"

#define GUARD 64

static void check_copy(size_t bytes, size_t dst_off, size_t src_off) {
  size_t room = bytes + 2 * GUARD + 16;
  unsigned char *src = calloc(room, 1), *dst = calloc(room, 1), *want = calloc(room, 1);
  CHECK(src && dst && want);
  if (src && dst && want) {
    for (size_t i = 0; i < room; i++) {
      src[i] = (unsigned char)(i * 131u + 7u);
      dst[i] = want[i] = (unsigned char)(0xA5u ^ i);
    }
    memcpy(want + GUARD + dst_off, src + GUARD + src_off, bytes);
    rs_host_copy_streaming(dst + GUARD + dst_off, src + GUARD + src_off, bytes);
    size_t bad = room;
    for (size_t i = 0; i < room && bad == room; i++)
      if (dst[i] != want[i]) bad = i;
    CHECK_MSG(bad == room, "%zu bytes, dst offset %zu, src offset %zu: byte %zd (relative to dst) differs", bytes,
              dst_off, src_off, (ssize_t)bad - (ssize_t)(GUARD + dst_off));
  }
  free(src);
  free(dst);
  free(want);
}

static void test_alignments(rs_context *ctx) {
  (void)ctx;
  for (size_t d = 0; d < 16; d++)
    for (size_t s = 0; s < 16; s++) check_copy(4096 + 64 * 3 + 13, d, s);
}

static void test_sizes(rs_context *ctx) {
  (void)ctx;
  static const size_t sizes[] = {0, 1, 15, 16, 63, 64, 65, 4095, 4096, 4097, 4096 + 63, 4096 + 64, 65536, 1 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    check_copy(sizes[i], 0, 0);
    check_copy(sizes[i], 3, 9);
  }
}

static const rs_test_case tests[] = {RS_TEST(test_alignments), RS_TEST(test_sizes)};
RS_TEST_MAIN(tests)
