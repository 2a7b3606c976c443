/* take, take_along_axis, put, boolean masks, nonzero, count_nonzero and searchsorted
 * against NumPy (and device against host): every dtype, negative indices, views, empty
 * and 0-d arrays; repeated indices of put (the last writer wins, by a plain loop); bad
 * input refused with nothing written; the count read recorded by the ledger. */
#include "ops_testlib.h"
#include "resident/indexing.h"

/* An index array of dtype d (where) with values in [lo, lo + span), deterministic. */
static rs_status make_idx(rs_array **out, rs_context *ctx, rs_mem_kind where, rs_dtype d, int ndim,
                          const int64_t *shape, int64_t lo, int64_t span, uint64_t seed) {
  H_OK(rs_empty(out, ctx, where, ndim, shape, d));
  int64_t n = rs_array_size(*out);
  void *buf = malloc((size_t)(n > 0 ? n : 1) * 8);
  for (int64_t i = 0; i < n; i++) {
    uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    tl_set(buf, d, i, (double)(lo + (int64_t)(h % (uint64_t)span)), 0);
  }
  rs_status st = n > 0 ? rs_t_write_(*out, buf) : RS_OK;
  free(buf);
  return st;
}

typedef struct ipair {
  rs_array *dev, *host;
  int np;
} ipair;

static rs_status make_ipair(ipair *p, ew_suite *s, rs_context *ctx, rs_dtype d, int ndim, const int64_t *shape,
                            int64_t lo, int64_t span, uint64_t seed) {
  H_OK(make_idx(&p->dev, ctx, RS_MEM_DEVICE, d, ndim, shape, lo, span, seed));
  H_OK(make_idx(&p->host, ctx, RS_MEM_HOST, d, ndim, shape, lo, span, seed));
  p->np = tl_np_input(&s->np, p->host);
  return RS_OK;
}

static void test_take_every_dtype(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[3] = {5, 6, 7}, ishape[2] = {4, 3};
  ipair i64, i32, u8;
  CHECK_OK(make_ipair(&i64, s, ctx, RS_INT64, 2, ishape, -5, 10, 1));
  CHECK_OK(make_ipair(&i32, s, ctx, RS_INT32, 2, ishape, -5, 10, 2));
  CHECK_OK(make_ipair(&u8, s, ctx, RS_UINT8, 2, ishape, 0, 5, 3));
  ipair *idx[3] = {&i64, &i32, &u8};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, d, 3, shape, 10 + di, 1));
    const int axes[5] = {0, 1, 2, -1, RS_INDEX_FLAT};
    for (int k = 0; k < 5; k++) {
      ipair *ix = idx[(di + k) % 3];
      ew_case *c = suite_add(s, "take(%s, axis %d)", rs_dtype_name(d), axes[k]);
      c->sdev = rs_take(&c->dev, a.dev, ix->dev, axes[k], NULL);
      c->shost = rs_take(&c->host, a.host, ix->host, axes[k], NULL);
      if (axes[k] == RS_INDEX_FLAT)
        c->np = tl_np_expr(&s->np, "np.take(a%d, a%d)", a.np, ix->np);
      else
        c->np = tl_np_expr(&s->np, "np.take(a%d, a%d, axis=%d)", a.np, ix->np, axes[k]);
    }
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  for (int k = 0; k < 3; k++) tl_release(2, idx[k]->dev, idx[k]->host);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_take_along_axis(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[3] = {5, 6, 7}, ishape[3] = {5, 3, 7}, bshape[3] = {3, 1, 7};
  ipair ix, bx;
  CHECK_OK(make_ipair(&ix, s, ctx, RS_INT64, 3, ishape, -6, 12, 4));
  CHECK_OK(make_ipair(&bx, s, ctx, RS_INT16, 3, bshape, -5, 10, 5));
  const rs_dtype ds[4] = {RS_BOOL, RS_INT16, RS_FLOAT32, RS_COMPLEX128};
  for (int di = 0; di < 4; di++) {
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, ds[di], 3, shape, 40 + di, 1));
    ew_case *c = suite_add(s, "take_along_axis(%s, axis 1)", rs_dtype_name(ds[di]));
    c->sdev = rs_take_along_axis(&c->dev, a.dev, ix.dev, 1, NULL);
    c->shost = rs_take_along_axis(&c->host, a.host, ix.host, 1, NULL);
    c->np = tl_np_expr(&s->np, "np.take_along_axis(a%d, a%d, axis=1)", a.np, ix.np);
    c = suite_add(s, "take_along_axis(%s, broadcast, axis 0)", rs_dtype_name(ds[di]));
    c->sdev = rs_take_along_axis(&c->dev, a.dev, bx.dev, 0, NULL);
    c->shost = rs_take_along_axis(&c->host, a.host, bx.host, 0, NULL);
    c->np = tl_np_expr(&s->np, "np.take_along_axis(a%d, a%d, axis=0)", a.np, bx.np);
    /* the sorted array through argsort */
    rs_array *ad = NULL, *ah = NULL;
    if (ds[di] != RS_COMPLEX128) {
      CHECK_OK(rs_argsort(&ad, a.dev, NULL));
      CHECK_OK(rs_argsort(&ah, a.host, NULL));
      c = suite_add(s, "take_along_axis(%s, argsort)", rs_dtype_name(ds[di]));
      c->sdev = rs_take_along_axis(&c->dev, a.dev, ad, -1, NULL);
      c->shost = rs_take_along_axis(&c->host, a.host, ah, -1, NULL);
      c->np = tl_np_expr(&s->np, "np.sort(a%d, axis=-1, kind='stable')", a.np);
    }
    tl_release(2, ad, ah);
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  tl_release(4, ix.dev, ix.host, bx.dev, bx.host);
  suite_free(s);
  CHECK(bad == 0);
}

/* b = a.copy(); b[(:,)*axis, idx] = v, with distinct indices (NumPy's order of repeated
 * writes is not promised; the last writer is tested below by a plain loop) */
static void test_put(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {6, 8}, n3 = 3, vshape[2] = {6, 3};
  int64_t iv[3] = {5, -8, 2}; /* distinct along axis 1 (8): 5, 0, 2 */
  const rs_dtype ds[3] = {RS_INT8, RS_FLOAT64, RS_COMPLEX64};
  for (int di = 0; di < 3; di++) {
    pair a, v;
    CHECK_OK(make_pair(&a, s, ctx, ds[di], 2, shape, 70 + di, 0));
    CHECK_OK(make_pair(&v, s, ctx, ds[di], 2, vshape, 80 + di, 0));
    rs_array *ih = NULL, *id = NULL;
    CHECK_OK(rs_host_array_wrap(&ih, ctx, iv, 1, &n3, RS_INT64, NULL));
    CHECK_OK(rs_to_device(&id, ih, 0, NULL));
    int inp = tl_np_input(&s->np, ih);
    ew_case *c = suite_add(s, "put(%s, axis 1)", rs_dtype_name(ds[di]));
    CHECK_OK(rs_copy(&c->dev, a.dev, NULL));
    CHECK_OK(rs_copy(&c->host, a.host, NULL));
    c->sdev = rs_put(c->dev, id, 1, v.dev, NULL);
    c->shost = rs_put(c->host, ih, 1, v.host, NULL);
    c->np = tl_np_expr(&s->np, "(lambda b: (b.__setitem__((slice(None), a%d), a%d), b)[1])(a%d.copy())", inp, v.np,
                       a.np);
    c = suite_add(s, "put(%s, flat, one value broadcast)", rs_dtype_name(ds[di]));
    rs_array *one_d = NULL, *one_h = NULL;
    int64_t one = 1;
    rs_slice first[2] = {{0, 1, 1}, {0, 1, 1}};
    CHECK_OK(rs_array_slice(&one_d, v.dev, 2, first));
    CHECK_OK(rs_array_slice(&one_h, v.host, 2, first));
    (void)one;
    CHECK_OK(rs_copy(&c->dev, a.dev, NULL));
    CHECK_OK(rs_copy(&c->host, a.host, NULL));
    c->sdev = rs_put(c->dev, id, RS_INDEX_FLAT, one_d, NULL);
    c->shost = rs_put(c->host, ih, RS_INDEX_FLAT, one_h, NULL);
    c->np = tl_np_expr(&s->np, "(lambda b: (np.put(b, a%d, a%d[0:1, 0:1]), b)[1])(a%d.copy())", inp, v.np, a.np);
    tl_release(4, ih, id, one_d, one_h);
    free_pair(&a);
    free_pair(&v);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* Repeated indices: the last of them in C order wins, on every backend. */
static void test_put_last_writer(rs_context *ctx) {
  enum { N = 50, M = 20000 };
  int64_t n = N, m = M;
  int64_t *iv = malloc(M * sizeof *iv);
  double *vv = malloc(M * sizeof *vv), want[N], got[N];
  for (int j = 0; j < N; j++) want[j] = -1;
  for (int k = 0; k < M; k++) {
    iv[k] = (k * 7919) % N - (k % 2 ? N : 0); /* negative half the time */
    vv[k] = k;
    want[(iv[k] + N) % N] = k; /* the plain loop */
  }
  for (int pl = 0; pl < 2; pl++) {
    rs_array *ih = NULL, *vh = NULL, *i = NULL, *v = NULL, *a = NULL;
    CHECK_OK(rs_host_array_wrap(&ih, ctx, iv, 1, &m, RS_INT64, NULL));
    CHECK_OK(rs_host_array_wrap(&vh, ctx, vv, 1, &m, RS_FLOAT64, NULL));
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    CHECK_OK(rs_asarray(&i, ih, where, NULL));
    CHECK_OK(rs_asarray(&v, vh, where, NULL));
    CHECK_OK(rs_full(&a, ctx, where, 1, &n, RS_FLOAT64, rs_scalar_float(-1), NULL));
    CHECK_OK(rs_put(a, i, 0, v, NULL));
    CHECK_OK(rs_t_read_(a, got));
    for (int j = 0; j < N; j++) CHECK_MSG(got[j] == want[j], "%s: element %d is %g, the last writer %g",
                                          pl ? "host" : "device", j, got[j], want[j]);
    tl_release(5, ih, vh, i, v, a);
  }
  free(iv);
  free(vv);
}

static void test_masks(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[3] = {5, 6, 7}, m1[1] = {5}, m2[2] = {5, 6}, v7[1] = {7};
  pair m_1, m_2, m_3;
  CHECK_OK(make_pair(&m_1, s, ctx, RS_BOOL, 1, m1, 90, 0));
  CHECK_OK(make_pair(&m_2, s, ctx, RS_BOOL, 2, m2, 91, 0));
  CHECK_OK(make_pair(&m_3, s, ctx, RS_BOOL, 3, shape, 92, 0));
  pair *ms[3] = {&m_1, &m_2, &m_3};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a, v;
    CHECK_OK(make_pair(&a, s, ctx, d, 3, shape, 100 + di, 1));
    CHECK_OK(make_pair(&v, s, ctx, d, 1, v7, 120 + di, 1));
    pair *m = ms[di % 3];
    ew_case *c = suite_add(s, "a[mask] (%s, mask %dd)", rs_dtype_name(d), (di % 3) + 1);
    c->sdev = rs_mask_get(&c->dev, a.dev, m->dev, NULL);
    c->shost = rs_mask_get(&c->host, a.host, m->host, NULL);
    c->np = tl_np_expr(&s->np, "a%d[a%d]", a.np, m->np);
    if (di % 3 < 2) { /* values of the trailing axis, broadcast over the count */
      c = suite_add(s, "a[mask] = v (%s, mask %dd)", rs_dtype_name(d), (di % 3) + 1);
      CHECK_OK(rs_copy(&c->dev, a.dev, NULL));
      CHECK_OK(rs_copy(&c->host, a.host, NULL));
      c->sdev = rs_mask_set(c->dev, m->dev, v.dev, NULL);
      c->shost = rs_mask_set(c->host, m->host, v.host, NULL);
      c->np = tl_np_expr(&s->np, "(lambda b: (b.__setitem__(a%d, a%d), b)[1])(a%d.copy())", m->np, v.np, a.np);
    }
    c = suite_add(s, "a[mask] = 3 (%s)", rs_dtype_name(d));
    CHECK_OK(rs_copy(&c->dev, a.dev, NULL));
    CHECK_OK(rs_copy(&c->host, a.host, NULL));
    c->sdev = rs_mask_set_scalar(c->dev, m->dev, rs_scalar_int(3), NULL);
    c->shost = rs_mask_set_scalar(c->host, m->host, rs_scalar_int(3), NULL);
    c->np = tl_np_expr(&s->np, "(lambda b: (b.__setitem__(a%d, 3), b)[1])(a%d.copy())", m->np, a.np);
    c = suite_add(s, "nonzero(%s)", rs_dtype_name(d));
    c->sdev = rs_nonzero(&c->dev, a.dev, NULL);
    c->shost = rs_nonzero(&c->host, a.host, NULL);
    c->np = tl_np_expr(&s->np, "np.array(np.nonzero(a%d))", a.np);
    const int ax[2] = {0, 2};
    c = suite_add(s, "count_nonzero(%s, axes (0, 2), keepdims)", rs_dtype_name(d));
    c->sdev = rs_count_nonzero(&c->dev, a.dev, 2, ax, 1, NULL);
    c->shost = rs_count_nonzero(&c->host, a.host, 2, ax, 1, NULL);
    c->np = tl_np_expr(&s->np, "np.count_nonzero(a%d, axis=(0, 2), keepdims=True)", a.np);
    c = suite_add(s, "count_nonzero(%s)", rs_dtype_name(d));
    c->sdev = rs_count_nonzero(&c->dev, a.dev, 0, NULL, 0, NULL);
    c->shost = rs_count_nonzero(&c->host, a.host, 0, NULL, 0, NULL);
    c->np = tl_np_expr(&s->np, "np.count_nonzero(a%d)", a.np);
    free_pair(&a);
    free_pair(&v);
  }
  int bad = suite_check(s, ctx);
  for (int k = 0; k < 3; k++) free_pair(ms[k]);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_searchsorted(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t n = 300, vshape[2] = {7, 9};
  const rs_dtype ds[] = {RS_BOOL,   RS_INT8,    RS_INT16,   RS_INT32,  RS_INT64,   RS_UINT8,
                         RS_UINT16, RS_UINT32, RS_UINT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    pair a, v;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, &n, 200 + di, 1));
    CHECK_OK(make_pair(&v, s, ctx, d, 2, vshape, 220 + di, 1));
    rs_array *sd = NULL, *sh = NULL, *od = NULL, *oh = NULL;
    CHECK_OK(rs_sort(&sd, a.dev, NULL));
    CHECK_OK(rs_sort(&sh, a.host, NULL));
    CHECK_OK(rs_argsort(&od, a.dev, NULL));
    CHECK_OK(rs_argsort(&oh, a.host, NULL));
    for (int side = 0; side < 2; side++) {
      const char *sn = side ? "right" : "left";
      ew_case *c = suite_add(s, "searchsorted(%s, %s)", rs_dtype_name(d), sn);
      c->sdev = rs_searchsorted(&c->dev, sd, v.dev, (rs_side)side, NULL, NULL);
      c->shost = rs_searchsorted(&c->host, sh, v.host, (rs_side)side, NULL, NULL);
      c->np = tl_np_expr(&s->np, "np.searchsorted(np.sort(a%d), a%d, side='%s')", a.np, v.np, sn);
      c = suite_add(s, "searchsorted(%s, %s, sorter)", rs_dtype_name(d), sn);
      c->sdev = rs_searchsorted(&c->dev, a.dev, v.dev, (rs_side)side, od, NULL);
      c->shost = rs_searchsorted(&c->host, a.host, v.host, (rs_side)side, oh, NULL);
      c->np = tl_np_expr(&s->np, "np.searchsorted(a%d, a%d, side='%s', sorter=np.argsort(a%d, kind='stable'))", a.np,
                         v.np, sn, a.np);
    }
    tl_release(4, sd, sh, od, oh);
    free_pair(&a);
    free_pair(&v);
  }
  /* mixed dtypes: int array searched for floats (NumPy's promotion) */
  pair ai, vf;
  CHECK_OK(make_pair(&ai, s, ctx, RS_INT32, 1, &n, 240, 0));
  CHECK_OK(make_pair(&vf, s, ctx, RS_FLOAT64, 2, vshape, 241, 1));
  rs_array *sd = NULL, *sh = NULL;
  CHECK_OK(rs_sort(&sd, ai.dev, NULL));
  CHECK_OK(rs_sort(&sh, ai.host, NULL));
  ew_case *c = suite_add(s, "searchsorted(int32, float64 values)");
  c->sdev = rs_searchsorted(&c->dev, sd, vf.dev, RS_SIDE_LEFT, NULL, NULL);
  c->shost = rs_searchsorted(&c->host, sh, vf.host, RS_SIDE_LEFT, NULL, NULL);
  c->np = tl_np_expr(&s->np, "np.searchsorted(np.sort(a%d), a%d)", ai.np, vf.np);
  int bad = suite_check(s, ctx);
  tl_release(2, sd, sh);
  free_pair(&ai);
  free_pair(&vf);
  suite_free(s);
  CHECK(bad == 0);
}

/* Views in, views out; empty and 0-d arrays. */
static void test_views_empty_0d(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {9, 8}, n4 = 4, zero = 0, e2[2] = {0, 8};
  pair a, ix, e, m;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT32, 2, shape, 300, 1));
  CHECK_OK(make_pair(&e, s, ctx, RS_INT16, 2, e2, 301, 0));
  CHECK_OK(make_pair(&m, s, ctx, RS_BOOL, 1, &zero, 302, 0));
  ix.dev = ix.host = NULL;
  CHECK_OK(make_idx(&ix.dev, ctx, RS_MEM_DEVICE, RS_INT64, 1, &n4, -8, 16, 7));
  CHECK_OK(make_idx(&ix.host, ctx, RS_MEM_HOST, RS_INT64, 1, &n4, -8, 16, 7));
  ix.np = tl_np_input(&s->np, ix.host);
  rs_slice sl[2] = {{1, 9, 2}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1}};
  rs_array *vd = NULL, *vh = NULL, *td = NULL, *th = NULL;
  CHECK_OK(rs_array_slice(&vd, a.dev, 2, sl));
  CHECK_OK(rs_array_slice(&vh, a.host, 2, sl));
  CHECK_OK(rs_array_transpose(&td, a.dev));
  CHECK_OK(rs_array_transpose(&th, a.host));
  ew_case *c = suite_add(s, "take(strided view, axis 1)");
  c->sdev = rs_take(&c->dev, vd, ix.dev, 1, NULL);
  c->shost = rs_take(&c->host, vh, ix.host, 1, NULL);
  c->np = tl_np_expr(&s->np, "np.take(a%d[1:9:2, ::-1], a%d, axis=1)", a.np, ix.np);
  c = suite_add(s, "take(transposed, flat)");
  c->sdev = rs_take(&c->dev, td, ix.dev, RS_INDEX_FLAT, NULL);
  c->shost = rs_take(&c->host, th, ix.host, RS_INDEX_FLAT, NULL);
  c->np = tl_np_expr(&s->np, "np.take(a%d.T, a%d)", a.np, ix.np);
  c = suite_add(s, "nonzero(transposed)");
  c->sdev = rs_nonzero(&c->dev, td, NULL);
  c->shost = rs_nonzero(&c->host, th, NULL);
  c->np = tl_np_expr(&s->np, "np.array(np.nonzero(a%d.T))", a.np);
  c = suite_add(s, "nonzero(empty)");
  c->sdev = rs_nonzero(&c->dev, e.dev, NULL);
  c->shost = rs_nonzero(&c->host, e.host, NULL);
  c->np = tl_np_expr(&s->np, "np.array(np.nonzero(a%d))", e.np);
  c = suite_add(s, "take(empty, axis 1)");
  c->sdev = rs_take(&c->dev, e.dev, ix.dev, 1, NULL);
  c->shost = rs_take(&c->host, e.host, ix.host, 1, NULL);
  c->np = tl_np_expr(&s->np, "np.take(a%d, a%d, axis=1)", e.np, ix.np);
  c = suite_add(s, "empty[empty mask]");
  c->sdev = rs_mask_get(&c->dev, e.dev, m.dev, NULL);
  c->shost = rs_mask_get(&c->host, e.host, m.host, NULL);
  c->np = tl_np_expr(&s->np, "a%d[a%d]", e.np, m.np);
  c = suite_add(s, "count_nonzero(empty)");
  c->sdev = rs_count_nonzero(&c->dev, e.dev, 0, NULL, 0, NULL);
  c->shost = rs_count_nonzero(&c->host, e.host, 0, NULL, 0, NULL);
  c->np = tl_np_expr(&s->np, "np.count_nonzero(a%d)", e.np);
  /* a 0-d array: taken from flattened, index -1 */
  rs_array *zd = NULL, *zh = NULL, *i0d = NULL, *i0h = NULL;
  int64_t one = 1, minus1 = -1;
  CHECK_OK(rs_full(&zd, ctx, RS_MEM_DEVICE, 0, NULL, RS_INT32, rs_scalar_int(42), NULL));
  CHECK_OK(rs_full(&zh, ctx, RS_MEM_HOST, 0, NULL, RS_INT32, rs_scalar_int(42), NULL));
  CHECK_OK(rs_full(&i0d, ctx, RS_MEM_DEVICE, 1, &one, RS_INT64, rs_scalar_int(minus1), NULL));
  CHECK_OK(rs_full(&i0h, ctx, RS_MEM_HOST, 1, &one, RS_INT64, rs_scalar_int(minus1), NULL));
  c = suite_add(s, "take(0-d, flat, [-1])");
  c->sdev = rs_take(&c->dev, zd, i0d, RS_INDEX_FLAT, NULL);
  c->shost = rs_take(&c->host, zh, i0h, RS_INDEX_FLAT, NULL);
  c->np = tl_np_expr(&s->np, "np.take(np.int32(42), [-1])");
  rs_array *sd = NULL, *sh = NULL; /* a 0-d index drops the axis */
  CHECK_OK(rs_full(&sd, ctx, RS_MEM_DEVICE, 0, NULL, RS_INT16, rs_scalar_int(-2), NULL));
  CHECK_OK(rs_full(&sh, ctx, RS_MEM_HOST, 0, NULL, RS_INT16, rs_scalar_int(-2), NULL));
  c = suite_add(s, "take(2-d, 0-d index -2, axis 1)");
  c->sdev = rs_take(&c->dev, a.dev, sd, 1, NULL);
  c->shost = rs_take(&c->host, a.host, sh, 1, NULL);
  c->np = tl_np_expr(&s->np, "np.take(a%d, np.int16(-2), axis=1)", a.np);
  tl_release(2, sd, sh);
  rs_array *ed = NULL, *eh = NULL, *ei_d = NULL, *ei_h = NULL; /* empty sorted array, empty indices */
  CHECK_OK(rs_empty(&ed, ctx, RS_MEM_DEVICE, 1, &zero, RS_FLOAT32));
  CHECK_OK(rs_empty(&eh, ctx, RS_MEM_HOST, 1, &zero, RS_FLOAT32));
  CHECK_OK(rs_empty(&ei_d, ctx, RS_MEM_DEVICE, 1, &zero, RS_INT32));
  CHECK_OK(rs_empty(&ei_h, ctx, RS_MEM_HOST, 1, &zero, RS_INT32));
  c = suite_add(s, "searchsorted(empty, values)");
  c->sdev = rs_searchsorted(&c->dev, ed, a.dev, RS_SIDE_RIGHT, NULL, NULL);
  c->shost = rs_searchsorted(&c->host, eh, a.host, RS_SIDE_RIGHT, NULL, NULL);
  c->np = tl_np_expr(&s->np, "np.searchsorted(np.zeros(0, np.float32), a%d, side='right')", a.np);
  c = suite_add(s, "take(empty indices, axis 0)");
  c->sdev = rs_take(&c->dev, a.dev, ei_d, 0, NULL);
  c->shost = rs_take(&c->host, a.host, ei_h, 0, NULL);
  c->np = tl_np_expr(&s->np, "np.take(a%d, np.zeros(0, np.int32), axis=0)", a.np);
  c = suite_add(s, "take(empty axis, empty indices)");
  c->sdev = rs_take(&c->dev, ed, ei_d, 0, NULL);
  c->shost = rs_take(&c->host, eh, ei_h, 0, NULL);
  c->np = tl_np_expr(&s->np, "np.take(np.zeros(0, np.float32), np.zeros(0, np.int32))");
  tl_release(4, ed, eh, ei_d, ei_h);
  c = suite_add(s, "count_nonzero(0-d)");
  c->sdev = rs_count_nonzero(&c->dev, zd, 0, NULL, 0, NULL);
  c->shost = rs_count_nonzero(&c->host, zh, 0, NULL, 0, NULL);
  c->np = tl_np_expr(&s->np, "np.count_nonzero(np.int32(42))");
  int bad = suite_check(s, ctx);
  CHECK_STATUS(rs_take(&vd, zd, i0d, 0, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_nonzero(&vd, zd, NULL), RS_ERR_AXIS);
  tl_release(8, vd, vh, td, th, zd, zh, i0d, i0h);
  free_pair(&a);
  free_pair(&e);
  free_pair(&m);
  free_pair(&ix);
  suite_free(s);
  CHECK(bad == 0);
}

/* The _into forms: a view as destination, a dtype cast, a wrong shape refused. */
static void test_into(rs_context *ctx) {
  int64_t n = 10, three = 3;
  int64_t iv[3] = {9, -10, 4};
  rs_array *a = NULL, *ih = NULL, *i = NULL, *dst = NULL, *view = NULL, *bad = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 10, 1, RS_INT32, NULL));
  CHECK_OK(rs_host_array_wrap(&ih, ctx, iv, 1, &three, RS_INT64, NULL));
  CHECK_OK(rs_to_device(&i, ih, 0, NULL));
  int64_t six = 6;
  CHECK_OK(rs_zeros(&dst, ctx, RS_MEM_DEVICE, 1, &six, RS_INT64, NULL));
  CHECK_OK(rs_array_slice(&view, dst, 1, &(rs_slice){0, 6, 2}));
  CHECK_OK(rs_take_into(view, a, i, 0, NULL)); /* int32 into an int64 view */
  int64_t got[6];
  CHECK_OK(rs_t_read_(dst, got));
  CHECK(got[0] == 9 && got[1] == 0 && got[2] == 0 && got[3] == 0 && got[4] == 4 && got[5] == 0);
  CHECK_OK(rs_zeros(&bad, ctx, RS_MEM_DEVICE, 1, &n, RS_INT32, NULL));
  CHECK_STATUS(rs_take_into(bad, a, i, 0, NULL), RS_ERR_SHAPE);
  tl_release(6, a, ih, i, dst, view, bad);
}

/* Bad input: a status, a message naming the problem, nothing written. */
static void test_bad_input(rs_context *ctx) {
  int64_t n = 8, five = 5, two = 2, shape[2] = {2, 4};
  rs_array *a = NULL, *dst = NULL, *m = NULL, *ih = NULL, *i = NULL, *f = NULL, *o = NULL, *v = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 8, 1, RS_FLOAT64, NULL));
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 1, &two, RS_FLOAT64, rs_scalar_float(-7), NULL));
  CHECK_OK(rs_ones(&m, ctx, RS_MEM_DEVICE, 1, &five, RS_BOOL, NULL));
  int64_t iv[2] = {3, 8};
  CHECK_OK(rs_host_array_wrap(&ih, ctx, iv, 1, &two, RS_INT64, NULL));
  CHECK_OK(rs_to_device(&i, ih, 0, NULL));
  CHECK_STATUS(rs_take_into(dst, a, i, 0, NULL), RS_ERR_INDEX);
  CHECK_ERRMSG("index 8 is out of bounds");
  iv[1] = -9;
  CHECK_OK(rs_to_device_into(i, ih, NULL));
  CHECK_STATUS(rs_take_into(dst, a, i, 0, NULL), RS_ERR_INDEX);
  CHECK_ERRMSG("index -9 is out of bounds");
  CHECK_STATUS(rs_put(a, i, 0, dst, NULL), RS_ERR_INDEX);
  CHECK_STATUS(rs_take_into(dst, a, i, 1, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("axis 1 is out of bounds");
  CHECK_STATUS(rs_mask_get(&o, a, m, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("mask of shape (5");
  CHECK_STATUS(rs_mask_set_scalar(a, m, rs_scalar_float(1), NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_mask_get(&o, a, a, NULL), RS_ERR_DTYPE);
  CHECK_OK(rs_astype(&f, a, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_take(&o, a, f, 0, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("indices must be integers");
  CHECK_STATUS(rs_searchsorted(&o, a, a, (rs_side)7, NULL, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_OK(rs_array_reshape(&v, a, 2, shape));
  CHECK_STATUS(rs_searchsorted(&o, v, a, RS_SIDE_LEFT, NULL, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_take_along_axis(&o, v, i, 0, NULL), RS_ERR_SHAPE);
  CHECK(o == NULL);
  /* nothing written */
  double got[8], d2[2];
  CHECK_OK(rs_t_read_(a, got));
  for (int k = 0; k < 8; k++) CHECK(got[k] == k);
  CHECK_OK(rs_t_read_(dst, d2));
  CHECK(d2[0] == -7 && d2[1] == -7);
  (void)n;
  tl_release(7, a, dst, m, ih, i, f, v);
}

/* A masked read of device data reads its count back once, recorded with its cause. */
static void test_count_read_recorded(rs_context *ctx) {
  int64_t n = 1000;
  rs_array *a = NULL, *m = NULL, *r = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 1000, 1, RS_INT64, NULL));
  CHECK_OK(rs_binary_scalar(&m, RS_OP_LESS, a, rs_scalar_int(300), NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  rs_ledger_stats before, after;
  CHECK_OK(rs_ledger_get_stats(ctx, &before));
  CHECK_OK(rs_mask_get(&r, a, m, NULL));
  CHECK_OK(rs_ledger_get_stats(ctx, &after));
  CHECK_EQ_I64(rs_array_shape(r)[0], 300);
  CHECK_EQ_I64(after.copies[RS_D2H][1] - before.copies[RS_D2H][1], 1); /* implicit */
  CHECK_EQ_I64(after.bytes[RS_D2H][1] - before.bytes[RS_D2H][1], 8);
  CHECK_EQ_I64(after.copies[RS_D2H][0] - before.copies[RS_D2H][0], 0);
  /* a guard that refuses implicit reads refuses it, by the op's name, and returns nothing */
  rs_array *r2 = NULL;
  CHECK_OK(rs_guard_push(ctx, RS_D2H, RS_GUARD_DISALLOW));
  CHECK_STATUS(rs_mask_get(&r2, a, m, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_ERRMSG("mask_get");
  CHECK_OK(rs_guard_pop(ctx));
  CHECK(r2 == NULL);
  (void)n;
  tl_release(3, a, m, r);
}

static const rs_test_case tests[] = {RS_TEST(test_take_every_dtype), RS_TEST(test_take_along_axis), RS_TEST(test_put),
                                     RS_TEST(test_put_last_writer),  RS_TEST(test_masks),           RS_TEST(test_searchsorted),
                                     RS_TEST(test_views_empty_0d),   RS_TEST(test_into),            RS_TEST(test_bad_input),
                                     RS_TEST(test_count_read_recorded)};
RS_TEST_MAIN(tests)
