/* The strided copy (rs_array_copy's path, and the manipulation ops built on it) over the
 * layouts its planner and kernels treat apart, checked byte for byte against a plain host
 * loop over the views' own shapes, strides and offsets: contiguous runs whose two ends sit
 * at every alignment (roll), reversed axes inner and outer (flip), broadcast axes inner,
 * outer and in between (repeat, tile), column blocks at odd offsets (concat along an inner
 * axis), transposes, a strided destination, every itemsize 1/2/4/8/16, base pointers
 * misaligned by 0..15 bytes, 0-d and empty arrays, rows that are no whole number of
 * 16-byte words, and copies of 18-64 MB that wrap the GPU's grid-stride loops. Every view
 * is wrapped at a byte offset inside a device byte region; the whole destination region
 * is compared, so a byte written outside the view fails too. On the GPU this is the row
 * kernel and the general kernel of src/backend/cuda/cuda_copy*.cu. */
#include "harness.h"
#include "resident/manip.h"

/* A helper's failed check stops the calling test too. */
#define SUB(call)                 \
  do {                            \
    call;                         \
    if (rs_t_.failed) return;     \
  } while (0)

static const rs_dtype kTypes[] = {RS_UINT8, RS_UINT16, RS_UINT32, RS_UINT64, RS_COMPLEX128};
#define NTYPES ((int)(sizeof kTypes / sizeof kTypes[0]))

/* A device byte array filled with a pseudo-random pattern. */
typedef struct region {
  rs_array *buf;
  char *dev;
  int64_t bytes;
} region;

static void region_new(region *r, rs_context *ctx, int64_t bytes, uint64_t seed) {
  memset(r, 0, sizeof *r);
  r->bytes = bytes < 1 ? 1 : bytes;
  CHECK_OK(rs_device_array(&r->buf, ctx, 1, &r->bytes, RS_UINT8, NULL, RS_ORDER_C));
  unsigned char *h = (unsigned char *)malloc((size_t)r->bytes);
  CHECK(h != NULL);
  rs_t_pattern_(h, (size_t)r->bytes, seed);
  rs_status st = rs_t_write_(r->buf, h);
  free(h);
  CHECK_OK(st);
  r->dev = (char *)rs_array_device_data(r->buf);
  CHECK(r->dev != NULL);
}

/* All bytes of the region (one contiguous copy to the host). */
static rs_status region_read(const region *r, unsigned char *out) {
  rs_array *h = NULL;
  rs_status st = rs_copy_to_host(&h, r->buf, NULL);
  if (st == RS_OK) st = rs_context_synchronize(rs_array_context(h));
  if (st == RS_OK) memcpy(out, rs_array_host_data(h), (size_t)r->bytes);
  rs_array_release(h);
  return st;
}

static void region_free(region *r) {
  if (r->buf) CHECK_OK(rs_array_release(r->buf));
  r->buf = NULL;
}

/* A typed view of the region at byte offset off (strides NULL: C order). */
static void wrap(rs_array **v, rs_context *ctx, region *r, int64_t off, int ndim, const int64_t *shape, rs_dtype dt,
                 const int64_t *strides) {
  static const int64_t none[1] = {1};
  CHECK_OK(rs_device_array_wrap(v, ctx, r->dev + off, ndim, ndim ? shape : none, dt, strides, NULL, NULL, NULL));
}

/* dv = sv through rs_array_copy (ops == 0) or the given op's result already in dv
 * (ops == 1: only the check). dv lies at byte doff of D, sv at soff of S; d0 and s0 are
 * the regions' bytes before. */
static void expect_copy(region *D, int64_t doff, const rs_array *dv, const unsigned char *d0, const unsigned char *s0,
                        int64_t soff, const rs_array *sv, const char *what) {
  unsigned char *e = (unsigned char *)malloc((size_t)D->bytes), *got = (unsigned char *)malloc((size_t)D->bytes);
  if (!e || !got) {
    free(e);
    free(got);
    FAIL("%s: no host memory", what);
  }
  memcpy(e, d0, (size_t)D->bytes);
  int nd = rs_array_ndim(dv);
  const int64_t *shape = rs_array_shape(dv), *dst = rs_array_strides(dv), *sst = rs_array_strides(sv);
  size_t isz = rs_array_itemsize(dv);
  int64_t idx[RS_MAX_DIMS] = {0};
  int bad = 0;
  const int64_t dbase = doff + rs_array_offset(dv), sbase = soff + rs_array_offset(sv);
  if (rs_array_size(dv) > 0) {
    do {
      int64_t dp = dbase, sp = sbase;
      for (int k = 0; k < nd; k++) dp += idx[k] * dst[k], sp += idx[k] * sst[k];
      if (dp < 0 || dp + (int64_t)isz > D->bytes || sp < 0) {
        bad = 1;
        break;
      }
      memcpy(e + dp, s0 + sp, isz);
    } while (rs_t_next_index_(idx, nd, shape));
  }
  rs_status st = bad ? RS_OK : region_read(D, got);
  int64_t diff = bad || st != RS_OK ? -1 : rs_t_first_diff_(e, got, (size_t)D->bytes);
  unsigned ev = diff >= 0 ? e[diff] : 0, gv = diff >= 0 ? got[diff] : 0;
  free(e);
  free(got);
  CHECK_MSG(!bad, "%s: the test's views reach outside their regions", what);
  CHECK_OK(st);
  CHECK_MSG(diff < 0, "%s: byte %lld of the destination region is %u, expected %u", what, (long long)diff, gv, ev);
}

/* Copy sv into dv with rs_array_copy and check the destination region. */
static void check_copy(region *D, int64_t doff, const rs_array *dv, region *S, int64_t soff, const rs_array *sv,
                       const char *what) {
  unsigned char *d0 = (unsigned char *)malloc((size_t)D->bytes), *s0 = (unsigned char *)malloc((size_t)S->bytes);
  rs_status st = d0 && s0 ? region_read(D, d0) : RS_ERR_HOST_OUT_OF_MEMORY;
  if (st == RS_OK) st = region_read(S, s0);
  if (st == RS_OK) {
    st = rs_array_copy((rs_array *)dv, sv, NULL);
    if (st != RS_OK) printf("\n    %s: rs_array_copy: %s \"%s\"\n", what, rs_status_name(st), rs_t_msg_());
  }
  if (st == RS_OK) expect_copy(D, doff, dv, d0, s0, soff, sv, what);
  free(d0);
  free(s0);
  CHECK_OK(st);
}

/* sv (a view of S at soff) copied into a fresh C-order view of D at doff. */
static void copy_to_dense(rs_context *ctx, region *S, int64_t soff, const rs_array *sv, int64_t doff,
                          const char *what) {
  region D;
  int64_t bytes = doff + (int64_t)rs_array_nbytes(sv) + 16;
  SUB(region_new(&D, ctx, bytes, 77));
  rs_array *dv = NULL;
  wrap(&dv, ctx, &D, doff, rs_array_ndim(sv), rs_array_shape(sv), rs_array_dtype(sv), NULL);
  if (dv) check_copy(&D, doff, dv, S, soff, sv, what);
  rs_array_release(dv);
  region_free(&D);
}

/* Contiguous runs at every pair of alignments: the roll and concat 1-d case. */
static void test_runs_every_alignment(rs_context *ctx) {
  const int64_t lens[] = {1, 7, 37, 1001};
  for (int t = 0; t < NTYPES; t++) {
    size_t isz = rs_dtype_size(kTypes[t]);
    for (int li = 0; li < 4; li++) {
      int64_t n = lens[li];
      region S;
      SUB(region_new(&S, ctx, n * (int64_t)isz + 32, 1 + t));
      for (int md = 0; md < 16; md++) {
        const int ms_list[4] = {0, md, (md + 5) % 16, 15 - md};
        for (int j = 0; j < 4; j++) {
          int ms = ms_list[j];
          rs_array *sv = NULL;
          wrap(&sv, ctx, &S, ms, 1, &n, kTypes[t], NULL);
          char what[160];
          snprintf(what, sizeof what, "run of %lld %s, dst +%d, src +%d", (long long)n, rs_dtype_name(kTypes[t]),
                   md, ms);
          if (sv) copy_to_dense(ctx, &S, ms, sv, md, what);
          rs_array_release(sv);
          if (rs_t_.failed) break;
        }
        if (rs_t_.failed) break;
      }
      region_free(&S);
      if (rs_t_.failed) return;
    }
  }
}

/* Reversed axes (negative strides): inner, outer, both; rows of 1..33 items. */
static void test_flips(rs_context *ctx) {
  const int64_t rows[] = {1, 3, 5}, cols[] = {1, 3, 4, 5, 16, 33};
  const int offs[][2] = {{0, 0}, {1, 4}, {8, 13}, {4, 0}, {12, 8}};
  const char *names[] = {"inner", "outer", "both"};
  const rs_slice rev = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1};
  for (int t = 0; t < NTYPES; t++) {
    size_t isz = rs_dtype_size(kTypes[t]);
    for (int ri = 0; ri < 3; ri++)
      for (int ci = 0; ci < 6; ci++)
        for (int oi = 0; oi < 5; oi++)
          for (int how = 0; how < 3; how++) {
            int64_t shape[2] = {rows[ri], cols[ci]};
            int md = offs[oi][0], ms = offs[oi][1];
            region S;
            SUB(region_new(&S, ctx, shape[0] * shape[1] * (int64_t)isz + 32, 10 + t));
            rs_array *base = NULL, *sv = NULL;
            wrap(&base, ctx, &S, ms, 2, shape, kTypes[t], NULL);
            rs_slice sl[2] = {how == 0 ? RS_SLICE_ALL : rev, how == 1 ? RS_SLICE_ALL : rev};
            if (base) CHECK_OK(rs_array_slice(&sv, base, 2, sl));
            char what[160];
            snprintf(what, sizeof what, "flip %s of (%lld, %lld) %s, dst +%d, src +%d", names[how],
                     (long long)shape[0], (long long)shape[1], rs_dtype_name(kTypes[t]), md, ms);
            if (sv) copy_to_dense(ctx, &S, ms, sv, md, what);
            rs_array_release(sv);
            rs_array_release(base);
            region_free(&S);
            if (rs_t_.failed) return;
          }
  }
}

/* The source (shape src_shape) seen through inserted unit axes (at `at`, in order) and
 * broadcast to `to`; copied into a dense view. */
static void broadcast_case(rs_context *ctx, rs_dtype dt, int snd, const int64_t *src_shape, int nins, const int *at,
                           int tnd, const int64_t *to, int md, int ms, const char *label) {
  int64_t n = 1;
  for (int k = 0; k < snd; k++) n *= src_shape[k];
  region S;
  SUB(region_new(&S, ctx, n * (int64_t)rs_dtype_size(dt) + 32, 20 + (uint64_t)dt));
  rs_array *cur = NULL, *next = NULL;
  wrap(&cur, ctx, &S, ms, snd, src_shape, dt, NULL);
  for (int i = 0; i < nins && cur; i++) {
    rs_status st = rs_array_expand_dims(&next, cur, at[i]);
    rs_array_release(cur);
    cur = next;
    next = NULL;
    if (st != RS_OK) CHECK_OK(st);
  }
  if (cur) {
    rs_status st = rs_array_broadcast_to(&next, cur, tnd, to);
    if (st == RS_OK) {
      char what[200];
      snprintf(what, sizeof what, "%s %s, dst +%d, src +%d", label, rs_dtype_name(dt), md, ms);
      copy_to_dense(ctx, &S, ms, next, md, what);
    } else {
      printf("\n    %s: broadcast_to: %s \"%s\"\n", label, rs_status_name(st), rs_t_msg_());
    }
    rs_array_release(next);
    rs_array_release(cur);
    CHECK_OK(st);
  }
  region_free(&S);
}

/* Broadcast axes (stride 0) inner (repeat), outer (tile), both, in between; several. */
static void test_broadcasts(rs_context *ctx) {
  const int64_t lens[] = {1, 7, 33};
  const int64_t ks[] = {1, 2, 3, 4, 5, 8, 16};
  const int offs[][2] = {{0, 0}, {4, 3}, {7, 8}};
  for (int t = 0; t < NTYPES; t++)
    for (int li = 0; li < 3; li++)
      for (int ki = 0; ki < 7; ki++)
        for (int oi = 0; oi < 3; oi++) {
          rs_dtype dt = kTypes[t];
          int64_t n = lens[li], k = ks[ki];
          int md = offs[oi][0], ms = offs[oi][1];
          char label[120];
          snprintf(label, sizeof label, "repeat-like (%lld,) -> (%lld, %lld)", (long long)n, (long long)n, (long long)k);
          SUB(broadcast_case(ctx, dt, 1, &n, 1, (const int[]){1}, 2, (const int64_t[]){n, k}, md, ms, label));
          snprintf(label, sizeof label, "tile-like (%lld,) -> (%lld, %lld)", (long long)n, (long long)k, (long long)n);
          SUB(broadcast_case(ctx, dt, 1, &n, 1, (const int[]){0}, 2, (const int64_t[]){k, n}, md, ms, label));
          snprintf(label, sizeof label, "both (%lld,) -> (%lld, %lld, 3)", (long long)n, (long long)k, (long long)n);
          SUB(broadcast_case(ctx, dt, 1, &n, 2, (const int[]){0, 2}, 3, (const int64_t[]){k, n, 3}, md, ms, label));
          const int64_t ab[2] = {3, n};
          snprintf(label, sizeof label, "middle (3, %lld) -> (3, %lld, %lld)", (long long)n, (long long)k, (long long)n);
          SUB(broadcast_case(ctx, dt, 2, ab, 1, (const int[]){1}, 3, (const int64_t[]){3, k, n}, md, ms, label));
          snprintf(label, sizeof label, "tile 2-d (3, %lld) -> (2, 3, %lld, %lld)", (long long)n, (long long)k,
                   (long long)n);
          SUB(broadcast_case(ctx, dt, 2, ab, 2, (const int[]){0, 2}, 4, (const int64_t[]){2, 3, k, n}, md, ms,
                             label));
        }
}

/* Column blocks at odd offsets of a wider destination (concat along the inner axis), a
 * destination with a step (the general kernel), transposes. */
static void test_blocks_strided_transposed(rs_context *ctx) {
  const int64_t c0s[] = {0, 1, 2, 3, 5}, ws[] = {1, 3, 4, 7, 16, 21};
  for (int t = 0; t < NTYPES; t++) {
    rs_dtype dt = kTypes[t];
    int64_t isz = (int64_t)rs_dtype_size(dt);
    for (int ci = 0; ci < 5; ci++)
      for (int wi = 0; wi < 6; wi++)
        for (int mis = 0; mis < 2; mis++) {
          int64_t R = 3, w = ws[wi], W = c0s[ci] + w + 2, dshape[2] = {R, W}, sshape[2] = {R, w};
          int md = mis ? 6 : 0, ms = mis ? 1 : 0;
          region D, S;
          SUB(region_new(&D, ctx, R * W * isz + 32, 30));
          region_new(&S, ctx, R * w * isz + 32, 31);
          rs_array *dbase = NULL, *dv = NULL, *sv = NULL;
          wrap(&dbase, ctx, &D, md, 2, dshape, dt, NULL);
          wrap(&sv, ctx, &S, ms, 2, sshape, dt, NULL);
          rs_slice sl[2] = {RS_SLICE_ALL, {c0s[ci], c0s[ci] + w, 1}};
          if (dbase) CHECK_OK(rs_array_slice(&dv, dbase, 2, sl));
          char what[160];
          snprintf(what, sizeof what, "block cols [%lld, %lld) of (%lld, %lld) %s, dst +%d, src +%d",
                   (long long)c0s[ci], (long long)(c0s[ci] + w), (long long)R, (long long)W, rs_dtype_name(dt), md,
                   ms);
          if (dv && sv) check_copy(&D, md, dv, &S, ms, sv, what);
          rs_array_release(dv);
          rs_array_release(dbase);
          rs_array_release(sv);
          region_free(&S);
          region_free(&D);
          if (rs_t_.failed) return;
        }
    for (int step = -2; step <= 2; step += 4) { /* every other column, forwards and backwards */
      int64_t R = 4, C = 9, dshape[2] = {R, 2 * C}, sshape[2] = {R, C};
      region D, S;
      SUB(region_new(&D, ctx, R * 2 * C * isz + 32, 32));
      region_new(&S, ctx, R * C * isz + 32, 33);
      rs_array *dbase = NULL, *dv = NULL, *sv = NULL;
      wrap(&dbase, ctx, &D, 3, 2, dshape, dt, NULL);
      wrap(&sv, ctx, &S, 5, 2, sshape, dt, NULL);
      rs_slice sl[2] = {RS_SLICE_ALL, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, step}};
      if (dbase) CHECK_OK(rs_array_slice(&dv, dbase, 2, sl));
      char what[160];
      snprintf(what, sizeof what, "strided dst step %d %s", step, rs_dtype_name(dt));
      if (dv && sv) check_copy(&D, 3, dv, &S, 5, sv, what);
      rs_array_release(dv);
      rs_array_release(dbase);
      rs_array_release(sv);
      region_free(&S);
      region_free(&D);
      if (rs_t_.failed) return;
    }
    const int64_t tr[][2] = {{3, 5}, {17, 33}, {64, 64}, {1, 9}};
    for (int i = 0; i < 4; i++) {
      region S;
      SUB(region_new(&S, ctx, tr[i][0] * tr[i][1] * isz + 32, 34));
      rs_array *base = NULL, *sv = NULL;
      wrap(&base, ctx, &S, 2, 2, tr[i], dt, NULL);
      if (base) CHECK_OK(rs_array_transpose(&sv, base));
      char what[160];
      snprintf(what, sizeof what, "transpose of (%lld, %lld) %s", (long long)tr[i][0], (long long)tr[i][1],
               rs_dtype_name(dt));
      if (sv) copy_to_dense(ctx, &S, 2, sv, 9, what);
      rs_array_release(sv);
      rs_array_release(base);
      region_free(&S);
      if (rs_t_.failed) return;
    }
    {
      const int64_t s3[3] = {3, 4, 5};
      region S;
      SUB(region_new(&S, ctx, 60 * isz + 32, 35));
      rs_array *base = NULL, *sv = NULL;
      wrap(&base, ctx, &S, 0, 3, s3, dt, NULL);
      if (base) CHECK_OK(rs_array_permute(&sv, base, (const int[]){2, 0, 1}));
      if (sv) copy_to_dense(ctx, &S, 0, sv, 1, "permute (2, 0, 1) of (3, 4, 5)");
      rs_array_release(sv);
      rs_array_release(base);
      region_free(&S);
      if (rs_t_.failed) return;
    }
  }
}

/* 0-d (one item at odd addresses) and empty arrays. */
static void test_zero_d_and_empty(rs_context *ctx) {
  for (int t = 0; t < NTYPES; t++) {
    rs_dtype dt = kTypes[t];
    for (int ms = 0; ms < 16; ms += 5) {
      region S;
      SUB(region_new(&S, ctx, 64, 40));
      rs_array *sv = NULL;
      wrap(&sv, ctx, &S, ms, 0, NULL, dt, NULL);
      char what[120];
      snprintf(what, sizeof what, "0-d %s, src +%d", rs_dtype_name(dt), ms);
      if (sv) copy_to_dense(ctx, &S, ms, sv, (ms * 3) % 16, what);
      rs_array_release(sv);
      region_free(&S);
      if (rs_t_.failed) return;
    }
    const int64_t empties[][2] = {{0, 5}, {5, 0}};
    for (int i = 0; i < 2; i++) {
      region S;
      SUB(region_new(&S, ctx, 64, 41));
      rs_array *sv = NULL;
      wrap(&sv, ctx, &S, 3, 2, empties[i], dt, NULL);
      if (sv) copy_to_dense(ctx, &S, 3, sv, 1, "empty");
      rs_array_release(sv);
      region_free(&S);
      if (rs_t_.failed) return;
    }
  }
}

/* 18-64 MB: more words than one pass of the GPU's grid, so the grid-stride loops wrap;
 * the tiles are big enough that the GPU loops their broadcast axes in the thread. */
static void test_large(rs_context *ctx) {
  {
    int64_t n = 16 << 20;
    region S;
    SUB(region_new(&S, ctx, n * 4 + 32, 50));
    rs_array *sv = NULL;
    wrap(&sv, ctx, &S, 0, 1, &n, RS_UINT32, NULL);
    if (sv) copy_to_dense(ctx, &S, 0, sv, 4, "64 MB run, dst +4");
    rs_array_release(sv);
    region_free(&S);
    if (rs_t_.failed) return;
  }
  /* Big enough that the row kernel loops the broadcast axes in the thread on the H200:
   * the rest must fill a wave of tiles, 132 SMs x 4 blocks x 1024 words = 8.7 MB. */
  {
    int64_t n = 3 << 20; /* 12 MB of uint32 */
    SUB(broadcast_case(ctx, RS_UINT32, 1, &n, 1, (const int[]){0}, 2, (const int64_t[]){3, n}, 0, 0,
                       "tile 3 x 12 MB"));
    SUB(broadcast_case(ctx, RS_UINT32, 1, &n, 1, (const int[]){0}, 2, (const int64_t[]){3, n}, 4, 12,
                       "tile 3 x 12 MB misaligned"));
  }
  {
    const int64_t ab[2] = {2048, 1200};
    SUB(broadcast_case(ctx, RS_UINT32, 2, ab, 2, (const int[]){0, 2}, 4, (const int64_t[]){2, 2048, 3, 1200}, 0, 0,
                       "tile (2, 3) of (2048, 1200)"));
  }
  {
    int64_t n = 2 << 20;
    SUB(broadcast_case(ctx, RS_UINT32, 1, &n, 1, (const int[]){1}, 2, (const int64_t[]){n, 4}, 0, 0,
                       "repeat 4 x 8 MB"));
    SUB(broadcast_case(ctx, RS_UINT16, 1, &n, 1, (const int[]){1}, 2, (const int64_t[]){n, 3}, 2, 0,
                       "repeat 3 x 4 MB"));
  }
  {
    int64_t shape[2] = {2048, 4096};
    region S;
    SUB(region_new(&S, ctx, 2048 * 4096 * 4 + 32, 51));
    rs_array *base = NULL, *sv = NULL;
    wrap(&base, ctx, &S, 0, 2, shape, RS_UINT32, NULL);
    rs_slice sl[2] = {RS_SLICE_ALL, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1}};
    if (base) CHECK_OK(rs_array_slice(&sv, base, 2, sl));
    if (sv) copy_to_dense(ctx, &S, 0, sv, 0, "flip inner of 32 MB");
    rs_array_release(sv);
    rs_array_release(base);
    region_free(&S);
  }
}

/* A device array of n items of dt holding a byte pattern; its bytes in *host. */
static void pattern_array(rs_array **a, unsigned char **host, rs_context *ctx, rs_dtype dt, int64_t n, uint64_t seed) {
  size_t bytes = (size_t)n * rs_dtype_size(dt);
  *host = (unsigned char *)malloc(bytes ? bytes : 1);
  CHECK(*host != NULL);
  rs_t_pattern_(*host, bytes, seed);
  CHECK_OK(rs_device_array(a, ctx, 1, &n, dt, NULL, RS_ORDER_C));
  CHECK_OK(rs_t_write_(*a, *host));
}

/* out (n items) holds want (n items) byte for byte. */
static void expect_bytes(const rs_array *out, const unsigned char *want, int64_t n, const char *what) {
  size_t bytes = (size_t)n * rs_array_itemsize(out);
  CHECK_MSG(rs_array_size(out) == n, "%s: %lld items, expected %lld", what, (long long)rs_array_size(out),
            (long long)n);
  unsigned char *got = (unsigned char *)malloc(bytes ? bytes : 1);
  CHECK(got != NULL);
  rs_status st = rs_t_read_(out, got);
  int64_t diff = st == RS_OK ? rs_t_first_diff_(got, want, bytes) : -1;
  free(got);
  CHECK_OK(st);
  CHECK_MSG(diff < 0, "%s: byte %lld differs", what, (long long)diff);
}

/* The ops on the copy: roll by every offset 0..17 of an odd length, tile, repeat and
 * concat of pieces at unaligned offsets, against plain loops. */
static void test_ops_on_the_copy(rs_context *ctx) {
  const rs_dtype dts[] = {RS_UINT8, RS_FLOAT32, RS_COMPLEX128};
  for (int t = 0; t < 3; t++) {
    rs_dtype dt = dts[t];
    size_t isz = rs_dtype_size(dt);
    int64_t n = 1001;
    rs_array *a = NULL;
    unsigned char *ha = NULL;
    SUB(pattern_array(&a, &ha, ctx, dt, n, 60 + t));
    unsigned char *want = (unsigned char *)malloc((size_t)(4 * n) * isz);
    CHECK(want != NULL);
    for (int64_t k = 0; k <= 17 && !rs_t_.failed; k++) {
      for (int64_t i = 0; i < n; i++) memcpy(want + ((i + k) % n) * isz, ha + i * isz, isz);
      rs_array *out = NULL;
      rs_status st = rs_roll(&out, a, 1, &k, (const int[]){0}, NULL);
      char what[80];
      snprintf(what, sizeof what, "roll %lld of %lld %s", (long long)k, (long long)n, rs_dtype_name(dt));
      if (st == RS_OK) expect_bytes(out, want, n, what);
      else printf("\n    %s: %s \"%s\"\n", what, rs_status_name(st), rs_t_msg_());
      rs_array_release(out);
      if (st != RS_OK) rs_t_.failed = 1;
    }
    if (!rs_t_.failed) { /* tile 4 and repeat 4 */
      rs_array *out = NULL;
      for (int64_t r = 0; r < 4; r++) memcpy(want + r * n * (int64_t)isz, ha, (size_t)n * isz);
      rs_status st = rs_tile(&out, a, 1, (const int64_t[]){4}, NULL);
      if (st == RS_OK) expect_bytes(out, want, 4 * n, "tile 4");
      rs_array_release(out);
      out = NULL;
      if (st != RS_OK) rs_t_.failed = 1;
      for (int64_t i = 0; i < n && !rs_t_.failed; i++)
        for (int r = 0; r < 4; r++) memcpy(want + (4 * i + r) * (int64_t)isz, ha + i * (int64_t)isz, isz);
      st = rs_t_.failed ? RS_OK : rs_repeat(&out, a, 1, (const int64_t[]){4}, 0, NULL);
      if (st == RS_OK && out) expect_bytes(out, want, 4 * n, "repeat 4");
      rs_array_release(out);
      if (st != RS_OK) rs_t_.failed = 1;
    }
    if (!rs_t_.failed) { /* concat of pieces 3, 5, 7, 1001: every piece starts misaligned */
      rs_array *p3 = NULL, *p5 = NULL, *p7 = NULL, *out = NULL;
      rs_slice s3 = {0, 3, 1}, s5 = {3, 8, 1}, s7 = {8, 15, 1};
      rs_status st = rs_array_slice(&p3, a, 1, &s3);
      if (st == RS_OK) st = rs_array_slice(&p5, a, 1, &s5);
      if (st == RS_OK) st = rs_array_slice(&p7, a, 1, &s7);
      if (st == RS_OK) st = rs_concat(&out, 4, (const rs_array *[]){p3, p5, p7, a}, 0, NULL);
      memcpy(want, ha, 15 * isz);
      memcpy(want + 15 * isz, ha, (size_t)n * isz);
      if (st == RS_OK) expect_bytes(out, want, 15 + n, "concat 3, 5, 7, n");
      rs_array_release(out);
      rs_array_release(p3);
      rs_array_release(p5);
      rs_array_release(p7);
      if (st != RS_OK) rs_t_.failed = 1;
    }
    free(want);
    free(ha);
    rs_array_release(a);
    if (rs_t_.failed) FAIL("%s: see above", rs_dtype_name(dt));
  }
}

static const rs_test_case tests[] = {
    RS_TEST(test_runs_every_alignment), RS_TEST(test_flips), RS_TEST(test_broadcasts),
    RS_TEST(test_blocks_strided_transposed), RS_TEST(test_zero_d_and_empty), RS_TEST(test_large),
    RS_TEST(test_ops_on_the_copy),
};
RS_TEST_MAIN(tests)
