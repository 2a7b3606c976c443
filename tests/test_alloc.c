/* Allocation of every memory kind, wrapping, explicit strides, *_like, the pinned and
 * mapped scopes, zero-size and 0-d arrays. */
#include <stdatomic.h>
#include "harness.h"

#define S1(a) ((const int64_t[]){a})
#define S2(a, b) ((const int64_t[]){a, b})
#define S3(a, b, c) ((const int64_t[]){a, b, c})

static void check_meta(const rs_array *a, rs_context *ctx, rs_mem_kind kind, int ndim,
                       const int64_t *shape, rs_dtype dt, const int64_t *strides) {
  CHECK(a != NULL);
  CHECK_MSG(rs_array_kind(a) == kind, "kind %s, expected %s", rs_mem_kind_name(rs_array_kind(a)),
            rs_mem_kind_name(kind));
  CHECK(rs_array_context(a) == ctx);
  CHECK_EQ_I64(rs_array_ndim(a), ndim);
  CHECK_EQ_I64(rs_array_dtype(a), dt);
  CHECK_EQ_I64(rs_array_itemsize(a), rs_dtype_size(dt));
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    CHECK_MSG(rs_array_shape(a)[d] == shape[d], "shape[%d] = %lld, expected %lld", d,
              (long long)rs_array_shape(a)[d], (long long)shape[d]);
    if (strides)
      CHECK_MSG(rs_array_strides(a)[d] == strides[d], "strides[%d] = %lld, expected %lld", d,
                (long long)rs_array_strides(a)[d], (long long)strides[d]);
    n *= shape[d];
  }
  CHECK_EQ_I64(rs_array_size(a), n);
  CHECK_EQ_I64(rs_array_nbytes(a), n * (int64_t)rs_dtype_size(dt));
  CHECK_EQ_I64(rs_array_offset(a), 0);
  int host_visible = kind != RS_MEM_DEVICE;
  int device_visible = kind == RS_MEM_DEVICE || kind == RS_MEM_MAPPED || kind == RS_MEM_MANAGED;
  if (n > 0) {
    CHECK_MSG((rs_array_host_data(a) != NULL) == host_visible, "%s array: host_data %p",
              rs_mem_kind_name(kind), rs_array_host_data(a));
    CHECK_MSG((rs_array_device_data(a) != NULL) == device_visible, "%s array: device_data %p",
              rs_mem_kind_name(kind), rs_array_device_data(a));
  }
}

/* Round trip a host-visible array's current contents through a new device array and
 * back into a fresh host array; the result must equal `expect` (n doubles, C order). */
static void round_trip_f64(const rs_array *src, const double *expect, int64_t n) {
  rs_array *d = NULL;
  double *got = (double *)malloc((size_t)n * sizeof(double));
  CHECK(got != NULL);
  for (int64_t i = 0; i < n; i++) got[i] = -7.0;
  rs_status st = rs_to_device(&d, src, 0, NULL);
  if (st == RS_OK) st = rs_t_read_(d, got);
  rs_array_release(d);
  int bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (got[i] != expect[i]) bad = (int)i;
  double gb = bad >= 0 ? got[bad] : 0.0;
  free(got);
  CHECK_MSG(st == RS_OK, "round trip: %s \"%s\"", rs_status_name(st), rs_t_msg_());
  CHECK_MSG(bad < 0, "round trip: element %d is %g, expected %g", bad, gb, expect[bad]);
}

static void test_kind_names(rs_context *ctx) {
  (void)ctx;
  CHECK_STREQ(rs_mem_kind_name(RS_MEM_DEVICE), "device");
  CHECK_STREQ(rs_mem_kind_name(RS_MEM_HOST), "host");
  CHECK_STREQ(rs_mem_kind_name(RS_MEM_PINNED), "pinned");
  CHECK_STREQ(rs_mem_kind_name(RS_MEM_MAPPED), "mapped");
  CHECK_STREQ(rs_mem_kind_name(RS_MEM_MANAGED), "managed");
}

static void test_device_array(rs_context *ctx) {
  rs_array *d = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 2, S2(3, 5), RS_FLOAT32, NULL, RS_ORDER_C));
  check_meta(d, ctx, RS_MEM_DEVICE, 2, S2(3, 5), RS_FLOAT32, S2(20, 4));
  CHECK_PASSING();
  CHECK_EQ_I64(rs_array_is_c_contiguous(d), 1);
  CHECK_EQ_I64(rs_array_is_f_contiguous(d), 0);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_EQ_I64(st.buffers, 1);
  CHECK(st.device_bytes >= 60);
  CHECK_EQ_I64(st.host_bytes, 0);
  float vals[15], got[15];
  for (int i = 0; i < 15; i++) vals[i] = (float)i * 1.25f - 3.0f;
  CHECK_OK(rs_t_write_(d, vals));
  CHECK_OK(rs_t_read_(d, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  char buf[128];
  CHECK_STREQ(rs_array_describe(d, buf, sizeof buf), "float32(3, 5) device C");
  char small[8];
  rs_array_describe(d, small, sizeof small);
  CHECK(memchr(small, '\0', sizeof small) != NULL);
  CHECK_OK(rs_array_release(d));
}

static void test_host_array(rs_context *ctx) {
  rs_array *h = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(10, 7), RS_FLOAT64, NULL, RS_ORDER_C));
  check_meta(h, ctx, RS_MEM_HOST, 2, S2(10, 7), RS_FLOAT64, S2(56, 8));
  CHECK_PASSING();
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK(st.host_bytes >= 560);
  CHECK_EQ_I64(st.device_bytes, 0);
  double *p = (double *)rs_array_host_data(h), ref[70];
  for (int i = 0; i < 70; i++) p[i] = ref[i] = i * 0.5 + 1.0;
  round_trip_f64(h, ref, 70);
  CHECK_OK(rs_array_release(h));
}

static void test_host_wrap(rs_context *ctx) {
  float data[12];
  for (int i = 0; i < 12; i++) data[i] = (float)i;
  rs_array *w = NULL, *wt = NULL, *d = NULL;
  CHECK_OK(rs_host_array_wrap(&w, ctx, data, 2, S2(3, 4), RS_FLOAT32, NULL));
  check_meta(w, ctx, RS_MEM_HOST, 2, S2(3, 4), RS_FLOAT32, S2(16, 4));
  CHECK_PASSING();
  CHECK_MSG(rs_array_host_data(w) == (void *)data, "wrap copied the data: %p vs %p",
            rs_array_host_data(w), (void *)data);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_MSG(st.host_bytes == 0, "wrapped user memory counted as owned: host_bytes=%lld",
            (long long)st.host_bytes);
  /* a write through the user pointer after wrapping is what a copy sees */
  data[5] = 42.0f;
  CHECK_OK(rs_to_device(&d, w, 0, NULL));
  float got[12];
  CHECK_OK(rs_t_read_(d, got));
  CHECK_BYTES_EQ(got, data, sizeof data);
  /* a copy into the wrapped array lands in the user's memory */
  float newv[12];
  for (int i = 0; i < 12; i++) newv[i] = 100.0f + (float)i;
  CHECK_OK(rs_t_write_(d, newv));
  CHECK_OK(rs_array_copy(w, d, NULL));
  CHECK_BYTES_EQ(data, newv, sizeof data);
  /* explicit strides: the same memory seen transposed, (4,3) with strides (4,16) */
  CHECK_OK(rs_host_array_wrap(&wt, ctx, data, 2, S2(4, 3), RS_FLOAT32, S2(4, 16)));
  CHECK_EQ_I64(rs_array_is_f_contiguous(wt), 1);
  CHECK_EQ_I64(rs_array_is_c_contiguous(wt), 0);
  float tr[12];
  rs_array *dt = NULL;
  CHECK_OK(rs_to_device(&dt, wt, 0, NULL));
  CHECK_OK(rs_t_read_(dt, tr));
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 3; i++)
      CHECK_MSG(tr[j * 3 + i] == data[i * 4 + j], "transposed wrap (%d,%d): %g vs %g", j, i,
                tr[j * 3 + i], data[i * 4 + j]);
  CHECK_OK(rs_array_release(dt));
  CHECK_OK(rs_array_release(wt));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(w));
  /* the user's memory is untouched by the release */
  CHECK_BYTES_EQ(data, newv, sizeof data);
}

static void test_pinned(rs_context *ctx) {
  rs_array *p = NULL, *d = NULL, *p2 = NULL, *p3 = NULL;
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(1000), RS_FLOAT64, NULL, RS_ORDER_C, 0));
  check_meta(p, ctx, RS_MEM_PINNED, 1, S1(1000), RS_FLOAT64, S1(8));
  CHECK_PASSING();
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK(st.host_bytes >= 8000);
  double *hp = (double *)rs_array_host_data(p);
  double ref[1000];
  for (int i = 0; i < 1000; i++) hp[i] = ref[i] = 3.0 * i - 0.25;
  round_trip_f64(p, ref, 1000);
  CHECK_PASSING();
  /* _like of a device array: same shape and dtype, pinned */
  CHECK_OK(rs_to_device(&d, p, 0, NULL));
  CHECK_OK(rs_pinned_array_like(&p2, d));
  check_meta(p2, ctx, RS_MEM_PINNED, 1, S1(1000), RS_FLOAT64, S1(8));
  CHECK_PASSING();
  memset(rs_array_host_data(p2), 0, 8000);
  CHECK_OK(rs_copy_to_host_into(p2, d, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(rs_array_host_data(p2), ref, sizeof ref);
  /* the portable flag is accepted */
  CHECK_OK(rs_pinned_array(&p3, ctx, 2, S2(4, 4), RS_INT16, NULL, RS_ORDER_F, RS_HOST_PORTABLE));
  check_meta(p3, ctx, RS_MEM_PINNED, 2, S2(4, 4), RS_INT16, S2(2, 8));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(p3));
  CHECK_OK(rs_array_release(p2));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(p));
}

static void test_mapped(rs_context *ctx) {
  rs_array *m = NULL, *d = NULL, *m2 = NULL, *m3 = NULL;
  CHECK_OK(rs_mapped_array(&m, ctx, 1, S1(512), RS_FLOAT64, NULL, RS_ORDER_C, 0));
  check_meta(m, ctx, RS_MEM_MAPPED, 1, S1(512), RS_FLOAT64, S1(8));
  CHECK_PASSING();
  CHECK(rs_array_device_data(m) != NULL);
  double *hp = (double *)rs_array_host_data(m);
  double ref[512];
  for (int i = 0; i < 512; i++) hp[i] = ref[i] = 7.0 - i;
  round_trip_f64(m, ref, 512);
  CHECK_PASSING();
  CHECK_OK(rs_to_device(&d, m, 0, NULL));
  CHECK_OK(rs_mapped_array_like(&m2, d));
  check_meta(m2, ctx, RS_MEM_MAPPED, 1, S1(512), RS_FLOAT64, S1(8));
  CHECK_PASSING();
  CHECK(rs_array_device_data(m2) != NULL);
  memset(rs_array_host_data(m2), 0, 4096);
  CHECK_OK(rs_array_copy(m2, d, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(rs_array_host_data(m2), ref, sizeof ref);
  CHECK_OK(rs_mapped_array(&m3, ctx, 2, S2(8, 8), RS_FLOAT32, NULL, RS_ORDER_C,
                           RS_HOST_PORTABLE | RS_HOST_WRITE_COMBINED));
  check_meta(m3, ctx, RS_MEM_MAPPED, 2, S2(8, 8), RS_FLOAT32, S2(32, 4));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(m3));
  CHECK_OK(rs_array_release(m2));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(m));
}

static void do_managed(rs_context *ctx, rs_attach attach) {
  rs_array *m = NULL, *d = NULL;
  CHECK_OK(rs_managed_array(&m, ctx, 2, S2(16, 16), RS_FLOAT64, NULL, RS_ORDER_C, attach));
  check_meta(m, ctx, RS_MEM_MANAGED, 2, S2(16, 16), RS_FLOAT64, S2(128, 8));
  CHECK_PASSING();
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_MSG(st.device_bytes >= 2048, "managed memory not counted: device_bytes=%lld",
            (long long)st.device_bytes);
  double *hp = (double *)rs_array_host_data(m);
  double ref[256];
  for (int i = 0; i < 256; i++) hp[i] = ref[i] = i * i * 0.125;
  round_trip_f64(m, ref, 256);
  CHECK_PASSING();
  /* device -> managed, then read through the host pointer */
  double neg[256];
  for (int i = 0; i < 256; i++) neg[i] = -ref[i] - 1.0;
  CHECK_OK(rs_device_array_like(&d, m));
  CHECK_OK(rs_t_write_(d, neg));
  CHECK_OK(rs_array_copy(m, d, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(hp, neg, sizeof neg);
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(m));
}
static void test_managed_global(rs_context *ctx) { do_managed(ctx, RS_ATTACH_GLOBAL); }
static void test_managed_host(rs_context *ctx) { do_managed(ctx, RS_ATTACH_HOST); }

static void test_explicit_strides(rs_context *ctx) {
  /* (3,4) float32 with a row pitch of 8 elements: strides (32,4) */
  rs_array *d = NULL, *h = NULL, *df = NULL, *bad = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 2, S2(3, 4), RS_FLOAT32, S2(32, 4), RS_ORDER_C));
  check_meta(d, ctx, RS_MEM_DEVICE, 2, S2(3, 4), RS_FLOAT32, S2(32, 4));
  CHECK_PASSING();
  CHECK_EQ_I64(rs_array_is_c_contiguous(d), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(d), 0);
  float vals[12], got[12];
  for (int i = 0; i < 12; i++) vals[i] = (float)(i * 3 + 1);
  CHECK_OK(rs_t_write_(d, vals));
  CHECK_OK(rs_t_read_(d, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  /* the same layout on the host: element (i,j) is at byte 32i + 4j */
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(3, 4), RS_FLOAT32, S2(32, 4), RS_ORDER_C));
  check_meta(h, ctx, RS_MEM_HOST, 2, S2(3, 4), RS_FLOAT32, S2(32, 4));
  CHECK_PASSING();
  CHECK_OK(rs_array_copy(h, d, NULL));
  const char *base = (const char *)rs_array_host_data(h);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      float x;
      memcpy(&x, base + 32 * i + 4 * j, 4);
      CHECK_MSG(x == vals[i * 4 + j], "(%d,%d) at byte %d: %g", i, j, 32 * i + 4 * j, x);
    }
  /* explicit F strides make an F-contiguous array */
  CHECK_OK(rs_device_array(&df, ctx, 2, S2(3, 4), RS_FLOAT32, S2(4, 12), RS_ORDER_C));
  CHECK_EQ_I64(rs_array_is_f_contiguous(df), 1);
  CHECK_OK(rs_t_write_(df, vals));
  CHECK_OK(rs_t_read_(df, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  /* invalid: overlapping, not a multiple of the item size, negative */
  CHECK_FAILS(rs_device_array(&bad, ctx, 2, S2(3, 4), RS_FLOAT32, S2(4, 4), RS_ORDER_C));
  CHECK_FAILS(rs_device_array(&bad, ctx, 2, S2(3, 4), RS_FLOAT32, S2(16, 6), RS_ORDER_C));
  CHECK_FAILS(rs_device_array(&bad, ctx, 2, S2(3, 4), RS_FLOAT32, S2(-16, 4), RS_ORDER_C));
  CHECK_FAILS(rs_host_array(&bad, ctx, 2, S2(3, 4), RS_FLOAT32, S2(8, 4), RS_ORDER_C));
  CHECK(bad == NULL);
  CHECK_OK(rs_array_release(df));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(d));
}

static void test_like(rs_context *ctx) {
  rs_array *c = NULL, *f = NULL, *v = NULL, *l = NULL;
  CHECK_OK(rs_device_array(&c, ctx, 3, S3(2, 3, 4), RS_INT16, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&f, ctx, 3, S3(2, 3, 4), RS_INT16, NULL, RS_ORDER_F));
  CHECK_OK(rs_device_array_like(&l, c));
  check_meta(l, ctx, RS_MEM_DEVICE, 3, S3(2, 3, 4), RS_INT16, S3(24, 8, 2));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(l));
  CHECK_OK(rs_device_array_like(&l, f));
  check_meta(l, ctx, RS_MEM_DEVICE, 3, S3(2, 3, 4), RS_INT16, S3(2, 4, 12));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(l));
  /* a non-contiguous view becomes C order */
  CHECK_OK(rs_array_slice(&v, f, 3, (rs_slice[]){RS_SLICE_ALL, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -2}, {1, 4, 1}}));
  CHECK_OK(rs_device_array_like(&l, v));
  check_meta(l, ctx, RS_MEM_DEVICE, 3, S3(2, 2, 3), RS_INT16, S3(12, 6, 2));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(l));
  /* a transposed C view is F-contiguous and keeps that */
  rs_array *t = NULL;
  CHECK_OK(rs_array_transpose(&t, c));
  CHECK_OK(rs_device_array_like(&l, t));
  check_meta(l, ctx, RS_MEM_DEVICE, 3, S3(4, 3, 2), RS_INT16, S3(2, 8, 24));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(l));
  CHECK_OK(rs_array_release(t));
  /* _like across kinds */
  CHECK_OK(rs_host_array_like(&l, f));
  check_meta(l, ctx, RS_MEM_HOST, 3, S3(2, 3, 4), RS_INT16, S3(2, 4, 12));
  CHECK_PASSING();
  rs_array *l2 = NULL;
  CHECK_OK(rs_device_array_like(&l2, l));
  check_meta(l2, ctx, RS_MEM_DEVICE, 3, S3(2, 3, 4), RS_INT16, S3(2, 4, 12));
  CHECK_PASSING();
  CHECK_OK(rs_array_release(l2));
  CHECK_OK(rs_array_release(l));
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(f));
  CHECK_OK(rs_array_release(c));
}

/* ---- wrapping device memory ---------------------------------------------------------- */

static atomic_int g_release_calls;
static void *g_release_arg;
static void on_release(void *user) {
  atomic_fetch_add(&g_release_calls, 1);
  g_release_arg = user;
}

static void test_device_wrap(rs_context *ctx) {
  rs_array *d = NULL, *w = NULL, *wt = NULL;
  float vals[16], got[16];
  for (int i = 0; i < 16; i++) vals[i] = (float)i + 0.5f;
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(16), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_t_write_(d, vals));
  void *ptr = rs_array_device_data(d);
  CHECK(ptr != NULL);
  atomic_store(&g_release_calls, 0);
  g_release_arg = NULL;
  int token = 0;
  CHECK_OK(rs_device_array_wrap(&w, ctx, ptr, 2, S2(4, 4), RS_FLOAT32, NULL, NULL, on_release,
                                &token));
  check_meta(w, ctx, RS_MEM_DEVICE, 2, S2(4, 4), RS_FLOAT32, S2(16, 4));
  CHECK_PASSING();
  CHECK(rs_array_device_data(w) == ptr);
  CHECK_OK(rs_array_transpose(&wt, w));
  CHECK_OK(rs_array_release(w));
  CHECK_MSG(atomic_load(&g_release_calls) == 0, "release called while a view lives");
  /* the wrapped memory is the original: the transposed view reads it */
  CHECK_OK(rs_t_read_(wt, got));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      CHECK_MSG(got[i * 4 + j] == vals[j * 4 + i], "wrap^T(%d,%d) = %g", i, j, got[i * 4 + j]);
  /* and writes through the wrap land in the original array */
  float neg[16];
  for (int i = 0; i < 16; i++) neg[i] = -(float)i;
  CHECK_OK(rs_t_write_(wt, neg));
  CHECK_OK(rs_t_read_(d, got));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      CHECK_MSG(got[j * 4 + i] == neg[i * 4 + j], "original (%d,%d) = %g", j, i, got[j * 4 + i]);
  CHECK_EQ_I64(atomic_load(&g_release_calls), 0);
  CHECK_OK(rs_array_release(wt));
  CHECK_MSG(atomic_load(&g_release_calls) == 1, "release called %d times after the last view",
            atomic_load(&g_release_calls));
  CHECK(g_release_arg == &token);
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_EQ_I64(atomic_load(&g_release_calls), 1);
  /* the original array is unaffected by the wrapper going away */
  CHECK_OK(rs_t_read_(d, got));
  CHECK(got[1] == neg[4]);
  CHECK_OK(rs_array_release(d));
  CHECK_EQ_I64(atomic_load(&g_release_calls), 1);
}

static void test_device_wrap_wait_on(rs_context *ctx) {
  const int64_t n = 1 << 20; /* 4 MiB of float32 */
  rs_array *p = NULL, *d = NULL, *w = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  float *hp = (float *)rs_array_host_data(p);
  for (int64_t i = 0; i < n; i++) hp[i] = (float)(i % 1000) * 0.25f;
  /* queue work that produces the data, then wrap with wait_on: the host must have
   * synchronized with s when the wrap returns */
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_device_array_wrap(&w, ctx, rs_array_device_data(d), 1, S1(n), RS_FLOAT32, NULL,
                                s, NULL, NULL));
  int done = 0;
  CHECK_OK(rs_stream_query(s, &done));
  CHECK_MSG(done == 1, "stream still busy after rs_device_array_wrap(wait_on=s)");
  float *got = (float *)malloc((size_t)n * sizeof(float));
  CHECK(got != NULL);
  rs_status st = rs_t_read_(w, got);
  int64_t diff = rs_t_first_diff_(got, hp, (size_t)n * sizeof(float));
  free(got);
  CHECK_OK(st);
  CHECK_MSG(diff < 0, "wrapped data differs at byte %lld", (long long)diff);
  CHECK_OK(rs_array_release(w));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_stream_destroy(s));
}

/* ---- pinned and mapped scopes -------------------------------------------------------- */

static void do_pinned_scope(rs_context *ctx, rs_array *h, int32_t *hp, int n) {
  rs_array *d = NULL, *back = NULL;
  rs_stream *s = NULL;
  CHECK_EQ_I64(rs_array_kind(h), RS_MEM_HOST);
  CHECK_STATUS(rs_pinned_end(h), RS_ERR_STATE); /* end without begin */
  CHECK_OK(rs_pinned_begin(h));
  CHECK_MSG(rs_array_kind(h) == RS_MEM_PINNED, "kind %s inside the pinned scope",
            rs_mem_kind_name(rs_array_kind(h)));
  CHECK_STATUS(rs_pinned_begin(h), RS_ERR_STATE); /* scopes do not nest */
  CHECK_EQ_I64(rs_array_kind(h), RS_MEM_PINNED);
  CHECK(rs_array_host_data(h) == (void *)hp);
  /* asynchronous copies from and to the page-locked memory */
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_to_device(&d, h, 0, s));
  CHECK_OK(rs_host_array_like(&back, h));
  CHECK_OK(rs_pinned_begin(back));
  memset(rs_array_host_data(back), 0xEE, (size_t)n * 4);
  CHECK_OK(rs_copy_to_host_into(back, d, s));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_BYTES_EQ(rs_array_host_data(back), hp, (size_t)n * 4);
  CHECK_OK(rs_pinned_end(back));
  CHECK_OK(rs_pinned_end(h));
  CHECK_EQ_I64(rs_array_kind(h), RS_MEM_HOST);
  CHECK_EQ_I64(rs_array_kind(back), RS_MEM_HOST);
  CHECK_STATUS(rs_pinned_end(h), RS_ERR_STATE);
  /* the memory is still the user's and still readable */
  CHECK(rs_array_host_data(h) == (void *)hp);
  /* it can be opened again */
  CHECK_OK(rs_pinned_begin(h));
  CHECK_OK(rs_pinned_end(h));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(d));
}

static void test_pinned_scope(rs_context *ctx) {
  const int n = 50000;
  rs_array *h = NULL, *w = NULL, *dev = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(n), RS_INT32, NULL, RS_ORDER_C));
  int32_t *hp = (int32_t *)rs_array_host_data(h);
  for (int i = 0; i < n; i++) hp[i] = i * 7 - 3;
  do_pinned_scope(ctx, h, hp, n);
  CHECK_PASSING();
  CHECK_OK(rs_array_release(h));
  /* on wrapped user memory too */
  int32_t *user = (int32_t *)malloc((size_t)n * 4);
  CHECK(user != NULL);
  for (int i = 0; i < n; i++) user[i] = -i;
  if (rs_host_array_wrap(&w, ctx, user, 1, S1(n), RS_INT32, NULL) != RS_OK) {
    free(user);
    FAIL("wrap: %s", rs_t_msg_());
  }
  do_pinned_scope(ctx, w, user, n);
  rs_array_release(w);
  for (int i = 0; i < n && !rs_t_.failed; i++)
    if (user[i] != -i) rs_t_fail_(__FILE__, __LINE__, "user memory changed at %d", i);
  free(user);
  CHECK_PASSING();
  /* a device array cannot be page-locked */
  CHECK_OK(rs_device_array(&dev, ctx, 1, S1(16), RS_INT32, NULL, RS_ORDER_C));
  CHECK_FAILS(rs_pinned_begin(dev));
  CHECK_EQ_I64(rs_array_kind(dev), RS_MEM_DEVICE);
  CHECK_OK(rs_array_release(dev));
}

static void test_mapped_scope(rs_context *ctx) {
  const int n = 4096;
  rs_array *h = NULL, *dv = NULL, *dv2 = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(64, 64), RS_FLOAT32, NULL, RS_ORDER_C));
  float *hp = (float *)rs_array_host_data(h);
  for (int i = 0; i < n; i++) hp[i] = (float)i;
  CHECK_STATUS(rs_mapped_end(h), RS_ERR_STATE);
  CHECK_OK(rs_mapped_begin(&dv, h));
  CHECK(dv != NULL && dv != h);
  check_meta(dv, ctx, RS_MEM_MAPPED, 2, S2(64, 64), RS_FLOAT32, S2(256, 4));
  CHECK_PASSING();
  CHECK(rs_array_device_data(dv) != NULL);
  CHECK_MSG(rs_array_host_data(dv) == (void *)hp, "the mapped view is not over the same bytes");
  CHECK_STATUS(rs_mapped_begin(&dv2, h), RS_ERR_STATE);
  CHECK(dv2 == NULL);
  /* host writes are what the device view holds */
  hp[100] = -1.0f;
  CHECK_OK(rs_to_device(&d, dv, 0, NULL));
  float *got = (float *)malloc((size_t)n * 4);
  CHECK(got != NULL);
  rs_status st = rs_t_read_(d, got);
  int64_t diff = rs_t_first_diff_(got, hp, (size_t)n * 4);
  free(got);
  CHECK_OK(st);
  CHECK_MSG(diff < 0, "mapped view differs from the host bytes at byte %lld", (long long)diff);
  /* and device-side writes into the view show in the host array */
  float *vals = (float *)malloc((size_t)n * 4);
  CHECK(vals != NULL);
  for (int i = 0; i < n; i++) vals[i] = 0.5f * (float)i + 2.0f;
  st = rs_t_write_(d, vals);
  if (st == RS_OK) st = rs_array_copy(dv, d, NULL);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  diff = rs_t_first_diff_(hp, vals, (size_t)n * 4);
  free(vals);
  CHECK_OK(st);
  CHECK_MSG(diff < 0, "host array differs after a copy into the mapped view, byte %lld",
            (long long)diff);
  /* end while the device view lives is refused */
  CHECK_STATUS(rs_mapped_end(h), RS_ERR_STATE);
  CHECK_OK(rs_array_release(dv));
  CHECK_OK(rs_mapped_end(h));
  CHECK_STATUS(rs_mapped_end(h), RS_ERR_STATE);
  CHECK_EQ_I64(rs_array_kind(h), RS_MEM_HOST);
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* ---- zero-size and 0-d -------------------------------------------------------------- */

static void test_zero_size(rs_context *ctx) {
  rs_array *d = NULL, *h = NULL, *p = NULL, *h2 = NULL, *r = NULL, *d2 = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 2, S2(0, 5), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_EQ_I64(rs_array_size(d), 0);
  CHECK_EQ_I64(rs_array_nbytes(d), 0);
  CHECK_EQ_I64(rs_array_ndim(d), 2);
  CHECK_EQ_I64(rs_array_shape(d)[0], 0);
  CHECK_EQ_I64(rs_array_shape(d)[1], 5);
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(0, 5), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_pinned_array(&p, ctx, 2, S2(0, 5), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_array_copy(d, h, NULL));
  CHECK_OK(rs_array_copy(p, d, NULL));
  CHECK_OK(rs_copy_to_host(&h2, d, NULL));
  CHECK_EQ_I64(rs_array_size(h2), 0);
  CHECK_EQ_I64(rs_array_shape(h2)[1], 5);
  CHECK_OK(rs_to_device(&d2, p, 0, NULL));
  CHECK_EQ_I64(rs_array_size(d2), 0);
  CHECK_OK(rs_array_reshape(&r, d, 3, S3(5, 0, 7)));
  CHECK_EQ_I64(rs_array_size(r), 0);
  CHECK_OK(rs_array_release(r));
  r = NULL;
  CHECK_OK(rs_array_slice(&r, h2, 2, (rs_slice[]){RS_SLICE_ALL, {1, 3, 1}}));
  CHECK_EQ_I64(rs_array_shape(r)[1], 2);
  CHECK_EQ_I64(rs_array_size(r), 0);
  rs_array *all[] = {r, d2, h2, p, h, d};
  for (int i = 0; i < 6; i++) CHECK_OK(rs_array_release(all[i]));
}

static void test_zero_dim(rs_context *ctx) {
  double x = 3.25, y = 0.0;
  rs_array *w = NULL, *d = NULL, *wy = NULL, *e = NULL, *r = NULL, *d0 = NULL;
  CHECK_OK(rs_host_array_wrap(&w, ctx, &x, 0, NULL, RS_FLOAT64, NULL));
  CHECK_EQ_I64(rs_array_ndim(w), 0);
  CHECK_EQ_I64(rs_array_size(w), 1);
  CHECK_EQ_I64(rs_array_nbytes(w), 8);
  CHECK_OK(rs_to_device(&d, w, 0, NULL));
  CHECK_EQ_I64(rs_array_kind(d), RS_MEM_DEVICE);
  CHECK_EQ_I64(rs_array_ndim(d), 0);
  CHECK_EQ_I64(rs_array_size(d), 1);
  CHECK_OK(rs_host_array_wrap(&wy, ctx, &y, 0, NULL, RS_FLOAT64, NULL));
  CHECK_OK(rs_array_copy(wy, d, NULL));
  CHECK(y == 3.25);
  /* 0-d -> (1,1) and back to 0-d, and expand_dims */
  CHECK_OK(rs_array_reshape(&r, d, 2, S2(1, 1)));
  CHECK_EQ_I64(rs_array_size(r), 1);
  CHECK_OK(rs_array_reshape(&d0, r, 0, NULL));
  CHECK_EQ_I64(rs_array_ndim(d0), 0);
  CHECK_OK(rs_array_expand_dims(&e, d0, 0));
  CHECK_EQ_I64(rs_array_ndim(e), 1);
  CHECK_EQ_I64(rs_array_shape(e)[0], 1);
  y = 0.0;
  CHECK_OK(rs_t_read_(e, &y));
  CHECK(y == 3.25);
  /* a new 0-d device array */
  rs_array *z = NULL;
  CHECK_OK(rs_device_array(&z, ctx, 0, NULL, RS_INT64, NULL, RS_ORDER_C));
  CHECK_EQ_I64(rs_array_size(z), 1);
  CHECK_EQ_I64(rs_array_nbytes(z), 8);
  int64_t v = 1234567890123LL, got = 0;
  CHECK_OK(rs_t_write_(z, &v));
  CHECK_OK(rs_t_read_(z, &got));
  CHECK_EQ_I64(got, v);
  rs_array *all[] = {z, e, d0, r, wy, d, w};
  for (int i = 0; i < 7; i++) CHECK_OK(rs_array_release(all[i]));
}

static const rs_test_case tests[] = {
    RS_TEST(test_kind_names),       RS_TEST(test_device_array),
    RS_TEST(test_host_array),       RS_TEST(test_host_wrap),
    RS_TEST(test_pinned),           RS_TEST(test_mapped),
    RS_TEST(test_managed_global),   RS_TEST(test_managed_host),
    RS_TEST(test_explicit_strides), RS_TEST(test_like),
    RS_TEST(test_device_wrap),      RS_TEST(test_device_wrap_wait_on),
    RS_TEST(test_pinned_scope),     RS_TEST(test_mapped_scope),
    RS_TEST(test_zero_size),        RS_TEST(test_zero_dim),
};
RS_TEST_MAIN(tests)
