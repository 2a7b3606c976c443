/* Views: reshape, ravel, transpose/permute, slices, expand_dims/squeeze, contiguity,
 * F order, and buffers kept alive by views.
 *
 * Every view test runs twice: on a pageable host array (values read through
 * rs_array_host_data and the view's strides) and on a device array (values read by
 * copying the view to the host). The base arrays hold int32 values equal to the C-order
 * flat index of each element, and every view is compared element by element with a
 * reference computed here by plain loops. */
#include "harness.h"

#define D RS_SLICE_DEFAULT

/* A new host or device int32 array whose element at C-order flat index f holds f. */
static void make_base(rs_context *ctx, int device, int ndim, const int64_t *shape,
                      rs_order order, rs_array **out) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  int32_t *vals = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
  CHECK(vals != NULL);
  for (int64_t i = 0; i < n; i++) vals[i] = (int32_t)i;
  rs_status st = device ? rs_device_array(out, ctx, ndim, shape, RS_INT32, NULL, order)
                        : rs_host_array(out, ctx, ndim, shape, RS_INT32, NULL, order);
  if (st != RS_OK) {
    free(vals);
    FAIL("allocating the base array: %s \"%s\"", rs_status_name(st), rs_t_msg_());
  }
  st = rs_t_write_(*out, vals);
  free(vals);
  CHECK_OK(st);
}

/* v has this shape, dtype int32, and its elements in C order equal expected. */
static void check_view(const rs_array *v, int ndim, const int64_t *shape,
                       const int32_t *expected, const char *what) {
  CHECK_MSG(v != NULL, "%s: NULL view", what);
  CHECK_MSG(rs_array_ndim(v) == ndim, "%s: ndim %d, expected %d", what, rs_array_ndim(v), ndim);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    CHECK_MSG(rs_array_shape(v)[d] == shape[d], "%s: shape[%d] = %lld, expected %lld", what,
              d, (long long)rs_array_shape(v)[d], (long long)shape[d]);
    n *= shape[d];
  }
  CHECK_MSG(rs_array_size(v) == n, "%s: size %lld, expected %lld", what,
            (long long)rs_array_size(v), (long long)n);
  CHECK_EQ_I64(rs_array_dtype(v), RS_INT32);
  CHECK_EQ_I64(rs_array_nbytes(v), n * 4);
  int32_t got[256];
  CHECK(n <= 256);
  for (int64_t i = 0; i < n; i++) got[i] = -12345;
  CHECK_OK(rs_t_read_(v, got));
  for (int64_t i = 0; i < n; i++)
    CHECK_MSG(got[i] == expected[i], "%s: element %lld (C order) is %d, expected %d", what,
              (long long)i, got[i], expected[i]);
}

/* Checks that a view of a host base shares its memory: element 0 of the view is at
 * base's host pointer + offset_bytes. */
static void check_shares(const rs_array *view, const rs_array *base, int64_t offset_bytes,
                         const char *what) {
  if (rs_array_kind(base) == RS_MEM_DEVICE) {
    CHECK_MSG(rs_array_host_data(view) == NULL, "%s: device view has a host pointer", what);
    if (rs_array_size(view) > 0)
      CHECK_MSG((char *)rs_array_device_data(view) ==
                    (char *)rs_array_device_data(base) + offset_bytes,
                "%s: view does not address the base's device memory at +%lld", what,
                (long long)offset_bytes);
  } else {
    CHECK_MSG((char *)rs_array_host_data(view) == (char *)rs_array_host_data(base) + offset_bytes,
              "%s: view does not address the base's memory at +%lld (a copy?)", what,
              (long long)offset_bytes);
  }
  CHECK_MSG(rs_array_kind(view) == rs_array_kind(base), "%s: kind changed", what);
  CHECK_MSG(rs_array_offset(view) == rs_array_offset(base) + offset_bytes,
            "%s: offset %lld, expected %lld", what, (long long)rs_array_offset(view),
            (long long)(rs_array_offset(base) + offset_bytes));
}

static void check_strides(const rs_array *v, int ndim, const int64_t *strides, const char *what) {
  CHECK_EQ_I64(rs_array_ndim(v), ndim);
  for (int d = 0; d < ndim; d++)
    CHECK_MSG(rs_array_strides(v)[d] == strides[d], "%s: strides[%d] = %lld, expected %lld",
              what, d, (long long)rs_array_strides(v)[d], (long long)strides[d]);
}

#define S3(a, b, c) ((const int64_t[]){a, b, c})
#define S2(a, b) ((const int64_t[]){a, b})
#define S1(a) ((const int64_t[]){a})
#define S4(a, b, c, e) ((const int64_t[]){a, b, c, e})

/* ---- reshape ------------------------------------------------------------------------ */

static void do_reshape(rs_context *ctx, int device) {
  rs_array *A = NULL, *r = NULL, *T = NULL, *S = NULL, *M = NULL, *rows = NULL, *cols = NULL;
  int32_t exp[64];
  make_base(ctx, device, 3, S3(2, 3, 4), RS_ORDER_C, &A);
  CHECK_PASSING();

  /* (2,3,4) -> (4,-1) = (4,6), C-contiguous, same memory, same order of values */
  CHECK_OK(rs_array_reshape(&r, A, 2, S2(4, -1)));
  for (int i = 0; i < 24; i++) exp[i] = i;
  check_view(r, 2, S2(4, 6), exp, "reshape (4,-1)");
  check_strides(r, 2, S2(24, 4), "reshape (4,-1)");
  check_shares(r, A, 0, "reshape (4,-1)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;
  CHECK_OK(rs_array_reshape(&r, A, 1, S1(-1)));
  check_view(r, 1, S1(24), exp, "reshape (-1)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;
  CHECK_OK(rs_array_reshape(&r, A, 4, S4(1, 24, 1, 1)));
  check_view(r, 4, S4(1, 24, 1, 1), exp, "reshape (1,24,1,1)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;

  /* impossible element counts */
  CHECK_STATUS(rs_array_reshape(&r, A, 2, S2(5, -1)), RS_ERR_SHAPE);
  CHECK(r == NULL);
  CHECK_ERRMSG("24", "5");
  CHECK_STATUS(rs_array_reshape(&r, A, 2, S2(5, 5)), RS_ERR_SHAPE);
  CHECK_STATUS(rs_array_reshape(&r, A, 1, S1(25)), RS_ERR_SHAPE);
  CHECK_FAILS(rs_array_reshape(&r, A, 2, S2(-1, -1)));
  CHECK_FAILS(rs_array_reshape(&r, A, 2, S2(-2, -12)));
  CHECK(r == NULL);

  /* transposed (4,3,2), strides (4,16,48): a reshape that needs a copy is refused */
  CHECK_OK(rs_array_transpose(&T, A));
  CHECK_STATUS(rs_array_reshape(&r, T, 1, S1(24)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_array_reshape(&r, T, 2, S2(4, 6)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_array_reshape(&r, T, 2, S2(12, -1)), RS_ERR_NOT_CONTIGUOUS);
  CHECK(r == NULL);
  /* ... but splitting its first axis (4, stride 4) into (2,2) is expressible:
   * R[p,q,j,i] = T[2p+q,j,i] = A[i,j,2p+q] = 12i + 4j + 2p + q */
  CHECK_OK(rs_array_reshape(&r, T, 4, S4(2, 2, 3, 2)));
  {
    int n = 0;
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < 2; q++)
        for (int j = 0; j < 3; j++)
          for (int i = 0; i < 2; i++) exp[n++] = 12 * i + 4 * j + 2 * p + q;
  }
  check_view(r, 4, S4(2, 2, 3, 2), exp, "reshape of transposed (2,2,3,2)");
  check_strides(r, 4, S4(8, 4, 16, 48), "reshape of transposed (2,2,3,2)");
  check_shares(r, A, 0, "reshape of transposed");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;

  /* S = A[:, ::2, :] : (2,2,4), strides (48,32,4); S[i,j,k] = 12i + 8j + k */
  rs_slice sl[3] = {RS_SLICE_ALL, {D, D, 2}, RS_SLICE_ALL};
  CHECK_OK(rs_array_slice(&S, A, 3, sl));
  CHECK_STATUS(rs_array_reshape(&r, S, 2, S2(4, 4)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_array_reshape(&r, S, 2, S2(2, 8)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_array_reshape(&r, S, 1, S1(16)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_OK(rs_array_reshape(&r, S, 4, S4(2, 2, 2, 2)));
  {
    int n = 0;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        for (int a = 0; a < 2; a++)
          for (int b = 0; b < 2; b++) exp[n++] = 12 * i + 8 * j + 2 * a + b;
  }
  check_view(r, 4, S4(2, 2, 2, 2), exp, "reshape of A[:, ::2, :]");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;

  /* rows and columns of the (4,6) reshape */
  CHECK_OK(rs_array_reshape(&M, A, 2, S2(4, 6)));
  rs_slice rsl[1] = {{1, 4, 2}}; /* rows 1, 3: (2,6), strides (48,4) */
  CHECK_OK(rs_array_slice(&rows, M, 1, rsl));
  CHECK_STATUS(rs_array_reshape(&r, rows, 1, S1(12)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_OK(rs_array_reshape(&r, rows, 3, S3(2, 2, 3)));
  {
    int n = 0;
    for (int q = 0; q < 2; q++)
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++) exp[n++] = 6 * (1 + 2 * q) + 3 * a + b;
  }
  check_view(r, 3, S3(2, 2, 3), exp, "reshape of rows 1::2");
  check_shares(r, A, 24, "reshape of rows 1::2");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;
  rs_slice csl[2] = {RS_SLICE_ALL, {1, 3, 1}}; /* columns 1..2: (4,2), strides (24,4) */
  CHECK_OK(rs_array_slice(&cols, M, 2, csl));
  CHECK_STATUS(rs_array_reshape(&r, cols, 1, S1(8)), RS_ERR_NOT_CONTIGUOUS);
  CHECK_OK(rs_array_reshape(&r, cols, 3, S3(2, 2, 2)));
  {
    int n = 0;
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < 2; q++)
        for (int c = 0; c < 2; c++) exp[n++] = 6 * (2 * p + q) + 1 + c;
  }
  check_view(r, 3, S3(2, 2, 2), exp, "reshape of columns 1:3");
  check_strides(r, 3, S3(48, 24, 4), "reshape of columns 1:3");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));

  CHECK_OK(rs_array_release(cols));
  CHECK_OK(rs_array_release(rows));
  CHECK_OK(rs_array_release(M));
  CHECK_OK(rs_array_release(S));
  CHECK_OK(rs_array_release(T));
  CHECK_OK(rs_array_release(A));
}

/* ---- ravel -------------------------------------------------------------------------- */

static void do_ravel(rs_context *ctx, int device) {
  rs_array *A = NULL, *r = NULL, *T = NULL, *S = NULL, *F = NULL, *one = NULL;
  int32_t exp[64];
  make_base(ctx, device, 3, S3(2, 3, 4), RS_ORDER_C, &A);
  CHECK_PASSING();
  CHECK_OK(rs_array_ravel(&r, A));
  for (int i = 0; i < 24; i++) exp[i] = i;
  check_view(r, 1, S1(24), exp, "ravel");
  check_shares(r, A, 0, "ravel");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;

  CHECK_OK(rs_array_transpose(&T, A));
  CHECK_STATUS(rs_array_ravel(&r, T), RS_ERR_NOT_CONTIGUOUS);
  CHECK(r == NULL);
  rs_slice sl[3] = {RS_SLICE_ALL, {D, D, 2}, RS_SLICE_ALL};
  CHECK_OK(rs_array_slice(&S, A, 3, sl));
  CHECK_STATUS(rs_array_ravel(&r, S), RS_ERR_NOT_CONTIGUOUS);
  /* A[1:2] is contiguous: (1,3,4) holding 12..23 */
  rs_slice s1[1] = {{1, 2, 1}};
  CHECK_OK(rs_array_slice(&one, A, 1, s1));
  CHECK_OK(rs_array_ravel(&r, one));
  for (int i = 0; i < 12; i++) exp[i] = 12 + i;
  check_view(r, 1, S1(12), exp, "ravel of A[1:2]");
  check_shares(r, A, 48, "ravel of A[1:2]");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(r));
  r = NULL;
  /* an F-ordered (3,4) array is not C-contiguous */
  make_base(ctx, device, 2, S2(3, 4), RS_ORDER_F, &F);
  CHECK_PASSING();
  CHECK_STATUS(rs_array_ravel(&r, F), RS_ERR_NOT_CONTIGUOUS);
  CHECK(r == NULL);
  CHECK_OK(rs_array_release(F));
  CHECK_OK(rs_array_release(one));
  CHECK_OK(rs_array_release(S));
  CHECK_OK(rs_array_release(T));
  CHECK_OK(rs_array_release(A));
}

/* ---- transpose / permute ------------------------------------------------------------ */

static void do_transpose(rs_context *ctx, int device) {
  rs_array *A = NULL, *T = NULL, *P = NULL, *Q = NULL, *TT = NULL;
  int32_t exp[64];
  make_base(ctx, device, 3, S3(2, 3, 4), RS_ORDER_C, &A);
  CHECK_PASSING();
  CHECK_OK(rs_array_transpose(&T, A));
  {
    int n = 0; /* T[k,j,i] = A[i,j,k] */
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++) exp[n++] = 12 * i + 4 * j + k;
  }
  check_view(T, 3, S3(4, 3, 2), exp, "transpose");
  check_strides(T, 3, S3(4, 16, 48), "transpose");
  check_shares(T, A, 0, "transpose");
  CHECK_PASSING();
  /* transposing twice gives A back */
  CHECK_OK(rs_array_transpose(&TT, T));
  for (int i = 0; i < 24; i++) exp[i] = i;
  check_view(TT, 3, S3(2, 3, 4), exp, "transpose twice");
  check_strides(TT, 3, S3(48, 16, 4), "transpose twice");
  CHECK_PASSING();

  /* axis i of the result is axis axes[i] of A: (1,2,0) -> P[x,y,z] = A[z,x,y] */
  CHECK_OK(rs_array_permute(&P, A, (const int[]){1, 2, 0}));
  {
    int n = 0;
    for (int x = 0; x < 3; x++)
      for (int y = 0; y < 4; y++)
        for (int z = 0; z < 2; z++) exp[n++] = 12 * z + 4 * x + y;
  }
  check_view(P, 3, S3(3, 4, 2), exp, "permute (1,2,0)");
  check_strides(P, 3, S3(16, 4, 48), "permute (1,2,0)");
  CHECK_PASSING();
  /* negative axes: (-1,0,-2) = (2,0,1) -> Q[x,y,z] = A[y,z,x] */
  CHECK_OK(rs_array_permute(&Q, A, (const int[]){-1, 0, -2}));
  {
    int n = 0;
    for (int x = 0; x < 4; x++)
      for (int y = 0; y < 2; y++)
        for (int z = 0; z < 3; z++) exp[n++] = 12 * y + 4 * z + x;
  }
  check_view(Q, 3, S3(4, 2, 3), exp, "permute (-1,0,-2)");
  CHECK_PASSING();

  rs_array *bad = NULL;
  CHECK_FAILS(rs_array_permute(&bad, A, (const int[]){0, 0, 1}));
  CHECK_FAILS(rs_array_permute(&bad, A, (const int[]){0, 1, 3}));
  CHECK_FAILS(rs_array_permute(&bad, A, (const int[]){2, 1, -4}));
  CHECK(bad == NULL);

  CHECK_OK(rs_array_release(Q));
  CHECK_OK(rs_array_release(P));
  CHECK_OK(rs_array_release(TT));
  CHECK_OK(rs_array_release(T));
  CHECK_OK(rs_array_release(A));
}

/* ---- slices ------------------------------------------------------------------------- */

/* Python's slice semantics on range(n), for in-range start/stop, written out plainly. */
static int ref_slice(int64_t n, int64_t start, int64_t stop, int64_t step, int32_t *out) {
  if (start == D) start = step > 0 ? 0 : n - 1;
  else if (start < 0) start += n;
  if (stop == D) stop = step > 0 ? n : -1;
  else if (stop < 0) stop += n;
  int k = 0;
  if (step > 0)
    for (int64_t i = start; i < stop; i += step) out[k++] = (int32_t)i;
  else
    for (int64_t i = start; i > stop; i += step) out[k++] = (int32_t)i;
  return k;
}

static void do_slice_1d(rs_context *ctx, int device) {
  rs_array *B = NULL;
  make_base(ctx, device, 1, S1(10), RS_ORDER_C, &B);
  CHECK_PASSING();
  static const struct {
    int64_t start, stop, step;
    int n;
    int32_t vals[10];
  } cases[] = {
      {2, 8, 2, 3, {2, 4, 6}},
      {8, 2, -2, 3, {8, 6, 4}},
      {D, D, -1, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {-3, D, 1, 3, {7, 8, 9}},
      {D, D, 3, 4, {0, 3, 6, 9}},
      {-2, D, -3, 3, {8, 5, 2}},
      {5, 5, 1, 0, {0}},
      {D, -7, 1, 3, {0, 1, 2}},
      {-1, -4, -1, 3, {9, 8, 7}},
      {D, 3, -1, 6, {9, 8, 7, 6, 5, 4}},
      {3, D, -1, 4, {3, 2, 1, 0}},
      {0, 10, 1, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {D, D, 20, 1, {0}},
      {7, 1, 1, 0, {0}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char what[96];
    snprintf(what, sizeof what, "[%lld:%lld:%lld]", (long long)cases[c].start,
             (long long)cases[c].stop, (long long)cases[c].step);
    int32_t ref[16];
    int nref = ref_slice(10, cases[c].start, cases[c].stop, cases[c].step, ref);
    /* the hand-written table and the plain loop agree (a check on this test itself) */
    CHECK_MSG(nref == cases[c].n, "%s: reference length %d vs table %d", what, nref,
              cases[c].n);
    CHECK_MSG(nref == 0 || memcmp(ref, cases[c].vals, (size_t)nref * 4) == 0,
              "%s: reference disagrees with the table", what);
    rs_array *v = NULL;
    rs_slice s = {cases[c].start, cases[c].stop, cases[c].step};
    CHECK_OK(rs_array_slice(&v, B, 1, &s));
    check_view(v, 1, S1(cases[c].n), cases[c].vals, what);
    CHECK_PASSING();
    if (cases[c].n > 0) {
      CHECK_MSG(rs_array_strides(v)[0] == 4 * cases[c].step, "%s: stride %lld", what,
                (long long)rs_array_strides(v)[0]);
      check_shares(v, B, 4 * (int64_t)cases[c].vals[0], what);
      CHECK_PASSING();
    }
    CHECK_OK(rs_array_release(v));
  }
  rs_array *v = NULL;
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){11, D, 1}), RS_ERR_INDEX);
  CHECK_ERRMSG("11");
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){D, 11, 1}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){-11, D, 1}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){D, -12, -1}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){20, 0, -1}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, B, 1, &(rs_slice){0, 5, 0}), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("step");
  rs_slice two[2] = {RS_SLICE_ALL, RS_SLICE_ALL};
  CHECK_FAILS(rs_array_slice(&v, B, 2, two)); /* more slices than axes */
  CHECK(v == NULL);
  CHECK_OK(rs_array_release(B));
}

static void do_slice_2d(rs_context *ctx, int device) {
  rs_array *M = NULL, *v = NULL, *v1 = NULL, *v2 = NULL;
  int32_t exp[64];
  make_base(ctx, device, 2, S2(4, 6), RS_ORDER_C, &M); /* M[r,c] = 6r + c */
  CHECK_PASSING();

  /* [1:4:2, ::-2] -> rows 1,3 x cols 5,3,1 */
  CHECK_OK(rs_array_slice(&v, M, 2, (rs_slice[]){{1, 4, 2}, {D, D, -2}}));
  {
    int n = 0;
    for (int r = 1; r < 4; r += 2)
      for (int c = 5; c >= 0; c -= 2) exp[n++] = 6 * r + c;
  }
  check_view(v, 2, S2(2, 3), exp, "[1:4:2, ::-2]");
  check_strides(v, 2, S2(48, -8), "[1:4:2, ::-2]");
  check_shares(v, M, 4 * (6 * 1 + 5), "[1:4:2, ::-2]");
  CHECK_PASSING();
  CHECK_EQ_I64(rs_array_is_c_contiguous(v), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(v), 0);
  CHECK_OK(rs_array_release(v));
  v = NULL;

  /* [-1:-4:-1, 2:5] -> rows 3,2,1 x cols 2,3,4 */
  CHECK_OK(rs_array_slice(&v, M, 2, (rs_slice[]){{-1, -4, -1}, {2, 5, 1}}));
  {
    int n = 0;
    for (int r = 3; r > 0; r--)
      for (int c = 2; c < 5; c++) exp[n++] = 6 * r + c;
  }
  check_view(v, 2, S2(3, 3), exp, "[-1:-4:-1, 2:5]");
  check_strides(v, 2, S2(-24, 4), "[-1:-4:-1, 2:5]");
  check_shares(v, M, 4 * (6 * 3 + 2), "[-1:-4:-1, 2:5]");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  v = NULL;

  /* one slice for two axes: [::-1] reverses the rows and keeps whole columns */
  CHECK_OK(rs_array_slice(&v, M, 1, (rs_slice[]){{D, D, -1}}));
  {
    int n = 0;
    for (int r = 3; r >= 0; r--)
      for (int c = 0; c < 6; c++) exp[n++] = 6 * r + c;
  }
  check_view(v, 2, S2(4, 6), exp, "[::-1]");
  check_strides(v, 2, S2(-24, 4), "[::-1]");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  v = NULL;

  /* a slice of a slice: V1 = M[::-1, ::-1]; V2 = V1[1:3, ::2] -> rows 2,1 x cols 5,3,1 */
  CHECK_OK(rs_array_slice(&v1, M, 2, (rs_slice[]){{D, D, -1}, {D, D, -1}}));
  CHECK_OK(rs_array_slice(&v2, v1, 2, (rs_slice[]){{1, 3, 1}, {D, D, 2}}));
  {
    int n = 0;
    for (int r = 2; r >= 1; r--)
      for (int c = 5; c >= 0; c -= 2) exp[n++] = 6 * r + c;
  }
  check_view(v2, 2, S2(2, 3), exp, "M[::-1, ::-1][1:3, ::2]");
  check_strides(v2, 2, S2(-24, -8), "M[::-1, ::-1][1:3, ::2]");
  check_shares(v2, M, 4 * (6 * 2 + 5), "M[::-1, ::-1][1:3, ::2]");
  CHECK_PASSING();
  /* transposing a reversed view still reads the right elements: V2^T[c,r] */
  rs_array *v3 = NULL;
  CHECK_OK(rs_array_transpose(&v3, v2));
  {
    int n = 0;
    for (int c = 5; c >= 0; c -= 2)
      for (int r = 2; r >= 1; r--) exp[n++] = 6 * r + c;
  }
  check_view(v3, 2, S2(3, 2), exp, "transpose of M[::-1, ::-1][1:3, ::2]");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v3));
  CHECK_OK(rs_array_release(v2));
  CHECK_OK(rs_array_release(v1));

  /* out of range on the second axis */
  v = NULL;
  CHECK_STATUS(rs_array_slice(&v, M, 2, (rs_slice[]){RS_SLICE_ALL, {0, 7, 1}}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, M, 2, (rs_slice[]){{-5, D, 1}, RS_SLICE_ALL}), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_slice(&v, M, 2, (rs_slice[]){RS_SLICE_ALL, {D, D, 0}}),
               RS_ERR_INVALID_ARGUMENT);
  CHECK(v == NULL);
  CHECK_OK(rs_array_release(M));
}

/* ---- expand_dims / squeeze ---------------------------------------------------------- */

static void do_expand_squeeze(rs_context *ctx, int device) {
  rs_array *E = NULL, *X = NULL, *v = NULL;
  int32_t exp[8] = {0, 1, 2, 3, 4, 5};
  make_base(ctx, device, 2, S2(2, 3), RS_ORDER_C, &E);
  CHECK_PASSING();
  static const struct {
    int axis;
    int64_t shape[3];
  } ex[] = {{0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}}, {-1, {2, 3, 1}}, {-3, {1, 2, 3}}};
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "expand_dims(axis=%d)", ex[i].axis);
    CHECK_OK(rs_array_expand_dims(&v, E, ex[i].axis));
    check_view(v, 3, ex[i].shape, exp, what);
    check_shares(v, E, 0, what);
    CHECK_PASSING();
    CHECK_OK(rs_array_release(v));
    v = NULL;
  }
  CHECK_STATUS(rs_array_expand_dims(&v, E, 3), RS_ERR_AXIS);
  CHECK_STATUS(rs_array_expand_dims(&v, E, -4), RS_ERR_AXIS);
  CHECK(v == NULL);

  CHECK_OK(rs_array_reshape(&X, E, 4, S4(1, 3, 1, 2)));
  CHECK_OK(rs_array_squeeze(&v, X, RS_ALL_AXES));
  check_view(v, 2, S2(3, 2), exp, "squeeze all");
  check_strides(v, 2, S2(8, 4), "squeeze all");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_squeeze(&v, X, 2));
  check_view(v, 3, S3(1, 3, 2), exp, "squeeze(2)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_squeeze(&v, X, 0));
  check_view(v, 3, S3(3, 1, 2), exp, "squeeze(0)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_squeeze(&v, X, -2));
  check_view(v, 3, S3(1, 3, 2), exp, "squeeze(-2)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  v = NULL;
  CHECK_STATUS(rs_array_squeeze(&v, X, 1), RS_ERR_SHAPE); /* length 3 */
  CHECK_STATUS(rs_array_squeeze(&v, X, 4), RS_ERR_AXIS);
  CHECK(v == NULL);
  /* squeezing an array without length-1 axes changes nothing */
  CHECK_OK(rs_array_squeeze(&v, E, RS_ALL_AXES));
  check_view(v, 2, S2(2, 3), exp, "squeeze all of (2,3)");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(X));
  CHECK_OK(rs_array_release(E));
}

/* ---- contiguity and F order --------------------------------------------------------- */

static void do_contiguity(rs_context *ctx, int device) {
  rs_array *C = NULL, *F = NULL, *T = NULL, *TF = NULL, *S = NULL, *one = NULL, *rev = NULL,
           *v1 = NULL, *v1s = NULL, *z = NULL;
  make_base(ctx, device, 3, S3(2, 3, 4), RS_ORDER_C, &C);
  CHECK_PASSING();
  make_base(ctx, device, 3, S3(2, 3, 4), RS_ORDER_F, &F);
  CHECK_PASSING();
  CHECK_EQ_I64(rs_array_is_c_contiguous(C), 1);
  CHECK_EQ_I64(rs_array_is_f_contiguous(C), 0);
  CHECK_EQ_I64(rs_array_is_c_contiguous(F), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(F), 1);
  check_strides(F, 3, S3(4, 8, 24), "F (2,3,4) int32");
  check_strides(C, 3, S3(48, 16, 4), "C (2,3,4) int32");
  CHECK_PASSING();
  /* the F array holds the right logical values */
  int32_t exp[24];
  for (int i = 0; i < 24; i++) exp[i] = i;
  check_view(F, 3, S3(2, 3, 4), exp, "F array values");
  CHECK_PASSING();

  CHECK_OK(rs_array_transpose(&T, C));
  CHECK_EQ_I64(rs_array_is_c_contiguous(T), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(T), 1);
  CHECK_OK(rs_array_transpose(&TF, F));
  CHECK_EQ_I64(rs_array_is_c_contiguous(TF), 1);
  CHECK_EQ_I64(rs_array_is_f_contiguous(TF), 0);

  CHECK_OK(rs_array_slice(&S, C, 2, (rs_slice[]){RS_SLICE_ALL, {D, D, 2}}));
  CHECK_EQ_I64(rs_array_is_c_contiguous(S), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(S), 0);
  CHECK_OK(rs_array_slice(&one, C, 1, (rs_slice[]){{1, 2, 1}}));
  CHECK_EQ_I64(rs_array_is_c_contiguous(one), 1);
  CHECK_OK(rs_array_slice(&rev, C, 3, (rs_slice[]){RS_SLICE_ALL, RS_SLICE_ALL, {D, D, -1}}));
  CHECK_EQ_I64(rs_array_is_c_contiguous(rev), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(rev), 0);

  /* 1-d: contiguous is both; every other element is neither */
  CHECK_OK(rs_array_reshape(&v1, C, 1, S1(24)));
  CHECK_EQ_I64(rs_array_is_c_contiguous(v1), 1);
  CHECK_EQ_I64(rs_array_is_f_contiguous(v1), 1);
  CHECK_OK(rs_array_slice(&v1s, v1, 1, (rs_slice[]){{D, D, 2}}));
  CHECK_EQ_I64(rs_array_is_c_contiguous(v1s), 0);
  CHECK_EQ_I64(rs_array_is_f_contiguous(v1s), 0);

  /* 0-d: both */
  if (device)
    CHECK_OK(rs_device_array(&z, ctx, 0, NULL, RS_FLOAT64, NULL, RS_ORDER_C));
  else
    CHECK_OK(rs_host_array(&z, ctx, 0, NULL, RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_EQ_I64(rs_array_is_c_contiguous(z), 1);
  CHECK_EQ_I64(rs_array_is_f_contiguous(z), 1);

  rs_array *all[] = {z, v1s, v1, rev, one, S, TF, T, F, C};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CHECK_OK(rs_array_release(all[i]));
}

static void test_f_order_layout(rs_context *ctx) {
  /* F-order allocation strides, for host and device, and the memory really is F */
  const int64_t shape[3] = {2, 3, 4};
  rs_array *h = NULL, *d = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 3, shape, RS_FLOAT64, NULL, RS_ORDER_F));
  check_strides(h, 3, S3(8, 16, 48), "host F float64");
  CHECK_OK(rs_device_array(&d, ctx, 3, shape, RS_FLOAT64, NULL, RS_ORDER_F));
  check_strides(d, 3, S3(8, 16, 48), "device F float64");
  CHECK_PASSING();
  double vals[24];
  for (int i = 0; i < 24; i++) vals[i] = 1.5 * i; /* logical C order */
  CHECK_OK(rs_t_write_(d, vals));
  /* copy the F device array into an F host array and look at its raw memory */
  CHECK_OK(rs_array_copy(h, d, NULL));
  const double *raw = (const double *)rs_array_host_data(h);
  CHECK(raw != NULL);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        CHECK_MSG(raw[i + 2 * j + 6 * k] == 1.5 * (12 * i + 4 * j + k),
                  "F memory at (%d,%d,%d) holds %g", i, j, k, raw[i + 2 * j + 6 * k]);
  /* and back into a C host array through the library */
  CHECK_OK(rs_copy_to_host(&back, d, NULL));
  double got[24];
  rs_t_gather_host_(back, got);
  for (int i = 0; i < 24; i++) CHECK_MSG(got[i] == vals[i], "element %d: %g", i, got[i]);
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* ---- views keep the buffer alive ----------------------------------------------------- */

static void do_keep_alive(rs_context *ctx, int device) {
  rs_array *A = NULL, *v = NULL, *w = NULL;
  int32_t exp[64];
  make_base(ctx, device, 2, S2(4, 6), RS_ORDER_C, &A);
  CHECK_PASSING();
  CHECK_OK(rs_array_slice(&v, A, 2, (rs_slice[]){{1, 3, 1}, {D, D, -1}}));
  CHECK_OK(rs_array_release(A)); /* the base handle goes; the view keeps the buffer */
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_EQ_I64(st.buffers, 1);
  CHECK(device ? st.device_bytes >= 96 : st.host_bytes >= 96);
  {
    int n = 0;
    for (int r = 1; r < 3; r++)
      for (int c = 5; c >= 0; c--) exp[n++] = 6 * r + c;
  }
  check_view(v, 2, S2(2, 6), exp, "view after its base was released");
  CHECK_PASSING();
  /* a view of the view, then drop the middle one */
  CHECK_OK(rs_array_transpose(&w, v));
  CHECK_OK(rs_array_release(v));
  {
    int n = 0;
    for (int c = 5; c >= 0; c--)
      for (int r = 1; r < 3; r++) exp[n++] = 6 * r + c;
  }
  check_view(w, 2, S2(6, 2), exp, "view of a released view");
  CHECK_PASSING();
  /* writing through the last view still works (the memory is really there) */
  int32_t neg[12];
  for (int i = 0; i < 12; i++) neg[i] = -i;
  CHECK_OK(rs_t_write_(w, neg));
  check_view(w, 2, S2(6, 2), neg, "written view");
  CHECK_PASSING();
  /* retain keeps it too */
  CHECK_OK(rs_array_retain(w));
  CHECK_OK(rs_array_release(w));
  check_view(w, 2, S2(6, 2), neg, "retained view");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(w));
}

#define BOTH(fn)                                           \
  static void test_##fn##_host(rs_context *c) { do_##fn(c, 0); } \
  static void test_##fn##_device(rs_context *c) { do_##fn(c, 1); }
BOTH(reshape)
BOTH(ravel)
BOTH(transpose)
BOTH(slice_1d)
BOTH(slice_2d)
BOTH(expand_squeeze)
BOTH(contiguity)
BOTH(keep_alive)

/* Every slice of an empty axis is empty, whatever its start and step (Python: x[0::-1]
 * of an empty list is empty); it was one element (found by fuzz_api_sequence). */
static void test_slice_of_empty_axis(rs_context *ctx) {
  int64_t shape[2] = {0, 3};
  rs_array *a = NULL, *v = NULL;
  CHECK_OK(rs_host_array(&a, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  const rs_slice cases[] = {{0, RS_SLICE_DEFAULT, -1}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1},
                            {0, 0, 1}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, 2}, {0, RS_SLICE_DEFAULT, -3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rs_slice s[2] = {cases[i], RS_SLICE_ALL};
    CHECK_OK(rs_array_slice(&v, a, 2, s));
    CHECK_MSG(rs_array_shape(v)[0] == 0 && rs_array_shape(v)[1] == 3, "case %zu: shape (%lld, %lld)", i,
              (long long)rs_array_shape(v)[0], (long long)rs_array_shape(v)[1]);
    CHECK_EQ_I64(rs_array_size(v), 0);
    CHECK_OK(rs_array_release(v));
    v = NULL;
  }
  rs_slice past = {1, RS_SLICE_DEFAULT, 1};
  CHECK_STATUS(rs_array_slice(&v, a, 1, &past), RS_ERR_INDEX);
  CHECK_OK(rs_array_release(a));
}

static const rs_test_case tests[] = {
    RS_TEST(test_slice_of_empty_axis),
    RS_TEST(test_reshape_host),        RS_TEST(test_reshape_device),
    RS_TEST(test_ravel_host),          RS_TEST(test_ravel_device),
    RS_TEST(test_transpose_host),      RS_TEST(test_transpose_device),
    RS_TEST(test_slice_1d_host),       RS_TEST(test_slice_1d_device),
    RS_TEST(test_slice_2d_host),       RS_TEST(test_slice_2d_device),
    RS_TEST(test_expand_squeeze_host), RS_TEST(test_expand_squeeze_device),
    RS_TEST(test_contiguity_host),     RS_TEST(test_contiguity_device),
    RS_TEST(test_f_order_layout),      RS_TEST(test_keep_alive_host),
    RS_TEST(test_keep_alive_device),
};
RS_TEST_MAIN(tests)
