/* Pageable copies through the pinned staging arena (src/transfer/staging.c): large H2D and
 * D2H copies, whole chunks and ragged tails, contiguous and strided, round-trip exactly and
 * count as one copy each; so do the staging's plain host copies (a streamed run's). The
 * simulator runs the same staging code when it is forced on. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "core/error.h"   /* internal: rs_fail, for a backend whose pull goes wrong */
#include "core/objects.h" /* internal: ctx->vt */
#include "resident/ledger.h"
#include "transfer/staging.h"
#include "transfer/staging_pull.h"

/* A context with staging forced on (on CUDA it is on by default), on `threads` host
 * threads ("" = the default). */
static rs_context *staged_context_threads(rs_context *ctx, const char *threads) {
  setenv("RESIDENT_PAGEABLE_STAGING", "on", 1);
  if (threads[0]) setenv("RESIDENT_STAGING_THREADS", threads, 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(ctx), rs_context_device(ctx));
  unsetenv("RESIDENT_PAGEABLE_STAGING");
  unsetenv("RESIDENT_STAGING_THREADS");
  return st == RS_OK ? c : NULL;
}

static rs_context *staged_context(rs_context *ctx) { return staged_context_threads(ctx, ""); }

/* The first n bytes of host array a hold rs_t_pattern_'s bytes for seed. */
static void check_pattern(const rs_array *a, size_t n, uint64_t seed) {
  unsigned char *want = malloc(n);
  CHECK(want != NULL);
  rs_t_pattern_(want, n, seed);
  const int same = memcmp(rs_array_host_data(a), want, n) == 0;
  free(want);
  CHECK_MSG(same, "%zu bytes differ from pattern %llu", n, (unsigned long long)seed);
}

/* Inner bodies may return early on a failed CHECK; the caller destroys the context, which
 * frees whatever they left, and checks that nothing was left on success. */
static void round_trip(rs_context *c, int64_t bytes, uint64_t seed) {
  rs_array *src = NULL, *dev = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&src, c, 1, &bytes, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(src), (size_t)bytes, seed);
  CHECK_OK(rs_ledger_reset(c));
  CHECK_OK(rs_to_device(&dev, src, 0, NULL));
  CHECK_OK(rs_copy_to_host(&back, dev, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(back), rs_array_host_data(src), (size_t)bytes);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(c, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][0], 1);
  CHECK_EQ_I64(s.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][0], bytes);
  CHECK_EQ_I64(s.bytes[RS_D2H][0], bytes);
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(dev));
  CHECK_OK(rs_array_release(src));
}

/* Layouts that differ across the bus: C-order pageable host to an F-order device array
 * (staged H2D into a device temporary, then a device scatter) and back into a fresh
 * C-order host array (device gather, then staged D2H). */
static void other_layout(rs_context *c) {
  int64_t shape[2] = {1024, 2048};
  rs_array *h = NULL, *df = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&h, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  float *hp = rs_array_host_data(h);
  for (int64_t i = 0; i < shape[0] * shape[1]; i++) hp[i] = (float)i;
  CHECK_OK(rs_device_array(&df, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_F));
  CHECK_OK(rs_array_copy(df, h, NULL));
  CHECK_OK(rs_host_array(&back, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_copy(back, df, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(back), hp, (size_t)(shape[0] * shape[1]) * sizeof(float));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(df));
  CHECK_OK(rs_array_release(h));
}

static void nothing_left(rs_context *c) {
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
}

static void test_sizes(rs_context *ctx) {
  rs_context *c = staged_context(ctx);
  CHECK(c != NULL);
  /* Below the threshold (1 MiB), more pieces than are in flight, a ragged tail, and the
   * largest pieces with a ragged one (40 MiB: 8 MiB pieces, 5 of them; 64 MiB + 4099: 9,
   * round the 32 MiB arena more than twice). */
  const int64_t sizes[] = {(1 << 20) - 1, 4 << 20, 32 << 20, (8 << 20) + 12345, (40 << 20) + 7,
                           (int64_t)(64 << 20) + 4099};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) round_trip(c, sizes[i], 100 + i);
  nothing_left(c);
  rs_context_destroy(c);
}

/* Every lane count from 1 to 5 with sizes around the threshold (1 MiB) and below it, fewer
 * pieces than are in flight, exact multiples of a piece and ragged tails: the lanes claim
 * slices of every piece, the caller's lane sends each piece's DMA and watches them arrive,
 * and whichever lanes take part must make the same bytes. */
static void test_lanes(rs_context *ctx) {
  const int64_t sizes[] = {256 << 10, (1 << 20) + 1, (3 << 20) + 4097, (8 << 20) - 1, 8 << 20, 16 << 20};
  for (int lanes = 1; lanes <= 5; lanes++) {
    char t[8];
    snprintf(t, sizeof t, "%d", lanes);
    rs_context *c = staged_context_threads(ctx, t);
    CHECK(c != NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      round_trip(c, sizes[i], 1000 + 10 * (uint64_t)lanes + i);
      if (rs_t_.failed) printf("    (%d lanes, %lld bytes)\n", lanes, (long long)sizes[i]);
    }
    nothing_left(c);
    rs_context_destroy(c);
    CHECK_PASSING();
  }
}

/* Lanes claim slices of each piece (about two per lane; pulled copies turned off, so that
 * small H2D copies go by DMA pieces too, at least 64 KiB, whole cache
 * lines): with 16 lanes (more than this machine's cores: lanes wake late, and the others
 * take their slices), 3 (slices that do not divide a piece) and the caller alone, sizes
 * around piece and slice boundaries. 512 KiB pieces up to 4 MiB (16 lanes: 8 slices of
 * 64 KiB; 1 lane: 2 of 256 KiB), 1 MiB pieces up to 8 MiB, 8 MiB pieces above 32 MiB.
 * H2D copies start with a ramp of pieces from 128 KiB up to half a piece and end with one
 * down to 128 KiB, whole pieces and a remainder between (512 KiB pieces: 128 and 256 KiB,
 * then whole ones from 384 KiB, the remainder, 256 and 128 KiB; 1 MiB pieces: ramps of 3;
 * 2 MiB pieces (8-16 MiB copies): ramps of 4), so sizes just off those edges. */
static void test_claimed_slices(rs_context *ctx) {
  const int64_t K = 1 << 10, M = 1 << 20;
  const int64_t sizes[] = {M,         M + 1,       M + 64 * K,          M + 64 * K + 1,     M + 256 * K - 1,
                           M + 87424, 4 * M - 65,  2 * M + 512 * K - 64, 4 * M + 64 * K + 3, 36 * M + 256 * K + 1,
                           M + 384 * K + 1, M + 256 * K,   5 * M - 1,           4 * M + 896 * K,    4 * M + 1792 * K + 1,
                           10 * M - 256 * K + 1};
  const char *lanes[] = {"16", "3", "1"};
  for (int l = 0; l < 3; l++) {
    rs_context *c = staged_context_threads(ctx, lanes[l]);
    CHECK(c != NULL);
    rs_staging_allow_pull(c, 0); /* the H2D's DMA pieces, which only larger copies use by default */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      round_trip(c, sizes[i], 3000 + 20 * (uint64_t)l + i);
      if (rs_t_.failed) printf("    (%s lanes, %lld bytes)\n", lanes[l], (long long)sizes[i]);
    }
    nothing_left(c);
    rs_context_destroy(c);
    CHECK_PASSING();
  }
}

/* How copies are cut into pieces. H2D: ramps from 128 KiB up to half a piece at the start
 * and down to 128 KiB at the end, whole pieces (about a copy's eighth, 512 KiB to 8 MiB)
 * and one remainder between. D2H: whole pieces, the remainder last. Every byte in exactly
 * one piece. */
static void test_cut(rs_context *ctx) {
  (void)ctx;
  const size_t K = 1 << 10, M = 1 << 20;
  size_t len[256];
  /* 1 MiB: 512 KiB pieces; H2D with ramps of 2, no whole piece, a remainder of 256 KiB. */
  const size_t one[] = {128 * K, 256 * K, 256 * K, 256 * K, 128 * K};
  CHECK_EQ_I64((int64_t)rs_staging_cut(M, RS_DIR_H2D, 8, len, 256), 5);
  for (int i = 0; i < 5; i++) CHECK_EQ_I64((int64_t)len[i], (int64_t)one[i]);
  CHECK_EQ_I64((int64_t)rs_staging_cut(M, RS_DIR_D2H, 8, len, 256), 2);
  CHECK(len[0] == 512 * K && len[1] == 512 * K);
  /* 64 MiB: 8 MiB pieces; H2D with ramps of 6, 6 whole pieces and a remainder of 256 KiB. */
  const size_t big[] = {128 * K, 256 * K, 512 * K, M,       2 * M,   4 * M,   8 * M,   8 * M,   8 * M,  8 * M,
                        8 * M,   8 * M,   256 * K, 4 * M,   2 * M,   M,       512 * K, 256 * K, 128 * K};
  CHECK_EQ_I64((int64_t)rs_staging_cut(64 * M, RS_DIR_H2D, 8, len, 256), 19);
  for (int i = 0; i < 19; i++) CHECK_MSG(len[i] == big[i], "64 MiB, piece %d: %zu bytes, want %zu", i, len[i], big[i]);
  CHECK_EQ_I64((int64_t)rs_staging_cut(64 * M + 4099, RS_DIR_D2H, 8, len, 256), 9);
  for (int i = 0; i < 9; i++) CHECK_EQ_I64((int64_t)len[i], i < 8 ? (int64_t)(8 * M) : 4099);
  /* Many sizes: the shape and the sum. */
  const size_t sizes[] = {M, M + 1, 2 * M - 1, 4 * M + 1, 5 * M - 1, 8 * M, 16 * M + 4097, 40 * M + 7, 256 * M + 3, 1024 * M};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    for (int dir = 0; dir < 2; dir++) {
      size_t n = rs_staging_cut(sizes[i], dir ? RS_DIR_D2H : RS_DIR_H2D, 8, len, 256), sum = 0, top = 0;
      CHECK(n >= 2 && n <= 256);
      for (size_t p = 0; p < n; p++) {
        sum += len[p];
        if (len[p] > top) top = len[p];
      }
      CHECK_MSG(sum == sizes[i], "%zu bytes cut into pieces of %zu", sizes[i], sum);
      CHECK_MSG(top >= 256 * K && top <= 8 * M, "%zu bytes: pieces up to %zu", sizes[i], top);
      if (dir == 0)
        CHECK_MSG(len[0] == 128 * K && len[1] == 256 * K && len[n - 2] == 256 * K && len[n - 1] == 128 * K,
                  "%zu bytes H2D: pieces of %zu, %zu first and %zu, %zu last", sizes[i], len[0], len[1],
                  len[n - 2], len[n - 1]);
      else
        for (size_t p = 0; p + 1 < n; p++) CHECK_MSG(len[p] == top, "%zu bytes D2H: piece %zu of %zu", sizes[i], p, len[p]);
      if (rs_t_.failed) return;
    }
  }
}

/* One host copy by the staging's lanes: every byte where memcpy puts it, none outside. */
static void host_copy_once(rs_context *c, size_t bytes, int into_staging, uint64_t seed) {
  const size_t guard = 64, room = bytes + 2 * guard + 16;
  unsigned char *src = malloc(room), *dst = malloc(room), *want = malloc(room);
  if (src && dst && want) {
    rs_t_pattern_(src, room, seed);
    rs_t_pattern_(dst, room, seed + 1);
    memcpy(want, dst, room);
    memcpy(want + guard + 3, src + guard + 9, bytes);
    rs_staging_host_copy(c, dst + guard + 3, src + guard + 9, bytes, into_staging);
  }
  int ok = src && dst && want && memcmp(dst, want, room) == 0;
  free(src);
  free(dst);
  free(want);
  CHECK_MSG(ok, "%zu bytes%s", bytes, into_staging ? " into staging" : "");
}

/* Below the crew's threshold (1 MiB), whole and ragged slices (16 lanes: 64 KiB; 1 lane:
 * halves), and 8 MiB and more (plain stores into staging). */
static void test_host_copy_lanes(rs_context *ctx) {
  const size_t M = 1 << 20;
  const size_t sizes[] = {M - 1, M, M + 13, M + (64 << 10), 3 * M + 4097, 8 * M, 9 * M + 65};
  const char *lanes[] = {"16", "1"};
  for (int l = 0; l < 2; l++) {
    rs_context *c = staged_context_threads(ctx, lanes[l]);
    CHECK(c != NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && !rs_t_.failed; i++)
      for (int into = 0; into < 2; into++) host_copy_once(c, sizes[i], into, 40 + i);
    if (rs_t_.failed) printf("    (%s lanes)\n", lanes[l]);
    nothing_left(c);
    rs_context_destroy(c);
    CHECK_PASSING();
  }
}

/* The arena of one direction reused by the other on another stream: a D2H must not fill
 * arena bytes while an H2D from them may still be in flight. */
static void test_directions_and_streams(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  int64_t n = (int64_t)6 << 20;
  rs_array *a = NULL, *b = NULL, *d1 = NULL, *d2 = NULL;
  rs_stream *s1 = NULL, *s2 = NULL;
  CHECK_OK(rs_stream_create(&s1, c, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&s2, c, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_host_array(&a, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&b, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d1, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d2, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(a), (size_t)n, 7);
  rs_t_pattern_(rs_array_host_data(b), (size_t)n, 8);
  CHECK_OK(rs_array_copy(d1, a, s1));
  CHECK_OK(rs_array_copy(d2, b, s2));
  CHECK_OK(rs_array_copy(a, d2, s1)); /* swapped */
  CHECK_OK(rs_array_copy(b, d1, s2));
  check_pattern(a, (size_t)n, 8);
  check_pattern(b, (size_t)n, 7);
  CHECK_PASSING();
  rs_array *all[] = {a, b, d1, d2};
  for (int i = 0; i < 4; i++) CHECK_OK(rs_array_release(all[i]));
  CHECK_OK(rs_stream_destroy(s1));
  CHECK_OK(rs_stream_destroy(s2));
  nothing_left(c);
  rs_context_destroy(c);
}

/* Copies whose pieces land wherever the arena's cursor stands after the one before: piece
 * sizes that change from copy to copy (512 KiB to 8 MiB), a cursor that is rounded up to
 * the next whole piece, and pieces that wrap round the arena's end in both directions. */
static void test_arena_walk(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  const int64_t sizes[] = {1 << 20, (20 << 20) + 5, (3 << 20) + 512, (40 << 20) + 1, (1 << 20) + 3,
                           (int64_t)(64 << 20), (6 << 20) + 77};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    round_trip(c, sizes[i], 5000 + i);
    if (rs_t_.failed) printf("    (copy %zu, %lld bytes)\n", i, (long long)sizes[i]);
    CHECK_PASSING();
  }
  nothing_left(c);
  rs_context_destroy(c);
}

static void test_strided(rs_context *ctx) {
  rs_context *c = staged_context(ctx);
  CHECK(c != NULL);
  other_layout(c);
  nothing_left(c);
  rs_context_destroy(c);
}

static void test_bad_setting(rs_context *ctx) {
  setenv("RESIDENT_PAGEABLE_STAGING", "sometimes", 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(ctx), 0);
  unsetenv("RESIDENT_PAGEABLE_STAGING");
  CHECK_EQ_I64(st, RS_ERR_PARSE);
  CHECK(rs_t_contains_(rs_last_error(), "RESIDENT_PAGEABLE_STAGING"));
  if (c) rs_context_destroy(c);
  const char *bad[] = {"33", "-1", "x", "1.5", "4 "};
  for (int i = 0; i < 5; i++) {
    setenv("RESIDENT_STAGING_THREADS", bad[i], 1);
    c = NULL;
    st = rs_context_create(&c, rs_context_backend(ctx), 0);
    unsetenv("RESIDENT_STAGING_THREADS");
    CHECK_EQ_I64(st, RS_ERR_PARSE);
    CHECK(rs_t_contains_(rs_last_error(), "RESIDENT_STAGING_THREADS"));
    if (c) rs_context_destroy(c);
  }
}

/* Pulled H2D copies (staging_pull.c): up to RS_PULL_MAX_BYTES the device reads 32 KiB
 * slices as the lanes flag them; larger copies and every D2H go by DMA pieces. */
static void test_pulled_sizes(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  const int64_t K = 1 << 10, M = 1 << 20;
  const struct {
    int64_t bytes, slices; /* slices pulled (0: by DMA pieces) */
  } cases[] = {{M, 32},
               {M + 1, 33},
               {M + 32 * K - 1, 33},
               {3 * M + 4097, 97},
               {(int64_t)RS_PULL_MAX_BYTES, (int64_t)(RS_PULL_MAX_BYTES / RS_PULL_SLICE)},
               {(int64_t)RS_PULL_MAX_BYTES + 1, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t before = rs_staging_pulled_slices(c);
    round_trip(c, cases[i].bytes, 7000 + i);
    CHECK_EQ_I64((int64_t)(rs_staging_pulled_slices(c) - before), cases[i].slices);
    if (rs_t_.failed) printf("    (%lld bytes)\n", (long long)cases[i].bytes);
    CHECK_PASSING();
  }
  nothing_left(c);
  rs_context_destroy(c);
}

/* Into device views at every alignment (the device writes words of the destination's
 * alignment, the tail byte by byte): the bytes around the view stay as they were. */
static void test_pulled_alignment(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  const int64_t n = (1 << 20) + 5, whole = n + 32;
  rs_array *src = NULL, *zeros = NULL, *dev = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&src, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&zeros, c, 1, &whole, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&back, c, 1, &whole, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&dev, c, 1, &whole, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(src), (size_t)n, 41);
  memset(rs_array_host_data(zeros), 0, (size_t)whole);
  const int64_t offsets[] = {1, 2, 3, 4, 8, 12, 16, 31};
  for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
    const int64_t o = offsets[i];
    CHECK_OK(rs_array_copy(dev, zeros, NULL));
    rs_slice sl = {o, o + n, 1};
    rs_array *view = NULL;
    CHECK_OK(rs_array_slice(&view, dev, 1, &sl));
    uint64_t before = rs_staging_pulled_slices(c);
    CHECK_OK(rs_array_copy(view, src, NULL));
    CHECK_EQ_I64((int64_t)(rs_staging_pulled_slices(c) - before), 33);
    CHECK_OK(rs_array_release(view));
    CHECK_OK(rs_array_copy(back, dev, NULL));
    const unsigned char *b = rs_array_host_data(back);
    CHECK_BYTES_EQ(b + o, rs_array_host_data(src), (size_t)n);
    CHECK_BYTES_EQ(b, rs_array_host_data(zeros), (size_t)o);
    CHECK_BYTES_EQ(b + o + n, rs_array_host_data(zeros), (size_t)(whole - o - n));
    if (rs_t_.failed) printf("    (offset %lld)\n", (long long)o);
    CHECK_PASSING();
  }
  rs_array *all[] = {src, zeros, back, dev};
  for (int i = 0; i < 4; i++) CHECK_OK(rs_array_release(all[i]));
  nothing_left(c);
  rs_context_destroy(c);
}

/* Copies one after another go round the ring of 1024 slots more than once (40 x 33
 * slices), mixed with DMA-piece copies of either direction on other streams: a slice's
 * flag from an earlier round never reads as ready, and neither kind of copy writes the
 * arena while the other may still read it. */
static void test_pulled_ring(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  rs_stream *s1 = NULL, *s2 = NULL;
  CHECK_OK(rs_stream_create(&s1, c, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&s2, c, RS_STREAM_NON_BLOCKING));
  const int64_t small = (1 << 20) + 4099, large = (20 << 20) + 3;
  rs_array *hs = NULL, *hl = NULL, *ds = NULL, *dl = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&hs, c, 1, &small, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&hl, c, 1, &large, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&back, c, 1, &small, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&ds, c, 1, &small, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&dl, c, 1, &large, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(hl), (size_t)large, 99);
  uint64_t before = rs_staging_pulled_slices(c);
  for (int i = 0; i < 40; i++) {
    rs_t_pattern_(rs_array_host_data(hs), (size_t)small, 9000 + (uint64_t)i);
    CHECK_OK(rs_array_copy(ds, hs, i % 2 ? s1 : s2));
    if (i % 8 == 3) CHECK_OK(rs_array_copy(dl, hl, s2)); /* DMA pieces, H2D */
    if (i % 8 == 7) CHECK_OK(rs_array_copy(hl, dl, s1)); /* DMA pieces, D2H */
    CHECK_OK(rs_array_copy(back, ds, s1));
    CHECK_BYTES_EQ(rs_array_host_data(back), rs_array_host_data(hs), (size_t)small);
    if (rs_t_.failed) printf("    (copy %d)\n", i);
    CHECK_PASSING();
  }
  CHECK_EQ_I64((int64_t)(rs_staging_pulled_slices(c) - before), 40 * 33);
  check_pattern(hl, (size_t)large, 99);
  CHECK_PASSING();
  rs_array *all[] = {hs, hl, back, ds, dl};
  for (int i = 0; i < 5; i++) CHECK_OK(rs_array_release(all[i]));
  CHECK_OK(rs_stream_destroy(s1));
  CHECK_OK(rs_stream_destroy(s2));
  nothing_left(c);
  rs_context_destroy(c);
}

/* Threads that copy through one context's staging at once take turns (the staging lock):
 * each gets its own bytes back. */
typedef struct pull_thread {
  rs_context *c;
  uint64_t seed;
  int bad; /* calls that failed or bytes that came back wrong */
} pull_thread;

static void *pull_thread_main(void *arg) {
  pull_thread *t = arg;
  const int64_t n = (2 << 20) + 100;
  rs_array *h = NULL, *d = NULL, *back = NULL;
  if (rs_host_array(&h, t->c, 1, &n, RS_UINT8, NULL, RS_ORDER_C) != RS_OK ||
      rs_host_array(&back, t->c, 1, &n, RS_UINT8, NULL, RS_ORDER_C) != RS_OK ||
      rs_device_array(&d, t->c, 1, &n, RS_UINT8, NULL, RS_ORDER_C) != RS_OK)
    t->bad++;
  for (int i = 0; i < 12 && !t->bad; i++) {
    rs_t_pattern_(rs_array_host_data(h), (size_t)n, t->seed + (uint64_t)i);
    if (rs_array_copy(d, h, NULL) != RS_OK || rs_array_copy(back, d, NULL) != RS_OK ||
        memcmp(rs_array_host_data(back), rs_array_host_data(h), (size_t)n) != 0)
      t->bad++;
  }
  if (h) rs_array_release(h);
  if (back) rs_array_release(back);
  if (d) rs_array_release(d);
  return NULL;
}

static void test_pulled_threads(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  pthread_t th[3];
  pull_thread t[3];
  for (int i = 0; i < 3; i++) {
    t[i] = (pull_thread){c, 11000 + 100 * (uint64_t)i, 0};
    CHECK(pthread_create(&th[i], NULL, pull_thread_main, &t[i]) == 0);
  }
  for (int i = 0; i < 3; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ_I64(t[i].bad, 0);
  }
  nothing_left(c);
  rs_context_destroy(c);
}

/* When the device's side of a pulled copy goes wrong: a pull that cannot be queued fails
 * the copy with the backend's message; a pull that never reads its slices (a device that
 * died with it) is found by the next staged copy, which waits 2 ms, asks the device, and
 * fails instead of waiting for ever. Either way the copy after works. */
static rs_status unqueued_pull(rs_backend *b, const rs_be_pull *job, void *stream) {
  (void)b, (void)job, (void)stream;
  return rs_fail(RS_ERR_DEVICE, "test: the pull could not be queued");
}

static rs_status lost_pull(rs_backend *b, const rs_be_pull *job, void *stream) {
  (void)b, (void)job, (void)stream;
  return RS_OK;
}

static void pull_round_trip_ok(rs_array *h, rs_array *d, rs_array *back, size_t n) {
  CHECK_OK(rs_array_copy(d, h, NULL));
  CHECK_OK(rs_array_copy(back, d, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(back), rs_array_host_data(h), n);
}

/* A pageable source and result and a device array of n bytes, the source patterned, and
 * one round trip done, so that the arena and the pull flags exist. */
static void pull_arrays(rs_context *c, int64_t n, uint64_t seed, rs_array **h, rs_array **d, rs_array **back) {
  CHECK_OK(rs_host_array(h, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(back, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(d, c, 1, &n, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(*h), (size_t)n, seed);
  pull_round_trip_ok(*h, *d, *back, (size_t)n);
}

static void test_pull_failures(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  const int64_t n = 1 << 20;
  rs_array *h = NULL, *d = NULL, *back = NULL;
  pull_arrays(c, n, 77, &h, &d, &back);
  CHECK_PASSING();
  const rs_backend_vtable *real = c->vt;
  rs_backend_vtable broken = *real;

  broken.stage_pull = unqueued_pull;
  c->vt = &broken;
  rs_status st = rs_array_copy(d, h, NULL);
  c->vt = real;
  CHECK_EQ_I64(st, RS_ERR_DEVICE);
  CHECK(rs_t_contains_(rs_last_error(), "could not be queued"));
  rs_t_pattern_(rs_array_host_data(h), (size_t)n, 78);
  pull_round_trip_ok(h, d, back, (size_t)n);

  broken.stage_pull = lost_pull;
  c->vt = &broken;
  CHECK_OK(rs_array_copy(d, h, NULL)); /* queued nothing: its 32 slices are never freed */
  c->vt = real;
  st = rs_array_copy(d, h, NULL);
  CHECK_EQ_I64(st, RS_ERR_INTERNAL);
  CHECK_MSG(rs_t_contains_(rs_last_error(), "without reading 32 slices"), "message: %s", rs_last_error());
  rs_t_pattern_(rs_array_host_data(h), (size_t)n, 79);
  pull_round_trip_ok(h, d, back, (size_t)n);

  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(d));
  nothing_left(c);
  rs_context_destroy(c);
}

/* What a staged copy asks of the driver once the arena exists, counted through the
 * backend's table: the ledger times a pageable copy on the host clock (no event records),
 * and a D2H that saw its last DMA complete leaves nothing to synchronize, for the copy
 * path or for the next copy's check of the arena. */
static const rs_backend_vtable *g_real;
static int g_stream_syncs, g_event_syncs, g_records;
static rs_status counting_stream_sync(rs_backend *b, void *s) {
  g_stream_syncs++;
  return g_real->stream_synchronize(b, s);
}
static rs_status counting_event_sync(rs_backend *b, void *ev) {
  g_event_syncs++;
  return g_real->event_synchronize(b, ev);
}
static rs_status counting_record(rs_backend *b, void *ev, void *s) {
  g_records++;
  return g_real->event_record(b, ev, s);
}

static rs_status failing_event_sync(rs_backend *b, void *ev) {
  (void)b, (void)ev;
  return rs_fail(RS_ERR_DEVICE, "test: the event could not be waited for");
}

static void test_driver_calls(rs_context *ctx) {
  rs_context *c = staged_context_threads(ctx, "3");
  CHECK(c != NULL);
  const int64_t n = 2 << 20;
  rs_array *h = NULL, *d = NULL, *back = NULL;
  CHECK_OK(rs_ledger_set_timing(c, RS_TIME_COPIES));
  pull_arrays(c, n, 91, &h, &d, &back);
  CHECK_PASSING();
  g_real = c->vt;
  rs_backend_vtable counting = *g_real;
  counting.stream_synchronize = counting_stream_sync;
  counting.event_synchronize = counting_event_sync;
  counting.event_record = counting_record;
  for (int pull = 1; pull >= 0; pull--) {
    rs_staging_allow_pull(c, pull);
    rs_t_pattern_(rs_array_host_data(h), (size_t)n, 92 + (uint64_t)pull);
    memset(rs_array_host_data(back), 0, (size_t)n);
    g_stream_syncs = g_event_syncs = g_records = 0;
    c->vt = &counting;
    rs_status st = rs_array_copy(d, h, NULL);
    const int h2d_syncs = g_stream_syncs + g_event_syncs, h2d_records = g_records;
    g_stream_syncs = g_event_syncs = g_records = 0;
    if (st == RS_OK) st = rs_array_copy(back, d, NULL);
    c->vt = g_real;
    CHECK_OK(st);
    CHECK_BYTES_EQ(rs_array_host_data(back), rs_array_host_data(h), (size_t)n);
    /* H2D: one wait (pulled: for its stream; DMA pieces: for its last DMA's event), and
     * pulled, nothing recorded; D2H: no wait beyond its pieces' events */
    CHECK_MSG(h2d_syncs == 1, "pull %d: the H2D synchronized %d times", pull, h2d_syncs);
    if (pull) CHECK_MSG(h2d_records == 0, "the pulled H2D recorded %d events", h2d_records);
    CHECK_MSG(g_stream_syncs == 0 && g_event_syncs == 0, "the D2H after it synchronized %d streams and %d events",
              g_stream_syncs, g_event_syncs);
    int idle = 0;
    CHECK_OK(g_real->stream_query(c->be, NULL, &idle));
    CHECK_MSG(idle, "the legacy stream is busy after a staged D2H returned");
  }
  /* The H2D's own wait for its last DMA failing: the copy fails, naming it, and the next
   * round trip is right. */
  counting.event_synchronize = failing_event_sync;
  c->vt = &counting;
  rs_status st = rs_array_copy(d, h, NULL);
  c->vt = g_real;
  CHECK_EQ_I64(st, RS_ERR_DEVICE);
  CHECK_MSG(rs_t_contains_(rs_last_error(), "last piece's DMA"), "message: %s", rs_last_error());
  rs_t_pattern_(rs_array_host_data(h), (size_t)n, 95);
  pull_round_trip_ok(h, d, back, (size_t)n);
  rs_staging_allow_pull(c, 1);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(c, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][0], 5); /* the failed one is recorded too */
  CHECK_EQ_I64(s.copies[RS_D2H][0], 4);
  CHECK_MSG(s.copy_device_ms[RS_D2H][0] > 0, "the D2H copies have no device time");
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(d));
  nothing_left(c);
  rs_context_destroy(c);
}

static const rs_test_case tests[] = {RS_TEST(test_cut), RS_TEST(test_sizes), RS_TEST(test_lanes), RS_TEST(test_claimed_slices),
                                     RS_TEST(test_host_copy_lanes), RS_TEST(test_directions_and_streams),
                                     RS_TEST(test_arena_walk), RS_TEST(test_strided), RS_TEST(test_bad_setting),
                                     RS_TEST(test_pulled_sizes), RS_TEST(test_pulled_alignment), RS_TEST(test_pulled_ring),
                                     RS_TEST(test_pulled_threads), RS_TEST(test_pull_failures),
                                     RS_TEST(test_driver_calls)};
RS_TEST_MAIN(tests)
