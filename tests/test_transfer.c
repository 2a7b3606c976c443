/* Copies: every kind to every kind for every item size, every dtype, non-contiguous
 * sources and destinations, RS_COPY_NONE, D2D and H2H, asynchronous copies, the
 * pageable-memory guarantee, and mismatches that must write nothing. */
#include "harness.h"
#include "resident/ops.h"

#define S1(a) ((const int64_t[]){a})
#define S2(a, b) ((const int64_t[]){a, b})
#define D RS_SLICE_DEFAULT

static const rs_mem_kind all_kinds[] = {RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED, RS_MEM_MAPPED,
                                        RS_MEM_MANAGED};
#define NKINDS 5

static rs_status make_kind(rs_array **out, rs_context *ctx, rs_mem_kind kind, int ndim,
                           const int64_t *shape, rs_dtype dt, rs_order order) {
  switch (kind) {
    case RS_MEM_DEVICE: return rs_device_array(out, ctx, ndim, shape, dt, NULL, order);
    case RS_MEM_HOST: return rs_host_array(out, ctx, ndim, shape, dt, NULL, order);
    case RS_MEM_PINNED: return rs_pinned_array(out, ctx, ndim, shape, dt, NULL, order, 0);
    case RS_MEM_MAPPED: return rs_mapped_array(out, ctx, ndim, shape, dt, NULL, order, 0);
    case RS_MEM_MANAGED:
      return rs_managed_array(out, ctx, ndim, shape, dt, NULL, order, RS_ATTACH_GLOBAL);
  }
  return RS_ERR_INVALID_ARGUMENT;
}

/* 0 = the general rs_array_copy, 1 = rs_to_device_into / rs_copy_to_host_into */
static rs_status copy_with(int api, rs_array *dst, const rs_array *src, rs_stream *s) {
  if (api == 0) return rs_array_copy(dst, src, s);
  if (rs_array_kind(dst) == RS_MEM_DEVICE) return rs_to_device_into(dst, src, s);
  return rs_copy_to_host_into(dst, src, s);
}

static void test_all_kind_pairs(rs_context *ctx) {
  const rs_dtype dts[] = {RS_UINT8, RS_INT16, RS_FLOAT32, RS_INT64, RS_COMPLEX128};
  const int64_t shape[2] = {37, 5};
  unsigned char want[37 * 5 * 16], got[37 * 5 * 16], before[37 * 5 * 16];
  for (int api = 0; api < 2; api++)
    for (int t = 0; t < 5; t++)
      for (int a = 0; a < NKINDS; a++)
        for (int b = 0; b < NKINDS; b++) {
          rs_array *src = NULL, *dst = NULL;
          size_t nb = 37 * 5 * rs_dtype_size(dts[t]);
          char what[128];
          snprintf(what, sizeof what, "%s %s -> %s (%s)", rs_dtype_name(dts[t]),
                   rs_mem_kind_name(all_kinds[a]), rs_mem_kind_name(all_kinds[b]),
                   api ? "to_device_into/copy_to_host_into" : "rs_array_copy");
          rs_t_pattern_(want, nb, 1000u + (uint64_t)(api * 1000 + t * 100 + a * 10 + b));
          rs_t_pattern_(before, nb, 7u);
          CHECK_OK(make_kind(&src, ctx, all_kinds[a], 2, shape, dts[t], RS_ORDER_C));
          CHECK_OK(make_kind(&dst, ctx, all_kinds[b], 2, shape, dts[t], RS_ORDER_C));
          CHECK_OK(rs_t_write_(src, want));
          CHECK_OK(rs_t_write_(dst, before));
          rs_status st = copy_with(api, dst, src, NULL);
          CHECK_MSG(st == RS_OK, "%s: %s \"%s\"", what, rs_status_name(st), rs_t_msg_());
          memset(got, 0, nb);
          CHECK_OK(rs_t_read_(dst, got));
          int64_t diff = rs_t_first_diff_(got, want, nb);
          CHECK_MSG(diff < 0, "%s: destination differs at byte %lld", what, (long long)diff);
          /* the source is unchanged */
          CHECK_OK(rs_t_read_(src, got));
          CHECK_MSG(rs_t_first_diff_(got, want, nb) < 0, "%s: source changed", what);
          CHECK_OK(rs_array_release(src));
          CHECK_OK(rs_array_release(dst));
        }
}

static void test_every_dtype_round_trip(rs_context *ctx) {
  unsigned char in[3 * 5 * 16], out[3 * 5 * 16];
  for (int t = 0; t < RS_DTYPE_COUNT; t++) {
    rs_dtype dt = (rs_dtype)t;
    size_t nb = 15 * rs_dtype_size(dt);
    rs_t_pattern_(in, nb, 50u + (uint64_t)t);
    if (dt == RS_BOOL)
      for (size_t i = 0; i < nb; i++) in[i] &= 1;
    rs_array *w = NULL, *d = NULL, *h = NULL;
    CHECK_OK(rs_host_array_wrap(&w, ctx, in, 2, S2(3, 5), dt, NULL));
    CHECK_OK(rs_to_device(&d, w, 0, NULL));
    CHECK_EQ_I64(rs_array_kind(d), RS_MEM_DEVICE);
    CHECK_EQ_I64(rs_array_dtype(d), dt);
    CHECK_EQ_I64(rs_array_nbytes(d), nb);
    CHECK_OK(rs_copy_to_host(&h, d, NULL));
    CHECK_EQ_I64(rs_array_kind(h), RS_MEM_HOST);
    CHECK_EQ_I64(rs_array_dtype(h), dt);
    CHECK_EQ_I64(rs_array_ndim(h), 2);
    CHECK_EQ_I64(rs_array_shape(h)[0], 3);
    CHECK_EQ_I64(rs_array_shape(h)[1], 5);
    memset(out, 0, sizeof out);
    rs_t_gather_host_(h, out);
    CHECK_MSG(rs_t_first_diff_(out, in, nb) < 0, "%s round trip differs", rs_dtype_name(dt));
    CHECK_OK(rs_array_release(h));
    CHECK_OK(rs_array_release(d));
    CHECK_OK(rs_array_release(w));
  }
}

static void test_new_arrays_from_every_kind(rs_context *ctx) {
  /* rs_to_device and rs_copy_to_host from every kind; an F source gives an F device array */
  float vals[6 * 7], got[6 * 7];
  for (int i = 0; i < 42; i++) vals[i] = (float)i * 2.0f - 11.0f;
  for (int a = 0; a < NKINDS; a++)
    for (int order = 0; order < 2; order++) {
      rs_array *src = NULL, *d = NULL, *h = NULL;
      CHECK_OK(make_kind(&src, ctx, all_kinds[a], 2, S2(6, 7), RS_FLOAT32, (rs_order)order));
      CHECK_OK(rs_t_write_(src, vals));
      CHECK_OK(rs_to_device(&d, src, 0, NULL));
      CHECK_EQ_I64(rs_array_kind(d), RS_MEM_DEVICE);
      if (order == RS_ORDER_F)
        CHECK_MSG(rs_array_is_f_contiguous(d), "to_device of an F %s array is not F",
                  rs_mem_kind_name(all_kinds[a]));
      else
        CHECK(rs_array_is_c_contiguous(d));
      CHECK_OK(rs_t_read_(d, got));
      CHECK_MSG(rs_t_first_diff_(got, vals, sizeof vals) < 0, "to_device from %s differs",
                rs_mem_kind_name(all_kinds[a]));
      CHECK_OK(rs_copy_to_host(&h, src, NULL));
      CHECK_EQ_I64(rs_array_kind(h), RS_MEM_HOST);
      CHECK(rs_array_host_data(h) != rs_array_host_data(src));
      rs_t_gather_host_(h, got);
      CHECK_MSG(rs_t_first_diff_(got, vals, sizeof vals) < 0, "copy_to_host from %s differs",
                rs_mem_kind_name(all_kinds[a]));
      CHECK_OK(rs_array_release(h));
      CHECK_OK(rs_array_release(d));
      CHECK_OK(rs_array_release(src));
    }
}

/* ---- non-contiguous ------------------------------------------------------------------ */

static void test_noncontig_sources(rs_context *ctx) {
  /* base (6,8) float32, B[r][c] = 8r + c; views on the host and on the device */
  float vals[48];
  for (int i = 0; i < 48; i++) vals[i] = (float)i;
  for (int dev = 0; dev < 2; dev++) {
    rs_array *B = NULL;
    CHECK_OK(make_kind(&B, ctx, dev ? RS_MEM_DEVICE : RS_MEM_HOST, 2, S2(6, 8), RS_FLOAT32,
                       RS_ORDER_C));
    CHECK_OK(rs_t_write_(B, vals));
    for (int which = 0; which < 3; which++) {
      rs_array *v = NULL, *tmp = NULL, *out = NULL;
      float exp[48], got[48];
      int n = 0, rows = 0, cols = 0;
      if (which == 0) { /* transpose: (8,6), V[c][r] = B[r][c] */
        CHECK_OK(rs_array_transpose(&v, B));
        rows = 8, cols = 6;
        for (int c = 0; c < 8; c++)
          for (int r = 0; r < 6; r++) exp[n++] = (float)(8 * r + c);
      } else if (which == 1) { /* [::-1, 1::2]: (6,4) */
        CHECK_OK(rs_array_slice(&v, B, 2, (rs_slice[]){{D, D, -1}, {1, D, 2}}));
        rows = 6, cols = 4;
        for (int r = 5; r >= 0; r--)
          for (int c = 1; c < 8; c += 2) exp[n++] = (float)(8 * r + c);
      } else { /* transpose of [::-2, ::-3]: rows 5,3,1 x cols 7,4,1 -> (3,3)^T */
        CHECK_OK(rs_array_slice(&tmp, B, 2, (rs_slice[]){{D, D, -2}, {D, D, -3}}));
        CHECK_OK(rs_array_transpose(&v, tmp));
        rows = 3, cols = 3;
        for (int c = 7; c >= 0; c -= 3)
          for (int r = 5; r >= 0; r -= 2) exp[n++] = (float)(8 * r + c);
      }
      const char *what = which == 0 ? "transposed" : which == 1 ? "[::-1, 1::2]" : "[::-2, ::-3]^T";
      /* to the device: a new array holding the view's elements */
      CHECK_OK(rs_to_device(&out, v, 0, NULL));
      CHECK_EQ_I64(rs_array_shape(out)[0], rows);
      CHECK_EQ_I64(rs_array_shape(out)[1], cols);
      CHECK(rs_array_is_c_contiguous(out) || rs_array_is_f_contiguous(out));
      if (which == 1) CHECK(rs_array_is_c_contiguous(out)); /* non-contiguous -> C */
      if (which == 0) CHECK(rs_array_is_f_contiguous(out)); /* F-contiguous keeps F */
      memset(got, 0, sizeof got);
      CHECK_OK(rs_t_read_(out, got));
      for (int i = 0; i < n; i++)
        CHECK_MSG(got[i] == exp[i], "%s %s view -> device: element %d = %g, expected %g",
                  dev ? "device" : "host", what, i, got[i], exp[i]);
      CHECK_OK(rs_array_release(out));
      out = NULL;
      /* to the host: a new pageable array */
      CHECK_OK(rs_copy_to_host(&out, v, NULL));
      memset(got, 0, sizeof got);
      rs_t_gather_host_(out, got);
      for (int i = 0; i < n; i++)
        CHECK_MSG(got[i] == exp[i], "%s %s view -> host: element %d = %g, expected %g",
                  dev ? "device" : "host", what, i, got[i], exp[i]);
      CHECK_OK(rs_array_release(out));
      CHECK_OK(rs_array_release(v));
      if (tmp) CHECK_OK(rs_array_release(tmp));
    }
    CHECK_OK(rs_array_release(B));
  }
}

static void test_noncontig_destinations(rs_context *ctx) {
  /* zero a (6,8) base, copy a contiguous (3,3) into its [::-2, 1::3] view (rows 5,3,1 x
   * cols 1,4,7): those nine elements change, the rest stay 0 */
  for (int a = 0; a < NKINDS; a++) {
    float zeros[48] = {0}, src_vals[9], got[48];
    for (int i = 0; i < 9; i++) src_vals[i] = 100.0f + (float)i;
    rs_array *B = NULL, *v = NULL, *src = NULL;
    CHECK_OK(make_kind(&B, ctx, all_kinds[a], 2, S2(6, 8), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(rs_t_write_(B, zeros));
    CHECK_OK(rs_array_slice(&v, B, 2, (rs_slice[]){{D, D, -2}, {1, D, 3}}));
    CHECK_EQ_I64(rs_array_shape(v)[0], 3);
    CHECK_EQ_I64(rs_array_shape(v)[1], 3);
    /* the source is on the other side (device for host kinds, host for device) */
    CHECK_OK(make_kind(&src, ctx, all_kinds[a] == RS_MEM_DEVICE ? RS_MEM_HOST : RS_MEM_DEVICE,
                       2, S2(3, 3), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(rs_t_write_(src, src_vals));
    CHECK_OK(rs_array_copy(v, src, NULL));
    CHECK_OK(rs_t_read_(B, got));
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 8; c++) {
        float e = 0.0f;
        if (r % 2 == 1 && c % 3 == 1) e = src_vals[((5 - r) / 2) * 3 + (c - 1) / 3];
        CHECK_MSG(got[r * 8 + c] == e, "%s destination view: B[%d][%d] = %g, expected %g",
                  rs_mem_kind_name(all_kinds[a]), r, c, got[r * 8 + c], e);
      }
    CHECK_OK(rs_array_release(src));
    CHECK_OK(rs_array_release(v));
    CHECK_OK(rs_array_release(B));
  }
}

static void test_noncontig_both_sides(rs_context *ctx) {
  /* S = bs[::-1, ::2] of a (6,8) source; Dv = transpose(bd[1::2, ::-1]) of an (8,6)
   * destination: Dv[r][c] = bd[1+2c][5-r]. After the copy bd[1+2c][5-r] = bs[5-r][2c]
   * and the even rows of bd keep their old values. */
  const rs_mem_kind kinds[] = {RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED};
  float sv[48], dv_old[48], got[48];
  for (int i = 0; i < 48; i++) {
    sv[i] = (float)i + 0.5f;
    dv_old[i] = -1.0f - (float)i;
  }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      rs_array *bs = NULL, *bd = NULL, *S = NULL, *tmp = NULL, *Dv = NULL;
      CHECK_OK(make_kind(&bs, ctx, kinds[a], 2, S2(6, 8), RS_FLOAT32, RS_ORDER_C));
      CHECK_OK(make_kind(&bd, ctx, kinds[b], 2, S2(8, 6), RS_FLOAT32, RS_ORDER_C));
      CHECK_OK(rs_t_write_(bs, sv));
      CHECK_OK(rs_t_write_(bd, dv_old));
      CHECK_OK(rs_array_slice(&S, bs, 2, (rs_slice[]){{D, D, -1}, {D, D, 2}}));
      CHECK_OK(rs_array_slice(&tmp, bd, 2, (rs_slice[]){{1, D, 2}, {D, D, -1}}));
      CHECK_OK(rs_array_transpose(&Dv, tmp));
      rs_status st = rs_array_copy(Dv, S, NULL);
      CHECK_MSG(st == RS_OK, "%s view -> %s view: %s \"%s\"", rs_mem_kind_name(kinds[a]),
                rs_mem_kind_name(kinds[b]), rs_status_name(st), rs_t_msg_());
      CHECK_OK(rs_t_read_(bd, got));
      for (int r = 0; r < 8; r++)
        for (int c = 0; c < 6; c++) {
          float e = dv_old[r * 6 + c];
          if (r % 2 == 1) {
            int cc = (r - 1) / 2, rr = 5 - c; /* bd[1+2cc][5-rr] */
            e = sv[(5 - rr) * 8 + 2 * cc];
          }
          CHECK_MSG(got[r * 6 + c] == e, "%s view -> %s view: bd[%d][%d] = %g, expected %g",
                    rs_mem_kind_name(kinds[a]), rs_mem_kind_name(kinds[b]), r, c,
                    got[r * 6 + c], e);
        }
      rs_array *all[] = {Dv, tmp, S, bd, bs};
      for (int i = 0; i < 5; i++) CHECK_OK(rs_array_release(all[i]));
    }
}

/* ---- RS_COPY_NONE, D2D, H2H ---------------------------------------------------------- */

static void test_copy_none(rs_context *ctx) {
  const int64_t n = 16384; /* 64 KiB of int32 */
  rs_array *src = NULL, *d = NULL, *f = NULL, *df = NULL;
  CHECK_OK(rs_host_array(&src, ctx, 2, S2(128, n / 128), RS_INT32, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(src), (size_t)n * 4, 0xC0FFEEull);
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  CHECK_OK(rs_to_device(&d, src, RS_COPY_NONE, NULL));
  /* nothing was copied, nor queued to be */
  rs_ledger_stats ls;
  CHECK_OK(rs_ledger_get_stats(ctx, &ls));
  CHECK_EQ_I64(rs_ledger_copies(&ls, -1), 0);
  CHECK_EQ_I64(rs_array_kind(d), RS_MEM_DEVICE);
  CHECK_EQ_I64(rs_array_dtype(d), RS_INT32);
  CHECK_EQ_I64(rs_array_ndim(d), 2);
  CHECK_EQ_I64(rs_array_shape(d)[0], 128);
  CHECK_EQ_I64(rs_array_shape(d)[1], n / 128);
  /* The array holds no data: it is written before it is read (compute-sanitizer's
   * initcheck reports every read of device memory never written), and what is read is
   * what was written, not the source's pattern. */
  int32_t *got = (int32_t *)malloc((size_t)n * 4);
  CHECK(got != NULL);
  rs_status st = rs_zeros_into(d, NULL);
  if (st == RS_OK) st = rs_t_read_(d, got);
  int64_t nonzero = 0;
  for (int64_t i = 0; i < n; i++) nonzero += got[i] != 0;
  free(got);
  CHECK_OK(st);
  CHECK_EQ_I64(nonzero, 0);
  /* the layout still follows the source */
  CHECK_OK(rs_host_array(&f, ctx, 2, S2(3, 5), RS_FLOAT64, NULL, RS_ORDER_F));
  CHECK_OK(rs_to_device(&df, f, RS_COPY_NONE, NULL));
  CHECK(rs_array_is_f_contiguous(df));
  CHECK_OK(rs_array_release(df));
  CHECK_OK(rs_array_release(f));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(src));
}

static void test_device_to_device(rs_context *ctx) {
  double vals[1000], got[1000], other[1000];
  for (int i = 0; i < 1000; i++) {
    vals[i] = i * 0.001 - 0.5;
    other[i] = 9.0;
  }
  rs_array *d1 = NULL, *d2 = NULL, *d3 = NULL;
  CHECK_OK(rs_device_array(&d1, ctx, 1, S1(1000), RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_OK(rs_t_write_(d1, vals));
  CHECK_OK(rs_device_array_like(&d2, d1));
  CHECK_OK(rs_array_copy(d2, d1, NULL));
  CHECK_OK(rs_t_read_(d2, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  /* rs_to_device of a device array is a new copy, not an alias */
  CHECK_OK(rs_to_device(&d3, d1, 0, NULL));
  CHECK(rs_array_device_data(d3) != rs_array_device_data(d1));
  CHECK_OK(rs_t_write_(d1, other));
  CHECK_OK(rs_t_read_(d3, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  CHECK_OK(rs_t_read_(d2, got));
  CHECK_BYTES_EQ(got, vals, sizeof vals);
  CHECK_OK(rs_array_release(d3));
  CHECK_OK(rs_array_release(d2));
  CHECK_OK(rs_array_release(d1));
}

static void test_host_to_host(rs_context *ctx) {
  int16_t user[200], got[200];
  for (int i = 0; i < 200; i++) user[i] = (int16_t)(i * 3 - 100);
  rs_array *w = NULL, *p = NULL, *h = NULL, *w2 = NULL;
  int16_t user2[200];
  memset(user2, 0, sizeof user2);
  CHECK_OK(rs_host_array_wrap(&w, ctx, user, 2, S2(10, 20), RS_INT16, NULL));
  CHECK_OK(rs_host_array_wrap(&w2, ctx, user2, 2, S2(10, 20), RS_INT16, NULL));
  CHECK_OK(rs_pinned_array(&p, ctx, 2, S2(10, 20), RS_INT16, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_array_copy(p, w, NULL)); /* pageable -> pinned */
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(rs_array_host_data(p), user, sizeof user);
  CHECK_OK(rs_array_copy(w2, p, NULL)); /* pinned -> pageable */
  CHECK_BYTES_EQ(user2, user, sizeof user);
  /* rs_copy_to_host of a host array is a new copy */
  CHECK_OK(rs_copy_to_host(&h, w, NULL));
  CHECK(rs_array_host_data(h) != (void *)user);
  user[0] = 12345;
  rs_t_gather_host_(h, got);
  CHECK_EQ_I64(got[0], -100);
  CHECK_EQ_I64(got[199], 199 * 3 - 100);
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_array_release(w2));
  CHECK_OK(rs_array_release(w));
}

/* ---- asynchronous copies ------------------------------------------------------------- */

static void test_async_pinned(rs_context *ctx) {
  const int64_t n = 1 << 20; /* 4 MiB */
  rs_array *p = NULL, *q = NULL, *d = NULL, *d2 = NULL, *h = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_pinned_array(&q, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(p), (size_t)n * 4, 77);
  memset(rs_array_host_data(q), 0, (size_t)n * 4);
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_copy_to_host_into(q, d, s));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_BYTES_EQ(rs_array_host_data(q), rs_array_host_data(p), (size_t)n * 4);
  /* new arrays on a stream; the pageable result is readable on return */
  CHECK_OK(rs_to_device(&d2, p, 0, s));
  CHECK_OK(rs_copy_to_host(&h, d2, s));
  CHECK_BYTES_EQ(rs_array_host_data(h), rs_array_host_data(p), (size_t)n * 4);
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(d2));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(q));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_stream_destroy(s));
}

static void test_async_pageable_is_complete(rs_context *ctx) {
  /* transfer.h: with a stream, a copy whose one side is pageable returns only when the
   * host memory may be read (D2H) or reused (H2D). Queue an asynchronous 8 MiB H2D from
   * pinned memory first so the stream is busy when the pageable copy is issued. */
  const int64_t n = 2 << 20; /* 8 MiB of float32 */
  rs_array *p = NULL, *d = NULL, *h = NULL, *h2 = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(p), (size_t)n * 4, 4242);
  memset(rs_array_host_data(h), 0, (size_t)n * 4);
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_copy_to_host_into(h, d, s)); /* D2H into pageable: complete on return */
  CHECK_BYTES_EQ(rs_array_host_data(h), rs_array_host_data(p), (size_t)n * 4);
  CHECK_OK(rs_copy_to_host(&h2, d, s));
  CHECK_BYTES_EQ(rs_array_host_data(h2), rs_array_host_data(p), (size_t)n * 4);
  /* H2D from pageable: the host memory may be reused as soon as the call returns */
  rs_t_pattern_(rs_array_host_data(h), (size_t)n * 4, 555);
  memcpy(rs_array_host_data(h2), rs_array_host_data(h), (size_t)n * 4); /* keep a copy */
  CHECK_OK(rs_to_device_into(d, h, s));
  memset(rs_array_host_data(h), 0x5A, (size_t)n * 4); /* reuse at once */
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(h), rs_array_host_data(h2), (size_t)n * 4);
  CHECK_OK(rs_array_release(h2));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_stream_destroy(s));
}

/* ---- mismatches write nothing -------------------------------------------------------- */

static void check_unchanged(rs_array *dst, const float *before, int n, const char *what) {
  float got[64];
  CHECK_OK(rs_t_read_(dst, got));
  CHECK_MSG(rs_t_first_diff_(got, before, (size_t)n * 4) < 0,
            "%s: the destination changed after a failed copy", what);
}

static void test_mismatch(rs_context *ctx) {
  float before[12];
  for (int i = 0; i < 12; i++) before[i] = 1000.0f + (float)i;
  for (int side = 0; side < 2; side++) {
    rs_mem_kind dk = side ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_mem_kind sk = side ? RS_MEM_DEVICE : RS_MEM_HOST;
    rs_array *dst = NULL, *s43 = NULL, *s12 = NULL, *s35 = NULL, *si = NULL, *sd = NULL;
    CHECK_OK(make_kind(&dst, ctx, dk, 2, S2(3, 4), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(rs_t_write_(dst, before));
    CHECK_OK(make_kind(&s43, ctx, sk, 2, S2(4, 3), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(make_kind(&s12, ctx, sk, 1, S1(12), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(make_kind(&s35, ctx, sk, 2, S2(3, 5), RS_FLOAT32, RS_ORDER_C));
    CHECK_OK(make_kind(&si, ctx, sk, 2, S2(3, 4), RS_INT32, RS_ORDER_C));
    CHECK_OK(make_kind(&sd, ctx, sk, 2, S2(3, 4), RS_FLOAT64, RS_ORDER_C));
    float zeros[15] = {0};
    double dz[12] = {0};
    CHECK_OK(rs_t_write_(s43, zeros));
    CHECK_OK(rs_t_write_(s12, zeros));
    CHECK_OK(rs_t_write_(s35, zeros));
    CHECK_OK(rs_t_write_(si, zeros));
    CHECK_OK(rs_t_write_(sd, dz));
    const char *side_name = side ? "host destination" : "device destination";

    CHECK_STATUS(rs_array_copy(dst, s43, NULL), RS_ERR_SHAPE);
    CHECK_ERRMSG("shape", "(3", "3,", "3 x", "3x");
    check_unchanged(dst, before, 12, side_name);
    CHECK_STATUS(rs_array_copy(dst, s12, NULL), RS_ERR_SHAPE);
    check_unchanged(dst, before, 12, side_name);
    CHECK_STATUS(rs_array_copy(dst, s35, NULL), RS_ERR_SHAPE);
    check_unchanged(dst, before, 12, side_name);
    CHECK_STATUS(rs_array_copy(dst, si, NULL), RS_ERR_DTYPE);
    CHECK_ERRMSG("dtype", "int32", "float32");
    check_unchanged(dst, before, 12, side_name);
    CHECK_STATUS(rs_array_copy(dst, sd, NULL), RS_ERR_DTYPE);
    check_unchanged(dst, before, 12, side_name);
    /* the specialised entry points too */
    if (side == 0) {
      CHECK_STATUS(rs_to_device_into(dst, s43, NULL), RS_ERR_SHAPE);
      CHECK_STATUS(rs_to_device_into(dst, si, NULL), RS_ERR_DTYPE);
      /* and a host destination is not what rs_to_device_into writes */
      rs_array *hd = NULL;
      CHECK_OK(rs_host_array(&hd, ctx, 2, S2(3, 4), RS_FLOAT32, NULL, RS_ORDER_C));
      CHECK_OK(rs_t_write_(hd, before));
      CHECK_FAILS(rs_to_device_into(hd, dst, NULL));
      check_unchanged(hd, before, 12, "rs_to_device_into(host array)");
      CHECK_OK(rs_array_release(hd));
    } else {
      CHECK_STATUS(rs_copy_to_host_into(dst, s43, NULL), RS_ERR_SHAPE);
      CHECK_STATUS(rs_copy_to_host_into(dst, sd, NULL), RS_ERR_DTYPE);
      rs_array *dd = NULL;
      CHECK_OK(rs_device_array(&dd, ctx, 2, S2(3, 4), RS_FLOAT32, NULL, RS_ORDER_C));
      CHECK_OK(rs_t_write_(dd, before));
      CHECK_FAILS(rs_copy_to_host_into(dd, dst, NULL));
      check_unchanged(dd, before, 12, "rs_copy_to_host_into(device array)");
      CHECK_OK(rs_array_release(dd));
    }
    check_unchanged(dst, before, 12, side_name);
    rs_array *all[] = {sd, si, s35, s12, s43, dst};
    for (int i = 0; i < 6; i++) CHECK_OK(rs_array_release(all[i]));
  }
}

static const rs_test_case tests[] = {
    RS_TEST(test_all_kind_pairs),
    RS_TEST(test_every_dtype_round_trip),
    RS_TEST(test_new_arrays_from_every_kind),
    RS_TEST(test_noncontig_sources),
    RS_TEST(test_noncontig_destinations),
    RS_TEST(test_noncontig_both_sides),
    RS_TEST(test_copy_none),
    RS_TEST(test_device_to_device),
    RS_TEST(test_host_to_host),
    RS_TEST(test_async_pinned),
    RS_TEST(test_async_pageable_is_complete),
    RS_TEST(test_mismatch),
};
RS_TEST_MAIN(tests)
