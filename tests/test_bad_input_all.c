/* Every public function with bad arguments: NULL pointers and handles, released or
 * destroyed handles, handles of another context and overflowing sizes. Each call must
 * fail (no RS_OK where an error is due), leave a message in rs_last_error(), produce no
 * handle, and not crash (CI runs this under AddressSanitizer + UBSan, scripts/test.sh).
 * Functions that return a value rather than a status must return their documented
 * "nothing" for NULL and out-of-range arguments.
 *
 * test_every_function_has_a_case reads the RS_API declarations of the headers of include/resident/
 * and fails on a public function that has no entry in the table at the end of this file
 * (and on an entry that names no public function): a new function needs a case here.
 *
 * Defects known from issue 11 and being fixed elsewhere are in `known_defects` below: the
 * checks they name are skipped (and said so). Remove a row once its fix is merged;
 * RS_T_RUN_KNOWN=id,id runs those checks without editing anything. */
#include <dirent.h>
#include "harness.h"
#include "resident.h"

/* ---- the defects being fixed elsewhere: these checks are skipped ---------------------- */
static const struct {
  const char *id;
  int item; /* issue 11 item, 0 = found by this test, not in the issue */
  const char *what;
} known_defects[] = {
    /* handles of a destroyed context are detected (issue 11 item 11); the context pointer
     * itself is freed memory, as a FILE * after fclose */
    {"destroyed-context", 11, "a context pointer used after rs_context_destroy is a use after free"},
};

#define NKNOWN (sizeof known_defects / sizeof known_defects[0])

/* RS_T_RUN_KNOWN="id,id" runs those checks anyway (to see whether a fix has landed). */
static int is_known(const char *id) {
  static int said[NKNOWN];
  const char *run = getenv("RS_T_RUN_KNOWN");
  if (run && strstr(run, id)) return 0;
  for (size_t i = 0; i < NKNOWN; i++)
    if (strcmp(known_defects[i].id, id) == 0) {
      if (!said[i]++)
        printf("    skipped (issue 11 item %d, known): %s\n", known_defects[i].item, known_defects[i].what);
      return 1;
    }
  return 0;
}

/* ---- checks (they report and go on: one run lists every failure) ------------------------ */

/* what a failed call may not leave behind */
static rs_array *o;
static rs_stream *os;
static rs_event *oe;
static rs_kernel *ok_;
static rs_expr *ox;
static rs_context *oc;

static void reset_outs(void) {
  o = NULL;
  os = NULL;
  oe = NULL;
  ok_ = NULL;
  ox = NULL;
  oc = NULL;
}

/* the function a shared helper below is checking (its calls read `fn(...)`) */
static const char *cur = "";

static void check_failed(const char *call, int line, rs_status st) {
  const char *m = rs_last_error();
  if (st == RS_OK)
    rs_t_fail_(__FILE__, line, "%s%s: RS_OK where an error is due", cur, call);
  else if (st > 0)
    rs_t_fail_(__FILE__, line, "%s%s: status %d is not an error", cur, call, (int)st);
  else if (!m || !m[0])
    rs_t_fail_(__FILE__, line, "%s%s: %s with an empty message", cur, call, rs_status_name(st));
  if (st != RS_OK && (o || os || oe || ok_ || ox || oc))
    rs_t_fail_(__FILE__, line, "%s%s: a failed call produced a handle", cur, call);
  /* what a call made (by mistake) is given back, so the harness's leak check stays quiet */
  rs_array_release(o);
  rs_stream_destroy(os);
  rs_event_destroy(oe);
  rs_kernel_destroy(ok_);
  rs_expr_destroy(ox);
  rs_context_destroy(oc);
  reset_outs();
}

#define BAD(call)                                   \
  do {                                              \
    reset_outs();                                   \
    rs_clear_error();                               \
    check_failed(#call, __LINE__, (call));          \
  } while (0)
#define BAD_KNOWN(id, call) \
  do {                      \
    if (!is_known(id)) BAD(call); \
  } while (0)
/* a value-returning call: `cond` must hold on what it returned */
#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) rs_t_fail_(__FILE__, __LINE__, "EXPECT(%s)", #cond);       \
  } while (0)
/* a node function of the expression builder: -1 and a message */
#define BAD_NODE(call)                                                                   \
  do {                                                                                   \
    rs_clear_error();                                                                    \
    int n_ = (call);                                                                     \
    if (n_ != -1) rs_t_fail_(__FILE__, __LINE__, "%s: node %d where -1 is due", #call, n_); \
    else if (!rs_last_error()[0]) rs_t_fail_(__FILE__, __LINE__, "%s: empty message", #call); \
  } while (0)

/* ---- the fixture ----------------------------------------------------------------------- */
typedef struct fx {
  rs_context *ctx, *other, *grave; /* the test's, a foreign one, one that only holds the dead */
  rs_array *d, *h, *i64, *fd;      /* device f32 3x3 identity, host f32 3x3, device int64 3x3, foreign */
  rs_array *row;                   /* device f32 (4): a shape that fits nothing above */
  rs_array *dead;                  /* released */
  rs_stream *s, *fs, *dead_s;
  rs_event *ev, *fev, *dead_ev;
  rs_kernel *k, *dead_k;
  rs_expr *e;
} fx;

static const int64_t shape33[2] = {3, 3}, shape4[1] = {4};
static const char *const one_src =
    "extern \"C\" __global__ void one(float *x, long long n) { if (n > 0) x[0] = 1.0f; }\n";
static const int64_t big2[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
#define BAD_DT ((rs_dtype)999)
#define BAD_WHERE ((rs_mem_kind)99)

static int fx_setup(fx *f, rs_context *ctx) {
  memset(f, 0, sizeof *f);
  f->ctx = ctx;
  rs_array *tmp = NULL;
  rs_stream *ts = NULL;
  rs_event *te = NULL;
  if (rs_context_create(&f->other, rs_context_backend(ctx), 0) ||
      rs_context_create(&f->grave, rs_context_backend(ctx), 0) ||
      rs_eye(&f->d, ctx, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT32, NULL) ||
      rs_zeros(&f->row, ctx, RS_MEM_DEVICE, 1, shape4, RS_FLOAT32, NULL) ||
      rs_zeros(&f->h, ctx, RS_MEM_HOST, 2, shape33, RS_FLOAT32, NULL) ||
      rs_zeros(&f->i64, ctx, RS_MEM_DEVICE, 2, shape33, RS_INT64, NULL) ||
      rs_eye(&f->fd, f->other, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT32, NULL) ||
      rs_device_array(&tmp, f->grave, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C) ||
      rs_stream_create(&f->s, ctx, 0) || rs_stream_create(&f->fs, f->other, 0) ||
      rs_stream_create(&ts, f->grave, 0) || rs_event_create(&f->ev, ctx, 0) ||
      rs_event_create(&f->fev, f->other, 0) || rs_event_create(&te, f->grave, 0) ||
      rs_kernel_create(&f->k, ctx, one_src, "one", NULL) ||
      rs_kernel_create(&f->dead_k, ctx, one_src, "one", NULL) || rs_expr_create(&f->e, ctx)) {
    printf("    setup: %s\n", rs_last_error());
    return 0;
  }
  /* the dead live in a context where nothing is made after them: their slots stay dead */
  rs_array_release(tmp);
  rs_stream_destroy(ts);
  rs_event_destroy(te);
  rs_kernel_destroy(f->dead_k);
  f->dead = tmp;
  f->dead_s = ts;
  f->dead_ev = te;
  return 1;
}

static void fx_teardown(fx *f) {
  rs_expr_destroy(f->e);
  rs_kernel_destroy(f->k);
  rs_event_destroy(f->ev);
  rs_event_destroy(f->fev);
  rs_stream_destroy(f->s);
  rs_stream_destroy(f->fs);
  rs_array_release(f->d);
  rs_array_release(f->h);
  rs_array_release(f->i64);
  rs_array_release(f->row);
  rs_array_release(f->fd);
  rs_context_destroy(f->other);
  rs_context_destroy(f->grave);
}

/* ---- cases, by header ------------------------------------------------------------------- */

static void case_status(fx *f) { /* status.h: nothing can be bad, but nothing may be NULL */
  (void)f;
  EXPECT(rs_status_name((rs_status)12345) != NULL && rs_status_str((rs_status)-12345) != NULL);
  rs_clear_error();
  EXPECT(rs_last_error() != NULL && rs_last_error()[0] == '\0');
}

static void case_dtype(fx *f) {
  (void)f;
  rs_dtype dt;
  EXPECT(rs_dtype_size(BAD_DT) == 0 && rs_dtype_size((rs_dtype)-1) == 0);
  EXPECT(rs_dtype_name(BAD_DT) != NULL && rs_dtype_valid(BAD_DT) == 0 && rs_dtype_valid((rs_dtype)-1) == 0);
  BAD(rs_dtype_from_name(NULL, &dt));
  BAD(rs_dtype_from_name("float32", NULL));
  BAD(rs_dtype_from_name("float33", &dt));
}

static void case_context(fx *f) {
  rs_backend_kind bk;
  int n;
  rs_device_props props;
  rs_live_stats live;
  size_t bytes;
  EXPECT(rs_backend_name((rs_backend_kind)77) != NULL);
  BAD(rs_backend_from_name(NULL, &bk));
  BAD(rs_backend_from_name("sim", NULL));
  BAD(rs_backend_from_name("gpu9", &bk));
  char vbuf[64];
  BAD(rs_backend_version(RS_BACKEND_SIM, NULL, sizeof vbuf));
  BAD(rs_backend_version(RS_BACKEND_SIM, vbuf, 0));
  BAD(rs_backend_version(RS_BACKEND_AUTO, vbuf, sizeof vbuf));
  BAD(rs_backend_version((rs_backend_kind)77, vbuf, sizeof vbuf));
  BAD(rs_device_count((rs_backend_kind)77, &n));
  BAD(rs_device_count(RS_BACKEND_SIM, NULL));
  BAD(rs_device_get_props(RS_BACKEND_SIM, 0, NULL));
  BAD(rs_device_get_props(RS_BACKEND_SIM, 9999, &props));
  BAD(rs_device_get_props(RS_BACKEND_SIM, -1, &props));
  BAD(rs_context_create(NULL, RS_BACKEND_SIM, 0));
  BAD(rs_context_create(&oc, (rs_backend_kind)77, 0));
  BAD(rs_context_create(&oc, RS_BACKEND_SIM, -1));
  BAD(rs_context_create(&oc, RS_BACKEND_SIM, 9999));
  EXPECT(rs_context_destroy(NULL) == RS_OK);
  EXPECT(rs_context_backend(NULL) == RS_BACKEND_AUTO || rs_context_backend(NULL) != RS_BACKEND_AUTO); /* no crash */
  (void)rs_context_device(NULL);
  BAD(rs_context_get_props(NULL, &props));
  BAD(rs_context_get_props(f->ctx, NULL));
  BAD(rs_context_synchronize(NULL));
  if (!is_known("destroyed-context")) {
    rs_context *gone = NULL;
    if (rs_context_create(&gone, RS_BACKEND_SIM, 0) == RS_OK && rs_context_destroy(gone) == RS_OK) {
      BAD(rs_context_synchronize(gone));
      BAD(rs_context_destroy(gone));
      BAD(rs_device_array(&o, gone, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
    }
  }
  BAD(rs_parse_bytes(NULL, &bytes));
  BAD(rs_parse_bytes("12", NULL));
  BAD(rs_parse_bytes("twelve", &bytes));
  BAD(rs_parse_bytes("99999999999999999999999999GiB", &bytes));
  BAD(rs_context_get_live_stats(NULL, &live));
  BAD(rs_context_get_live_stats(f->ctx, NULL));
}

static void case_array_create(fx *f) {
  int32_t buf[9];
  const int64_t neg[2] = {2, -3}, bad_strides[2] = {INT64_MAX / 2, 4};
  rs_context *c = f->ctx;
  BAD(rs_device_array(NULL, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, NULL, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, NULL, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, big2, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, neg, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, RS_MAX_DIMS + 1, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, -1, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, shape33, BAD_DT, NULL, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, shape33, RS_FLOAT32, bad_strides, RS_ORDER_C));
  BAD(rs_device_array(&o, c, 2, shape33, RS_FLOAT32, NULL, (rs_order)77));
  BAD(rs_device_array_like(NULL, f->d));
  BAD(rs_device_array_like(&o, NULL));
  BAD(rs_device_array_like(&o, f->dead));
  BAD(rs_host_array(NULL, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_host_array(&o, NULL, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_host_array(&o, c, 2, big2, RS_FLOAT32, NULL, RS_ORDER_C));
  BAD(rs_host_array(&o, c, 2, shape33, BAD_DT, NULL, RS_ORDER_C));
  BAD(rs_host_array_like(NULL, f->h));
  BAD(rs_host_array_like(&o, NULL));
  BAD(rs_host_array_like(&o, f->dead));
  BAD(rs_host_array_wrap(NULL, c, buf, 2, shape33, RS_INT32, NULL));
  BAD(rs_host_array_wrap(&o, NULL, buf, 2, shape33, RS_INT32, NULL));
  BAD(rs_host_array_wrap(&o, c, NULL, 2, shape33, RS_INT32, NULL));
  BAD(rs_host_array_wrap(&o, c, buf, 2, NULL, RS_INT32, NULL));
  BAD(rs_host_array_wrap(&o, c, buf, 2, big2, RS_INT32, NULL));
  BAD(rs_host_array_wrap(&o, c, buf, 2, shape33, BAD_DT, NULL));
  BAD(rs_device_array_wrap(NULL, c, buf, 2, shape33, RS_INT32, NULL, NULL, NULL, NULL));
  BAD(rs_device_array_wrap(&o, NULL, buf, 2, shape33, RS_INT32, NULL, NULL, NULL, NULL));
  BAD(rs_device_array_wrap(&o, c, NULL, 2, shape33, RS_INT32, NULL, NULL, NULL, NULL));
  BAD(rs_device_array_wrap(&o, c, buf, 2, big2, RS_INT32, NULL, NULL, NULL, NULL));
  BAD(rs_device_array_wrap(&o, c, buf, 2, shape33, RS_INT32, NULL, f->dead_s, NULL, NULL));
  BAD(rs_device_array_wrap(&o, c, buf, 2, shape33, RS_INT32, NULL, f->fs, NULL, NULL));
}

static void case_array_refs(fx *f) {
  BAD(rs_array_retain(NULL));
  BAD(rs_array_retain(f->dead));
  EXPECT(rs_array_release(NULL) == RS_OK);
  BAD(rs_array_release(f->dead));
}

/* the metadata of NULL (and of a released array) is the documented nothing */
static void case_array_meta(fx *f) {
  char buf[64];
  const rs_array *nil[2] = {NULL, f->dead};
  for (int i = 0; i < 2; i++) {
    const rs_array *a = nil[i];
    EXPECT(rs_array_ndim(a) == 0 && rs_array_shape(a) == NULL && rs_array_strides(a) == NULL);
    EXPECT(rs_array_size(a) == 0 && rs_array_itemsize(a) == 0 && rs_array_nbytes(a) == 0);
    EXPECT(rs_array_host_data(a) == NULL && rs_array_device_data(a) == NULL && rs_array_context(a) == NULL);
    EXPECT(rs_array_offset(a) == 0);
    EXPECT(rs_array_is_c_contiguous(a) == 0 && rs_array_is_f_contiguous(a) == 0);
    (void)rs_array_dtype(a);
    (void)rs_array_kind(a);
    const char *d = rs_array_describe(a, buf, sizeof buf);
    EXPECT(d != NULL && memchr(d, '\0', sizeof buf) != NULL);
  }
  EXPECT(rs_array_describe(f->d, NULL, 0) != NULL);
}

static void case_views(fx *f) {
  const int64_t six[1] = {6}, seven[1] = {7}, over[3] = {(int64_t)1 << 32, (int64_t)1 << 32, 16};
  const int perm_bad[2] = {0, 0}, perm_out[2] = {0, 5};
  const rs_slice out_of_range[1] = {{5, 9, 1}}, zero_step[1] = {{0, 2, 0}};
  const rs_slice extreme[1] = {{RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, INT64_MIN + 1}};
  BAD(rs_array_reshape(NULL, f->d, 1, six));
  BAD(rs_array_reshape(&o, NULL, 1, six));
  BAD(rs_array_reshape(&o, f->dead, 1, six));
  BAD(rs_array_reshape(&o, f->d, 1, NULL));
  BAD(rs_array_reshape(&o, f->d, 1, seven));
  BAD(rs_array_reshape(&o, f->d, 3, over));
  BAD(rs_array_reshape(&o, f->d, RS_MAX_DIMS + 1, six));
  BAD(rs_array_ravel(NULL, f->d));
  BAD(rs_array_ravel(&o, NULL));
  BAD(rs_array_ravel(&o, f->dead));
  BAD(rs_array_transpose(NULL, f->d));
  BAD(rs_array_transpose(&o, NULL));
  BAD(rs_array_transpose(&o, f->dead));
  BAD(rs_array_permute(NULL, f->d, perm_bad));
  BAD(rs_array_permute(&o, NULL, perm_bad));
  BAD(rs_array_permute(&o, f->d, NULL));
  BAD(rs_array_permute(&o, f->d, perm_bad));
  BAD(rs_array_permute(&o, f->d, perm_out));
  BAD(rs_array_slice(NULL, f->d, 1, out_of_range));
  BAD(rs_array_slice(&o, NULL, 1, out_of_range));
  BAD(rs_array_slice(&o, f->dead, 1, out_of_range));
  BAD(rs_array_slice(&o, f->d, 1, NULL));
  BAD(rs_array_slice(&o, f->d, 3, out_of_range));
  BAD(rs_array_slice(&o, f->d, -1, out_of_range));
  BAD(rs_array_slice(&o, f->d, 1, out_of_range));
  BAD(rs_array_slice(&o, f->d, 1, zero_step));
  /* an extreme step is not an error (one element), but must not overflow: the sanitizers say */
  if (!is_known("slice-extreme-step") && rs_array_slice(&o, f->d, 1, extreme) == RS_OK) {
    EXPECT(rs_array_shape(o)[0] == 1);
    rs_array_release(o);
    o = NULL;
  }
  BAD(rs_array_expand_dims(NULL, f->d, 0));
  BAD(rs_array_expand_dims(&o, NULL, 0));
  BAD(rs_array_expand_dims(&o, f->dead, 0));
  BAD(rs_array_expand_dims(&o, f->d, 7));
  BAD(rs_array_squeeze(NULL, f->d, RS_ALL_AXES));
  BAD(rs_array_squeeze(&o, NULL, RS_ALL_AXES));
  BAD(rs_array_squeeze(&o, f->dead, 0));
  BAD(rs_array_squeeze(&o, f->d, 0)); /* axis of length 2 */
  BAD(rs_array_squeeze(&o, f->d, 9));
}

static void case_memory(fx *f) { /* memory.h */
  rs_context *c = f->ctx;
  BAD(rs_pinned_array(NULL, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD(rs_pinned_array(&o, NULL, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD(rs_pinned_array(&o, c, 2, big2, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD(rs_pinned_array(&o, c, 2, shape33, BAD_DT, NULL, RS_ORDER_C, 0));
  BAD_KNOWN("unknown-flags", rs_pinned_array(&o, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0xFF00u));
  BAD(rs_pinned_array_like(NULL, f->h));
  BAD(rs_pinned_array_like(&o, NULL));
  BAD(rs_pinned_array_like(&o, f->dead));
  BAD(rs_mapped_array(NULL, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD(rs_mapped_array(&o, NULL, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD(rs_mapped_array(&o, c, 2, big2, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  BAD_KNOWN("unknown-flags", rs_mapped_array(&o, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, 0xFF00u));
  BAD(rs_mapped_array_like(NULL, f->h));
  BAD(rs_mapped_array_like(&o, NULL));
  BAD(rs_mapped_array_like(&o, f->dead));
  BAD(rs_managed_array(NULL, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  BAD(rs_managed_array(&o, NULL, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  BAD(rs_managed_array(&o, c, 2, big2, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  BAD(rs_managed_array(&o, c, 2, shape33, RS_FLOAT32, NULL, RS_ORDER_C, (rs_attach)77));
  BAD(rs_pinned_begin(NULL));
  BAD(rs_pinned_begin(f->dead));
  BAD(rs_pinned_begin(f->d)); /* a device array has no host memory to pin */
  BAD(rs_pinned_end(NULL));
  BAD(rs_pinned_end(f->dead));
  BAD(rs_pinned_end(f->h)); /* no scope begun */
  BAD(rs_mapped_begin(NULL, f->h));
  BAD(rs_mapped_begin(&o, NULL));
  BAD(rs_mapped_begin(&o, f->dead));
  BAD(rs_mapped_begin(&o, f->d));
  BAD(rs_mapped_end(NULL));
  BAD(rs_mapped_end(f->dead));
  BAD(rs_mapped_end(f->h));
}

static rs_status dummy_alloc(void *u, size_t bytes, void *stream, void **out) {
  (void)u, (void)bytes, (void)stream;
  *out = NULL;
  return RS_ERR_OUT_OF_MEMORY;
}

static void case_allocator(fx *f) { /* allocator.h */
  rs_context *c = f->ctx;
  rs_allocator_kind ak;
  rs_memory_stats ms;
  void *p = NULL;
  rs_user_allocator no_fns = {"broken", NULL, NULL, NULL, NULL};
  rs_user_allocator half = {"half", NULL, dummy_alloc, NULL, NULL};
  EXPECT(rs_allocator_name((rs_allocator_kind)77) != NULL && rs_mem_kind_name(BAD_WHERE) != NULL);
  BAD(rs_allocator_from_name(NULL, &ak));
  BAD(rs_allocator_from_name("pool", NULL));
  BAD(rs_allocator_from_name("heap", &ak));
  BAD(rs_context_set_allocator(NULL, RS_ALLOCATOR_POOL, NULL));
  BAD(rs_context_set_allocator(c, (rs_allocator_kind)77, NULL));
  BAD(rs_context_set_allocator(c, RS_ALLOCATOR_USER, NULL));
  BAD(rs_context_set_allocator(c, RS_ALLOCATOR_USER, &no_fns));
  BAD(rs_context_set_allocator(c, RS_ALLOCATOR_USER, &half)); /* no free */
  BAD(rs_context_set_allocator(c, RS_ALLOCATOR_ASYNC, &half));
  BAD(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL)); /* c still holds memory */
  EXPECT(rs_context_allocator(NULL) == RS_ALLOCATOR_POOL);
  BAD(rs_memory_alloc(NULL, c, 64, NULL));
  BAD(rs_memory_alloc(&p, NULL, 64, NULL));
  BAD(rs_memory_alloc(&p, c, SIZE_MAX, NULL));
  BAD(rs_memory_alloc(&p, c, SIZE_MAX / 2, NULL));
  BAD(rs_memory_alloc(&p, c, 64, f->dead_s));
  BAD(rs_memory_alloc(&p, c, 64, f->fs));
  EXPECT(p == NULL);
  BAD(rs_memory_free(NULL, &p, NULL));
  BAD(rs_memory_free(c, &ms, NULL)); /* not from rs_memory_alloc */
  BAD_KNOWN("free-array-buffer", rs_memory_free(c, rs_array_device_data(f->d), NULL));
  BAD(rs_memory_get_stats(NULL, RS_SPACE_DEVICE, &ms));
  BAD(rs_memory_get_stats(c, (rs_mem_space)77, &ms));
  BAD(rs_memory_get_stats(c, RS_SPACE_DEVICE, NULL));
  BAD(rs_memory_reset_stats(NULL, RS_SPACE_DEVICE));
  BAD(rs_memory_reset_stats(c, (rs_mem_space)77));
  BAD(rs_memory_set_limit(NULL, RS_SPACE_DEVICE, 1 << 20));
  BAD(rs_memory_set_limit(c, (rs_mem_space)77, 1 << 20));
  BAD(rs_memory_set_limit_fraction(NULL, 0.5));
  BAD(rs_memory_set_limit_fraction(c, 1.5));
  BAD(rs_memory_set_limit_fraction(c, -0.5));
  BAD(rs_memory_set_limit_fraction(c, NAN));
  BAD(rs_memory_release(NULL, RS_SPACE_DEVICE));
  BAD(rs_memory_release(c, (rs_mem_space)77));
  BAD(rs_memory_report(NULL, stdout));
  BAD(rs_memory_report(c, NULL));
  BAD(rs_memory_flush(NULL));
  BAD(rs_defer_cleanup_begin(NULL));
  BAD(rs_defer_cleanup_end(NULL));
  BAD(rs_defer_cleanup_end(c)); /* none begun */
  BAD(rs_memory_set_pending_limits(NULL, 10, 0.2));
  BAD(rs_memory_set_pending_limits(c, 0, 0.2));
  BAD(rs_memory_set_pending_limits(c, -5, 0.2));
  BAD(rs_memory_set_pending_limits(c, 10, 1.5));
  BAD(rs_memory_set_pending_limits(c, 10, NAN));
}

static void case_transfer(fx *f) { /* transfer.h */
  BAD(rs_to_device(NULL, f->h, 0, NULL));
  BAD(rs_to_device(&o, NULL, 0, NULL));
  BAD(rs_to_device(&o, f->dead, 0, NULL));
  BAD(rs_to_device(&o, f->h, 0, f->dead_s));
  BAD(rs_to_device(&o, f->h, 0, f->fs));
  BAD_KNOWN("unknown-flags", rs_to_device(&o, f->h, 0xFF00u, NULL));
  BAD(rs_to_device_into(NULL, f->h, NULL));
  BAD(rs_to_device_into(f->d, NULL, NULL));
  BAD(rs_to_device_into(f->dead, f->h, NULL));
  BAD(rs_to_device_into(f->d, f->dead, NULL));
  BAD(rs_to_device_into(f->row, f->h, NULL));
  BAD(rs_copy_to_host(NULL, f->d, NULL));
  BAD(rs_copy_to_host(&o, NULL, NULL));
  BAD(rs_copy_to_host(&o, f->dead, NULL));
  BAD(rs_copy_to_host(&o, f->d, f->fs));
  BAD(rs_copy_to_host_into(NULL, f->d, NULL));
  BAD(rs_copy_to_host_into(f->h, NULL, NULL));
  BAD(rs_copy_to_host_into(f->dead, f->d, NULL));
  BAD(rs_copy_to_host_into(f->h, f->dead, NULL));
  BAD(rs_copy_to_host_into(f->h, f->row, NULL));
  BAD(rs_asarray(NULL, f->d, RS_MEM_DEVICE, NULL));
  BAD(rs_asarray(&o, NULL, RS_MEM_DEVICE, NULL));
  BAD(rs_asarray(&o, f->dead, RS_MEM_DEVICE, NULL));
  BAD(rs_asarray(&o, f->d, BAD_WHERE, NULL));
  BAD(rs_asarray(&o, f->d, RS_MEM_DEVICE, f->fs));     /* no copy due, the stream is still checked */
  BAD(rs_asarray(&o, f->d, RS_MEM_DEVICE, f->dead_s));
  BAD(rs_asarray(&o, f->h, RS_MEM_DEVICE, f->fs));
  BAD(rs_array_copy(NULL, f->d, NULL));
  BAD(rs_array_copy(f->d, NULL, NULL));
  BAD(rs_array_copy(f->dead, f->d, NULL));
  BAD(rs_array_copy(f->d, f->dead, NULL));
  /* arrays of two contexts copy into each other (test_multi_device); these stay wrong */
  BAD(rs_array_copy(f->d, f->fd, f->fs)); /* a device-to-device copy on the source's stream */
  BAD(rs_array_copy(f->row, f->fd, NULL)); /* shapes differ */
  BAD(rs_array_copy(f->row, f->d, NULL));
  BAD(rs_array_copy(f->d, f->h, f->fs));
}

static void host_fn(void *u) { (void)u; }

static void case_stream(fx *f) { /* stream.h */
  int done;
  float ms;
  rs_context *c = f->ctx;
  BAD(rs_stream_create(NULL, c, 0));
  BAD(rs_stream_create(&os, NULL, 0));
  BAD_KNOWN("unknown-flags", rs_stream_create(&os, c, 0xFF00u));
  EXPECT(rs_stream_legacy(NULL) == NULL && rs_stream_per_thread(NULL) == NULL);
  BAD(rs_stream_wrap(NULL, c, (void *)0x1234));
  BAD(rs_stream_wrap(&os, NULL, (void *)0x1234));
  /* the simulator knows its own streams; CUDA cannot tell a stray cudaStream_t from a
   * real one (resident/stream.h says so), so only the simulator must refuse it */
  if (rs_context_backend(c) == RS_BACKEND_SIM) BAD(rs_stream_wrap(&os, c, (void *)0x1234));
  EXPECT(rs_stream_native(f->dead_s) == NULL);
  EXPECT(rs_stream_destroy(NULL) == RS_OK);
  BAD(rs_stream_destroy(f->dead_s));
  BAD(rs_stream_destroy((rs_stream *)f->d)); /* another kind of handle */
  BAD(rs_stream_synchronize(f->dead_s));
  BAD(rs_stream_query(f->s, NULL));
  BAD(rs_stream_query(f->dead_s, &done));
  BAD(rs_stream_add_callback(f->s, NULL, NULL));
  BAD(rs_stream_add_callback(f->dead_s, host_fn, NULL));
  BAD(rs_stream_wait_event(f->s, NULL));
  BAD(rs_stream_wait_event(f->s, f->dead_ev));
  BAD(rs_stream_wait_event(f->dead_s, f->ev));
  BAD(rs_stream_wait_event(f->s, f->fev));
  BAD(rs_stream_auto_synchronize_begin(f->dead_s));
  BAD(rs_stream_auto_synchronize_end(f->dead_s));
  BAD(rs_stream_auto_synchronize_end(f->s)); /* none begun */
  BAD(rs_event_create(NULL, c, 0));
  BAD(rs_event_create(&oe, NULL, 0));
  BAD_KNOWN("unknown-flags", rs_event_create(&oe, c, 0xFF00u));
  EXPECT(rs_event_destroy(NULL) == RS_OK);
  BAD(rs_event_destroy(f->dead_ev));
  BAD(rs_event_record(NULL, f->s));
  BAD(rs_event_record(f->dead_ev, f->s));
  BAD(rs_event_record(f->ev, f->dead_s));
  BAD(rs_event_record(f->ev, f->fs));
  BAD(rs_event_synchronize(NULL));
  BAD(rs_event_synchronize(f->dead_ev));
  BAD(rs_event_query(NULL, &done));
  BAD(rs_event_query(f->ev, NULL));
  BAD(rs_event_query(f->dead_ev, &done));
  BAD(rs_event_elapsed_ms(NULL, f->ev, &ms));
  BAD(rs_event_elapsed_ms(f->ev, NULL, &ms));
  BAD(rs_event_elapsed_ms(f->ev, f->ev, NULL));
  BAD(rs_event_elapsed_ms(f->dead_ev, f->ev, &ms));
  BAD(rs_event_elapsed_ms(f->ev, f->fev, &ms));
}

static void log_fn(const char *line, void *u) { (void)line, (void)u; }

static void case_ledger(fx *f) { /* ledger.h */
  rs_context *c = f->ctx;
  rs_ledger_stats st;
  rs_ledger_entry en;
  rs_guard_mode modes[RS_DIRECTIONS], m;
  int64_t n, dropped;
  EXPECT(rs_direction_name((rs_direction)77) != NULL && rs_guard_mode_name((rs_guard_mode)77) != NULL);
  if (!is_known("null-ledger-stats")) {
    EXPECT(rs_ledger_copies(NULL, 0) == 0 && rs_ledger_bytes(NULL, 1) == 0);
    EXPECT(rs_ledger_copy_ms(NULL) == 0);
  }
  BAD(rs_ledger_set_timing(NULL, RS_TIME_ALL));
  BAD_KNOWN("unknown-flags", rs_ledger_set_timing(c, 0xFF00u));
  BAD(rs_ledger_get_stats(NULL, &st));
  BAD(rs_ledger_get_stats(c, NULL));
  BAD(rs_ledger_reset(NULL));
  BAD(rs_ledger_begin(NULL));
  BAD(rs_ledger_end(NULL, &st));
  BAD(rs_ledger_end(c, &st)); /* none begun */
  BAD(rs_ledger_begin_named(NULL, "named"));
  BAD(rs_trace_write(NULL, "/tmp/rs_bad_input_trace.json"));
  BAD(rs_trace_write(c, NULL));
  BAD(rs_trace_write(c, ""));
  BAD(rs_trace_write(c, "/nonexistent-rs-folder/trace.json"));
  BAD(rs_ledger_count(NULL, &n, &dropped));
  BAD(rs_ledger_entry_at(NULL, 0, &en));
  BAD(rs_ledger_entry_at(c, -1, &en));
  BAD(rs_ledger_entry_at(c, INT64_MAX, &en));
  BAD(rs_ledger_entry_at(c, 0, NULL));
  BAD(rs_ledger_print(NULL, 1.0, 1.0, stdout));
  memset(&st, 0, sizeof st);
  BAD(rs_ledger_print(&st, 1.0, 1.0, NULL));
  BAD(rs_guard_parse(NULL, modes));
  BAD(rs_guard_parse("allow", NULL));
  BAD(rs_guard_parse("h2d=sometimes", modes));
  BAD(rs_guard_set(NULL, RS_H2D, RS_GUARD_LOG));
  BAD(rs_guard_set(c, (rs_direction)77, RS_GUARD_LOG));
  BAD(rs_guard_set(c, RS_H2D, (rs_guard_mode)77));
  BAD(rs_guard_get(NULL, RS_H2D, &m));
  BAD(rs_guard_get(c, (rs_direction)77, &m));
  BAD(rs_guard_get(c, RS_H2D, NULL));
  BAD(rs_guard_push(NULL, RS_H2D, RS_GUARD_LOG));
  BAD(rs_guard_push(c, (rs_direction)77, RS_GUARD_LOG));
  BAD(rs_guard_push(c, RS_H2D, (rs_guard_mode)77));
  BAD(rs_guard_pop(NULL));
  BAD(rs_guard_pop(c)); /* nothing pushed */
  rs_set_log_handler(log_fn, NULL); /* void: takes anything; NULL restores the default */
  rs_set_log_handler(NULL, NULL);
}

static rs_status bench_fn(void *u) {
  (void)u;
  return RS_OK;
}

static void case_kernel(fx *f) { /* kernel.h */
  rs_context *c = f->ctx;
  rs_kernel_info info;
  rs_kernel_param par;
  rs_kernel_cache_stats cs;
  rs_launch_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, NULL, 1, 0}, res;
  int64_t n = 1;
  rs_arg args[2] = {rs_arg_array(f->d), rs_arg_i64(n)};
  rs_arg foreign_args[2] = {rs_arg_array(f->fd), rs_arg_i64(n)};
  rs_arg dead_args[2] = {rs_arg_array(f->dead), rs_arg_i64(n)};
  const char *bad_opts_list[1] = {NULL};
  rs_kernel_options bad_opts = {1, bad_opts_list, 0, NULL, 0};
  BAD(rs_kernel_create(NULL, c, one_src, "one", NULL));
  BAD(rs_kernel_create(&ok_, NULL, one_src, "one", NULL));
  BAD(rs_kernel_create(&ok_, c, NULL, "one", NULL));
  BAD(rs_kernel_create(&ok_, c, one_src, NULL, NULL));
  BAD(rs_kernel_create(&ok_, c, one_src, "two", NULL)); /* no such function: refused before compiling */
  BAD(rs_kernel_create(&ok_, c, one_src, "one", &bad_opts));
  BAD_KNOWN("unknown-flags", rs_kernel_create(&ok_, c, one_src, "one", &(rs_kernel_options){0, NULL, 0, NULL, 0xFF00u}));
  BAD(rs_kernel_create_from_file(NULL, c, "/nonexistent.cu", "one", NULL));
  BAD(rs_kernel_create_from_file(&ok_, NULL, "/nonexistent.cu", "one", NULL));
  BAD(rs_kernel_create_from_file(&ok_, c, NULL, "one", NULL));
  BAD(rs_kernel_create_from_file(&ok_, c, "/nonexistent.cu", "one", NULL));
  BAD(rs_kernel_create_from_file(&ok_, c, "/", "one", NULL)); /* a directory */
  EXPECT(rs_kernel_destroy(NULL) == RS_OK);
  BAD(rs_kernel_destroy(f->dead_k));
  (void)rs_kernel_last_log();
  EXPECT(rs_kernel_device_header() != NULL);
  rs_arg bad_scalar = rs_arg_scalar(BAD_DT, &n);
  BAD(rs_kernel_launch(f->k, &cfg, 2, (rs_arg[]){args[0], bad_scalar}));
  BAD(rs_kernel_launch(NULL, &cfg, 2, args));
  BAD(rs_kernel_launch(f->dead_k, &cfg, 2, args));
  BAD(rs_kernel_launch(f->k, NULL, 2, args));
  BAD(rs_kernel_launch(f->k, &cfg, 2, NULL));
  BAD(rs_kernel_launch(f->k, &cfg, 1, args));
  BAD(rs_kernel_launch(f->k, &cfg, -1, args));
  BAD(rs_kernel_launch(f->k, &cfg, 2, foreign_args));
  BAD(rs_kernel_launch(f->k, &cfg, 2, dead_args));
  BAD(rs_kernel_launch(f->k, &(rs_launch_config){{0, 1, 1}, {1, 1, 1}, 0, NULL, 0, 0}, 2, args));
  BAD(rs_kernel_launch(f->k, &(rs_launch_config){{1, 1, 1}, {1u << 20, 1, 1}, 0, NULL, 1, 0}, 2, args));
  BAD(rs_kernel_launch(f->k, &(rs_launch_config){{1, 1, 1}, {1, 1, 1}, SIZE_MAX, NULL, 1, 0}, 2, args));
  BAD(rs_kernel_launch(f->k, &(rs_launch_config){{1, 1, 1}, {1, 1, 1}, 0, f->dead_s, 1, 0}, 2, args));
  BAD(rs_kernel_launch(f->k, &(rs_launch_config){{1, 1, 1}, {1, 1, 1}, 0, f->fs, 1, 0}, 2, args));
  BAD_KNOWN("launch-elements-max",
            rs_kernel_launch(f->k, &(rs_launch_config){{0, 1, 1}, {0, 1, 1}, 0, NULL, INT64_MAX, 0}, 2, args));
  BAD_KNOWN("unknown-flags",
            rs_kernel_launch(f->k, &(rs_launch_config){{1, 1, 1}, {1, 1, 1}, 0, NULL, 1, 0xFF00u}, 2, args));
  BAD(rs_kernel_resolve_config(NULL, &cfg, &res));
  BAD(rs_kernel_resolve_config(f->dead_k, &cfg, &res));
  BAD(rs_kernel_resolve_config(f->k, NULL, &res));
  BAD(rs_kernel_resolve_config(f->k, &cfg, NULL));
  BAD(rs_kernel_synchronize(NULL, NULL));
  BAD(rs_kernel_synchronize(f->dead_k, NULL));
  BAD(rs_kernel_synchronize(f->k, f->dead_s));
  BAD(rs_kernel_synchronize(f->k, f->fs));
  BAD(rs_kernel_set_constant(NULL, "c", f->h, NULL));
  BAD(rs_kernel_set_constant(f->dead_k, "c", f->h, NULL));
  BAD(rs_kernel_set_constant(f->k, NULL, f->h, NULL));
  BAD(rs_kernel_set_constant(f->k, "no_such_symbol", f->h, NULL));
  BAD(rs_kernel_set_constant(f->k, "c", NULL, NULL));
  BAD(rs_kernel_set_constant(f->k, "c", f->dead, NULL));
  BAD(rs_kernel_get_constant(NULL, "c", f->h, NULL));
  BAD(rs_kernel_get_constant(f->dead_k, "c", f->h, NULL));
  BAD(rs_kernel_get_constant(f->k, NULL, f->h, NULL));
  BAD(rs_kernel_get_constant(f->k, "", f->h, NULL));
  BAD(rs_kernel_get_constant(f->k, "no_such_symbol", f->h, NULL));
  BAD(rs_kernel_get_constant(f->k, "c", NULL, NULL));
  BAD(rs_kernel_get_constant(f->k, "c", f->dead, NULL));
  BAD(rs_kernel_get_info(NULL, &info));
  BAD(rs_kernel_get_info(f->dead_k, &info));
  BAD(rs_kernel_get_info(f->k, NULL));
  BAD(rs_kernel_get_param(NULL, 0, &par));
  BAD(rs_kernel_get_param(f->dead_k, 0, &par));
  BAD(rs_kernel_get_param(f->k, -1, &par));
  BAD(rs_kernel_get_param(f->k, 2, &par));
  BAD_KNOWN("get-param-index-max", rs_kernel_get_param(f->k, INT32_MAX, &par));
  BAD(rs_kernel_get_param(f->k, 0, NULL));
  BAD(rs_kernel_cache_get_stats(NULL));
  (void)cs;
  /* rs_kernel_cache_clear takes nothing: called by test_cache_clear below, not here
   * (it would make the next kernel compile again) */
}

static void case_cache_clear(fx *f) {
  (void)f;
  rs_kernel_cache_clear(); /* void(void): only that it returns */
}

static rs_status streamed_step(rs_array *in, rs_array *out, rs_stream *s, void *u) {
  (void)in, (void)out, (void)s, (void)u;
  return RS_OK;
}

static void case_streamed(fx *f) { /* streamed.h */
  rs_streamed_report rep;
  rs_streamed_options zero = {0, 1}, over = {4, 1}, nostreams = {1, 0}, many = {1, RS_STREAMED_MAX_STREAMS + 1};
  BAD(rs_streamed_run(NULL, f->h, streamed_step, NULL, NULL, &rep));
  BAD(rs_streamed_run(f->h, NULL, streamed_step, NULL, NULL, &rep));
  BAD(rs_streamed_run(f->h, f->h, NULL, NULL, NULL, &rep));
  BAD(rs_streamed_run(f->h, f->dead, streamed_step, NULL, NULL, &rep));
  BAD(rs_streamed_run(f->h, f->d, streamed_step, NULL, NULL, &rep)); /* device memory */
  BAD(rs_streamed_run(f->d, f->h, streamed_step, NULL, NULL, &rep));
  BAD(rs_streamed_run(f->h, f->h, streamed_step, NULL, &zero, &rep));
  BAD(rs_streamed_run(f->h, f->h, streamed_step, NULL, &over, &rep));
  BAD(rs_streamed_run(f->h, f->h, streamed_step, NULL, &nostreams, &rep));
  BAD(rs_streamed_run(f->h, f->h, streamed_step, NULL, &many, &rep));
}

static void case_graph(fx *f) { /* graph.h */
  rs_graph *g = NULL;
  int64_t n = 0;
  BAD(rs_graph_begin_capture(NULL));
  BAD(rs_graph_begin_capture(f->dead_s));
  BAD(rs_graph_begin_capture(rs_stream_legacy(f->ctx)));
  BAD(rs_graph_end_capture(NULL, f->s));
  BAD(rs_graph_end_capture(&g, NULL));
  BAD(rs_graph_end_capture(&g, f->dead_s));
  BAD(rs_graph_end_capture(&g, f->s)); /* not capturing */
  EXPECT(g == NULL);
  BAD(rs_graph_launch(NULL, f->s));
  BAD(rs_graph_get_counts(NULL, &n, &n, &n));
  EXPECT(rs_graph_destroy(NULL) == RS_OK);
  if (rs_graph_begin_capture(f->s) == RS_OK && rs_graph_end_capture(&g, f->s) == RS_OK) {
    BAD(rs_graph_launch(g, f->dead_s));
    BAD(rs_graph_launch(g, f->fs)); /* another context's stream */
    EXPECT(rs_graph_destroy(g) == RS_OK);
    BAD(rs_graph_destroy(g));
    BAD(rs_graph_launch(g, f->s));
    BAD(rs_graph_get_counts(g, &n, NULL, NULL));
  } else {
    EXPECT(0);
  }
}

static void case_bench(fx *f) { /* bench.h */
  rs_bench_result r;
  rs_bench_options bo = rs_bench_defaults(), zero = bo, dead = bo, foreign = bo;
  EXPECT(bo.n_repeat >= 1 && bo.n_warmup >= 0);
  zero.n_repeat = 0;
  dead.stream = f->dead_s;
  foreign.stream = f->fs;
  BAD(rs_benchmark(NULL, "x", bench_fn, NULL, NULL, &r));
  BAD(rs_benchmark(f->ctx, "x", NULL, NULL, NULL, &r));
  BAD(rs_benchmark(f->ctx, "x", bench_fn, NULL, NULL, NULL));
  BAD(rs_benchmark(f->ctx, "x", bench_fn, NULL, &zero, &r));
  BAD(rs_benchmark(f->ctx, "x", bench_fn, NULL, &dead, &r));
  BAD(rs_benchmark(f->ctx, "x", bench_fn, NULL, &foreign, &r));
  EXPECT(rs_bench_result_destroy(NULL) == RS_OK);
  if (!is_known("null-bench-values")) {
    rs_bench_summary s = rs_bench_summarize(NULL, 5); /* no values: a zero summary, no crash */
    EXPECT(s.min == 0 && s.max == 0);
  }
  rs_bench_summary s = rs_bench_summarize((const double[]){1.0}, -3);
  EXPECT(s.min == 0 && s.max == 0);
  BAD(rs_bench_print(NULL, stdout));
  memset(&r, 0, sizeof r);
  BAD(rs_bench_print(&r, NULL));
}

/* ---- ops: the families share their checks ----------------------------------------------- */
typedef rs_status (*un_fn)(rs_array **, const rs_array *, rs_stream *);
typedef rs_status (*un_into_fn)(rs_array *, const rs_array *, rs_stream *);
typedef rs_status (*bin_fn)(rs_array **, const rs_array *, const rs_array *, rs_stream *);
typedef rs_status (*bin_into_fn)(rs_array *, const rs_array *, const rs_array *, rs_stream *);
typedef rs_status (*sc_fn)(rs_array **, const rs_array *, rs_scalar, rs_stream *);
typedef rs_status (*sc_into_fn)(rs_array *, const rs_array *, rs_scalar, rs_stream *);
typedef rs_status (*red_fn)(rs_array **, const rs_array *, int, const int *, int, rs_stream *);
typedef rs_status (*red_into_fn)(rs_array *, const rs_array *, int, const int *, int, rs_stream *);
typedef rs_status (*arg_fn)(rs_array **, const rs_array *, int, int, rs_stream *);
typedef rs_status (*arg_into_fn)(rs_array *, const rs_array *, int, int, rs_stream *);

/* fn(out, a, stream) and into(dst, a, stream) */
static void unary_family(fx *f, const char *name, un_fn fn, un_into_fn into) {
  cur = name;
  BAD(fn(NULL, f->d, NULL));
  BAD(fn(&o, NULL, NULL));
  BAD(fn(&o, f->dead, NULL));
  BAD(fn(&o, f->d, f->dead_s));
  BAD(fn(&o, f->d, f->fs));
  BAD(into(NULL, f->d, NULL));
  BAD(into(f->d, NULL, NULL));
  BAD(into(f->dead, f->d, NULL));
  BAD(into(f->d, f->dead, NULL));
  BAD(into(f->fd, f->d, NULL));
  BAD(into(f->d, f->fd, NULL));
  BAD(into(f->row, f->d, NULL));
  BAD(into(f->d, f->d, f->fs));
  cur = "";
}

static void binary_family(fx *f, const char *name, bin_fn fn, bin_into_fn into) {
  cur = name;
  BAD(fn(NULL, f->d, f->d, NULL));
  BAD(fn(&o, NULL, f->d, NULL));
  BAD(fn(&o, f->d, NULL, NULL));
  BAD(fn(&o, f->dead, f->d, NULL));
  BAD(fn(&o, f->d, f->dead, NULL));
  BAD(fn(&o, f->d, f->fd, NULL));
  BAD(fn(&o, f->d, f->row, NULL));
  BAD(fn(&o, f->d, f->d, f->dead_s));
  BAD(fn(&o, f->d, f->d, f->fs));
  BAD(into(NULL, f->d, f->d, NULL));
  BAD(into(f->d, NULL, f->d, NULL));
  BAD(into(f->d, f->d, NULL, NULL));
  BAD(into(f->dead, f->d, f->d, NULL));
  BAD(into(f->d, f->d, f->dead, NULL));
  BAD(into(f->fd, f->d, f->d, NULL));
  BAD(into(f->d, f->fd, f->d, NULL));
  BAD(into(f->row, f->d, f->d, NULL));
  BAD(into(f->d, f->d, f->d, f->fs));
  cur = "";
}

static void scalar_family(fx *f, const char *name, sc_fn fn, sc_into_fn into) {
  rs_scalar two = rs_scalar_float(2.0);
  cur = name;
  BAD(fn(NULL, f->d, two, NULL));
  BAD(fn(&o, NULL, two, NULL));
  BAD(fn(&o, f->dead, two, NULL));
  BAD(fn(&o, f->d, two, f->fs));
  BAD(fn(&o, f->d, (rs_scalar){(rs_scalar_kind)77, 0, 0.0, 0.0}, NULL));
  BAD(into(NULL, f->d, two, NULL));
  BAD(into(f->d, NULL, two, NULL));
  BAD(into(f->dead, f->d, two, NULL));
  BAD(into(f->fd, f->d, two, NULL));
  BAD(into(f->row, f->d, two, NULL));
  cur = "";
}

static void reduce_family(fx *f, const char *name, red_fn fn, red_into_fn into) {
  const int ax0[1] = {0}, ax9[1] = {9}, twice[2] = {0, 0};
  cur = name;
  BAD(fn(NULL, f->d, 0, NULL, 0, NULL));
  BAD(fn(&o, NULL, 0, NULL, 0, NULL));
  BAD(fn(&o, f->dead, 0, NULL, 0, NULL));
  BAD(fn(&o, f->d, 1, ax9, 0, NULL));
  BAD(fn(&o, f->d, 2, twice, 0, NULL));
  BAD(fn(&o, f->d, -1, ax0, 0, NULL));
  BAD(fn(&o, f->d, RS_MAX_DIMS + 1, ax0, 0, NULL));
  BAD(fn(&o, f->d, 0, NULL, 0, f->fs));
  BAD(into(NULL, f->d, 0, NULL, 0, NULL));
  BAD(into(f->d, NULL, 0, NULL, 0, NULL));
  BAD(into(f->dead, f->d, 0, NULL, 0, NULL));
  BAD(into(f->d, f->d, 0, NULL, 0, NULL)); /* a 3x3 destination of a 0-d result */
  BAD(into(f->row, f->d, 1, ax0, 0, NULL)); /* (4) for (3) */
  BAD(into(f->fd, f->d, 1, ax0, 0, NULL));
  cur = "";
}

static void arg_family(fx *f, const char *name, arg_fn fn, arg_into_fn into) {
  cur = name;
  BAD(fn(NULL, f->d, 0, 0, NULL));
  BAD(fn(&o, NULL, 0, 0, NULL));
  BAD(fn(&o, f->dead, 0, 0, NULL));
  BAD(fn(&o, f->d, 9, 0, NULL));
  BAD(fn(&o, f->d, -9, 0, NULL));
  BAD(fn(&o, f->d, 0, 0, f->fs));
  BAD(into(NULL, f->d, 0, 0, NULL));
  BAD(into(f->i64, NULL, 0, 0, NULL));
  BAD(into(f->dead, f->d, 0, 0, NULL));
  BAD(into(f->row, f->d, 0, 0, NULL));
  cur = "";
}

static void case_elementwise(fx *f) {
  unary_family(f, "[rs_sqrt] ", rs_sqrt, rs_sqrt_into);
  unary_family(f, "[rs_exp] ", rs_exp, rs_exp_into);
  unary_family(f, "[rs_log] ", rs_log, rs_log_into);
  unary_family(f, "[rs_copy] ", rs_copy, rs_copy_into);
  binary_family(f, "[rs_add] ", rs_add, rs_add_into);
  binary_family(f, "[rs_subtract] ", rs_subtract, rs_subtract_into);
  binary_family(f, "[rs_multiply] ", rs_multiply, rs_multiply_into);
  binary_family(f, "[rs_divide] ", rs_divide, rs_divide_into);
  scalar_family(f, "[rs_add_scalar] ", rs_add_scalar, rs_add_scalar_into);
  scalar_family(f, "[rs_multiply_scalar] ", rs_multiply_scalar, rs_multiply_scalar_into);
}

static void case_generic_ops(fx *f) {
  const rs_op bad = (rs_op)999;
  rs_scalar two = rs_scalar_float(2.0);
  EXPECT(rs_op_name(bad) != NULL && rs_op_arity(bad) == 0 && rs_op_arity((rs_op)-1) == 0);
  BAD(rs_binary(NULL, RS_OP_ADD, f->d, f->d, NULL));
  BAD(rs_binary(&o, bad, f->d, f->d, NULL));
  BAD(rs_binary(&o, RS_OP_SQRT, f->d, f->d, NULL)); /* a unary op */
  BAD(rs_binary(&o, RS_OP_ADD, f->d, f->fd, NULL));
  BAD(rs_binary(&o, RS_OP_ADD, f->dead, f->d, NULL));
  BAD(rs_binary_into(NULL, RS_OP_ADD, f->d, f->d, NULL));
  BAD(rs_binary_into(f->d, bad, f->d, f->d, NULL));
  BAD(rs_binary_into(f->fd, RS_OP_ADD, f->d, f->d, NULL));
  BAD(rs_binary_scalar(NULL, RS_OP_ADD, f->d, two, NULL));
  BAD(rs_binary_scalar(&o, bad, f->d, two, NULL));
  BAD(rs_binary_scalar(&o, RS_OP_ADD, f->dead, two, NULL));
  BAD(rs_binary_scalar_into(NULL, RS_OP_ADD, f->d, two, NULL));
  BAD(rs_binary_scalar_into(f->d, bad, f->d, two, NULL));
  BAD(rs_binary_scalar_into(f->fd, RS_OP_ADD, f->d, two, NULL));
  BAD(rs_scalar_binary(NULL, RS_OP_SUBTRACT, two, f->d, NULL));
  BAD(rs_scalar_binary(&o, bad, two, f->d, NULL));
  BAD(rs_scalar_binary(&o, RS_OP_SUBTRACT, two, f->dead, NULL));
  BAD(rs_scalar_binary_into(NULL, RS_OP_SUBTRACT, two, f->d, NULL));
  BAD(rs_scalar_binary_into(f->d, bad, two, f->d, NULL));
  BAD(rs_scalar_binary_into(f->row, RS_OP_SUBTRACT, two, f->d, NULL));
  BAD(rs_unary(NULL, RS_OP_SQRT, f->d, NULL));
  BAD(rs_unary(&o, bad, f->d, NULL));
  BAD(rs_unary(&o, RS_OP_ADD, f->d, NULL)); /* a binary op */
  BAD(rs_unary(&o, RS_OP_SQRT, f->dead, NULL));
  BAD(rs_unary_into(NULL, RS_OP_SQRT, f->d, NULL));
  BAD(rs_unary_into(f->d, bad, f->d, NULL));
  BAD(rs_unary_into(f->fd, RS_OP_SQRT, f->d, NULL));
  BAD(rs_where(NULL, f->d, f->d, f->d, NULL));
  BAD(rs_where(&o, NULL, f->d, f->d, NULL));
  BAD(rs_where(&o, f->d, f->dead, f->d, NULL));
  BAD(rs_where(&o, f->d, f->d, f->fd, NULL));
  BAD(rs_where(&o, f->d, f->d, f->row, NULL));
  BAD(rs_where_into(NULL, f->d, f->d, f->d, NULL));
  BAD(rs_where_into(f->d, NULL, f->d, f->d, NULL));
  BAD(rs_where_into(f->fd, f->d, f->d, f->d, NULL));
  BAD(rs_where_into(f->row, f->d, f->d, f->d, NULL));
  BAD(rs_astype(NULL, f->d, RS_INT32, NULL));
  BAD(rs_astype(&o, NULL, RS_INT32, NULL));
  BAD(rs_astype(&o, f->dead, RS_INT32, NULL));
  BAD(rs_astype(&o, f->d, BAD_DT, NULL));
  BAD(rs_astype_into(NULL, f->d, RS_INT32, NULL));
  BAD(rs_astype_into(f->i64, NULL, RS_INT64, NULL));
  BAD(rs_astype_into(f->fd, f->d, RS_FLOAT32, NULL));
  BAD(rs_astype_into(f->row, f->d, RS_FLOAT32, NULL));
}

static void case_reduce_sort(fx *f) {
  const rs_reduce_op bad = (rs_reduce_op)999;
  EXPECT(rs_reduce_op_name(bad) != NULL);
  BAD(rs_reduce(NULL, RS_REDUCE_SUM, f->d, 0, NULL, 0, NULL));
  BAD(rs_reduce(&o, bad, f->d, 0, NULL, 0, NULL));
  BAD(rs_reduce(&o, RS_REDUCE_SUM, f->dead, 0, NULL, 0, NULL));
  BAD(rs_reduce_into(NULL, RS_REDUCE_SUM, f->d, 0, NULL, 0, NULL));
  BAD(rs_reduce_into(f->d, bad, f->d, 0, NULL, 0, NULL));
  BAD(rs_reduce_into(f->fd, RS_REDUCE_SUM, f->d, 0, NULL, 0, NULL));
  reduce_family(f, "[rs_sum] ", rs_sum, rs_sum_into);
  reduce_family(f, "[rs_prod] ", rs_prod, rs_prod_into);
  reduce_family(f, "[rs_mean] ", rs_mean, rs_mean_into);
  reduce_family(f, "[rs_min] ", rs_min, rs_min_into);
  reduce_family(f, "[rs_max] ", rs_max, rs_max_into);
  reduce_family(f, "[rs_all] ", rs_all, rs_all_into);
  reduce_family(f, "[rs_any] ", rs_any, rs_any_into);
  arg_family(f, "[rs_argmin] ", rs_argmin, rs_argmin_into);
  arg_family(f, "[rs_argmax] ", rs_argmax, rs_argmax_into);
  unary_family(f, "[rs_sort] ", rs_sort, rs_sort_into);
  unary_family(f, "[rs_argsort] ", rs_argsort, rs_argsort_into);
}

/* dlpack.h: bad arrays and bad tensors (tests/test_dlpack.c refuses each field) */
static void bad_deleter(rs_dl_managed_tensor_versioned *self) { (void)self; }
static void bad_legacy_deleter(rs_dl_managed_tensor *self) { (void)self; }
static void case_dlpack(fx *f) {
  rs_dl_managed_tensor_versioned *t = NULL;
  BAD(rs_array_to_dlpack(NULL, f->d));
  BAD(rs_array_to_dlpack(&t, NULL));
  EXPECT(t == NULL);
  BAD(rs_array_to_dlpack(&t, f->dead));
  EXPECT(t == NULL);
  int64_t shape[1] = {-1};
  rs_dl_managed_tensor_versioned bad;
  memset(&bad, 0, sizeof bad);
  bad.version.major = 1;
  bad.deleter = bad_deleter;
  bad.dl_tensor.device.device_type = 1;
  bad.dl_tensor.ndim = 1;
  bad.dl_tensor.shape = shape;
  bad.dl_tensor.dtype.code = 2;
  bad.dl_tensor.dtype.bits = 32;
  bad.dl_tensor.dtype.lanes = 1;
  BAD(rs_array_from_dlpack(NULL, f->ctx, &bad));
  BAD(rs_array_from_dlpack(&o, NULL, &bad));
  BAD(rs_array_from_dlpack(&o, f->ctx, NULL));
  BAD(rs_array_from_dlpack(&o, f->ctx, &bad)); /* negative shape */
  shape[0] = 4;
  BAD(rs_array_from_dlpack(&o, f->ctx, &bad)); /* NULL data with elements */
  bad.dl_tensor.device.device_type = 99;
  BAD(rs_array_from_dlpack(&o, f->ctx, &bad));
  rs_dl_managed_tensor legacy = {bad.dl_tensor, NULL, bad_legacy_deleter};
  BAD(rs_array_from_dlpack_legacy(&o, f->ctx, &legacy)); /* device type 99 */
  BAD(rs_array_from_dlpack_legacy(NULL, f->ctx, &legacy));
  BAD(rs_array_from_dlpack_legacy(&o, NULL, &legacy));
  BAD(rs_array_from_dlpack_legacy(&o, f->ctx, NULL));
  /* the stream handshake */
  BAD(rs_array_to_dlpack_on(NULL, f->d, NULL, RS_DLPACK_STREAM_LEGACY));
  BAD(rs_array_to_dlpack_on(&t, f->dead, NULL, RS_DLPACK_STREAM_LEGACY));
  EXPECT(t == NULL);
  BAD(rs_array_to_dlpack_on(&t, f->d, f->fs, RS_DLPACK_STREAM_LEGACY)); /* another context's stream */
  BAD(rs_array_to_dlpack_on(&t, f->d, f->dead_s, RS_DLPACK_STREAM_LEGACY));
  BAD(rs_array_to_dlpack_on(&t, f->d, NULL, 0)); /* ambiguous */
  BAD(rs_array_to_dlpack_on(&t, f->d, NULL, -7));
  EXPECT(t == NULL);
  intptr_t v = 0;
  BAD(rs_stream_dlpack_value(f->s, NULL));
  BAD(rs_stream_dlpack_value(f->dead_s, &v));
  BAD(rs_stream_wait_dlpack(NULL, RS_DLPACK_STREAM_LEGACY));
  BAD(rs_stream_wait_dlpack(f->dead_s, RS_DLPACK_STREAM_LEGACY));
  BAD(rs_stream_wait_dlpack(f->s, 0));
  BAD(rs_stream_wait_dlpack(f->s, -2));
}

/* ipc.h: bad arrays, bad handles (tests/test_ipc.c forges each field) */
static void case_ipc(fx *f) {
  rs_ipc_handle h;
  BAD(rs_ipc_export(NULL, f->d));
  BAD(rs_ipc_export(&h, NULL));
  BAD(rs_ipc_export(&h, f->dead));
  BAD(rs_ipc_export(&h, f->h)); /* host memory */
  memset(&h, 0, sizeof h);
  BAD(rs_ipc_open(NULL, f->ctx, &h));
  BAD(rs_ipc_open(&o, NULL, &h));
  BAD(rs_ipc_open(&o, f->ctx, NULL));
  BAD(rs_ipc_open(&o, f->ctx, &h)); /* garbled */
  if (rs_ipc_export(&h, f->d) == RS_OK) BAD(rs_ipc_open(&o, f->ctx, &h)); /* this process's own */
  BAD(rs_ipc_event_export(NULL, f->ev));
  BAD(rs_ipc_event_export(&h, NULL));
  BAD(rs_ipc_event_export(&h, f->dead_ev));
  BAD(rs_ipc_event_export(&h, f->ev)); /* not RS_EVENT_INTERPROCESS */
  memset(&h, 0, sizeof h);
  BAD(rs_ipc_event_open(NULL, f->ctx, &h));
  BAD(rs_ipc_event_open(&oe, NULL, &h));
  BAD(rs_ipc_event_open(&oe, f->ctx, NULL));
  BAD(rs_ipc_event_open(&oe, f->ctx, &h)); /* garbled */
}

/* memory.h: prefetch and advice of managed memory (tests/test_managed_prefetch.c) */
static void case_prefetch(fx *f) {
  BAD(rs_array_prefetch(NULL, RS_MEM_DEVICE, NULL));
  BAD(rs_array_prefetch(f->dead, RS_MEM_DEVICE, NULL));
  BAD(rs_array_prefetch(f->d, RS_MEM_DEVICE, NULL)); /* device memory does not migrate */
  BAD(rs_array_prefetch(f->h, RS_MEM_HOST, NULL));
  BAD(rs_array_advise(NULL, RS_ADVISE_READ_MOSTLY, RS_MEM_DEVICE));
  BAD(rs_array_advise(f->dead, RS_ADVISE_READ_MOSTLY, RS_MEM_DEVICE));
  BAD(rs_array_advise(f->d, RS_ADVISE_READ_MOSTLY, RS_MEM_DEVICE));
  rs_array *m = NULL;
  if (rs_managed_array(&m, f->ctx, 1, shape4, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL) == RS_OK) {
    BAD(rs_array_prefetch(m, BAD_WHERE, NULL));
    BAD(rs_array_prefetch(m, RS_MEM_DEVICE, f->fs)); /* another context's stream */
    BAD(rs_array_prefetch(m, RS_MEM_DEVICE, f->dead_s));
    BAD(rs_array_advise(m, (rs_mem_advice)99, RS_MEM_DEVICE));
    BAD(rs_array_advise(m, RS_ADVISE_ACCESSED_BY, BAD_WHERE));
    rs_array_release(m);
  }
}

/* zeros/ones/full/empty/arange/linspace/eye and their _into forms */
static void case_creation(fx *f) {
  rs_context *c = f->ctx;
  const int64_t neg[1] = {-4};
  rs_scalar one = rs_scalar_float(1.0);
  BAD_KNOWN("null-out-creation", rs_zeros(NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, NULL));
  BAD_KNOWN("null-out-creation", rs_ones(NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, NULL));
  BAD_KNOWN("null-out-creation", rs_full(NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, one, NULL));
  BAD_KNOWN("null-out-creation", rs_arange(NULL, c, RS_MEM_DEVICE, 0, 4, 1, RS_FLOAT32, NULL));
  BAD_KNOWN("null-out-creation", rs_linspace(NULL, c, RS_MEM_DEVICE, 0, 1, 5, 1, RS_FLOAT32, NULL));
  BAD_KNOWN("null-out-creation", rs_eye(NULL, c, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT32, NULL));
  BAD(rs_empty(NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32));
  BAD(rs_empty(&o, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32));
  BAD(rs_empty(&o, c, BAD_WHERE, 2, shape33, RS_FLOAT32));
  BAD(rs_empty(&o, c, RS_MEM_DEVICE, 2, big2, RS_FLOAT32));
  BAD(rs_empty(&o, c, RS_MEM_DEVICE, 1, neg, RS_FLOAT32));
  BAD(rs_empty(&o, c, RS_MEM_DEVICE, 2, NULL, RS_FLOAT32));
  BAD(rs_empty(&o, c, RS_MEM_DEVICE, 2, shape33, BAD_DT));
  BAD(rs_zeros(&o, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, NULL));
  BAD(rs_zeros(&o, c, BAD_WHERE, 2, shape33, RS_FLOAT32, NULL));
  BAD(rs_zeros(&o, c, RS_MEM_DEVICE, 2, big2, RS_FLOAT32, NULL));
  BAD(rs_zeros(&o, c, RS_MEM_DEVICE, 2, shape33, BAD_DT, NULL));
  BAD(rs_zeros(&o, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, f->fs));
  BAD(rs_zeros(&o, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, f->dead_s));
  BAD(rs_ones(&o, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, NULL));
  BAD(rs_ones(&o, c, RS_MEM_DEVICE, 2, big2, RS_FLOAT32, NULL));
  BAD(rs_ones(&o, c, RS_MEM_DEVICE, 1, neg, RS_FLOAT32, NULL));
  BAD(rs_full(&o, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, one, NULL));
  BAD(rs_full(&o, c, RS_MEM_DEVICE, 2, big2, RS_FLOAT32, one, NULL));
  BAD(rs_full(&o, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, (rs_scalar){(rs_scalar_kind)77, 0, 0.0, 0.0}, NULL));
  BAD(rs_arange(&o, NULL, RS_MEM_DEVICE, 0, 4, 1, RS_FLOAT32, NULL));
  BAD(rs_arange(&o, c, RS_MEM_DEVICE, 0, 4, 0, RS_FLOAT32, NULL));
  BAD(rs_arange(&o, c, RS_MEM_DEVICE, 0, 1e300, 1e-300, RS_FLOAT32, NULL));
  BAD(rs_arange(&o, c, RS_MEM_DEVICE, 0, NAN, 1, RS_FLOAT32, NULL));
  BAD(rs_arange(&o, c, RS_MEM_DEVICE, 0, INFINITY, 1, RS_FLOAT32, NULL));
  BAD(rs_linspace(&o, NULL, RS_MEM_DEVICE, 0, 1, 5, 1, RS_FLOAT32, NULL));
  BAD(rs_linspace(&o, c, RS_MEM_DEVICE, 0, 1, -5, 1, RS_FLOAT32, NULL));
  BAD(rs_linspace(&o, c, RS_MEM_DEVICE, 0, 1, INT64_MAX, 1, RS_FLOAT32, NULL));
  BAD(rs_eye(&o, NULL, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT32, NULL));
  BAD(rs_eye(&o, c, RS_MEM_DEVICE, -3, 3, 0, RS_FLOAT32, NULL));
  BAD(rs_eye(&o, c, RS_MEM_DEVICE, (int64_t)1 << 40, (int64_t)1 << 40, 0, RS_FLOAT32, NULL));
  BAD(rs_eye(&o, c, RS_MEM_DEVICE, 3, 3, 0, BAD_DT, NULL));
  BAD(rs_empty_like(NULL, f->d, RS_MEM_DEVICE));
  BAD(rs_empty_like(&o, NULL, RS_MEM_DEVICE));
  BAD(rs_empty_like(&o, f->dead, RS_MEM_HOST));
  BAD(rs_empty_like(&o, f->d, BAD_WHERE));
  BAD(rs_zeros_like(NULL, f->d, RS_MEM_DEVICE, NULL));
  BAD(rs_zeros_like(&o, NULL, RS_MEM_DEVICE, NULL));
  BAD(rs_zeros_like(&o, f->dead, RS_MEM_DEVICE, NULL));
  BAD(rs_zeros_like(&o, f->d, BAD_WHERE, NULL));
  BAD(rs_zeros_like(&o, f->d, RS_MEM_DEVICE, f->fs));
  BAD(rs_zeros_like(&o, f->d, RS_MEM_DEVICE, f->dead_s));
  BAD(rs_ones_like(NULL, f->d, RS_MEM_DEVICE, NULL));
  BAD(rs_ones_like(&o, f->dead, RS_MEM_DEVICE, NULL));
  BAD(rs_ones_like(&o, f->d, BAD_WHERE, NULL));
  BAD(rs_ones_like(&o, f->d, RS_MEM_DEVICE, f->fs));
  BAD(rs_full_like(NULL, f->d, RS_MEM_DEVICE, one, NULL));
  BAD(rs_full_like(&o, NULL, RS_MEM_DEVICE, one, NULL));
  BAD(rs_full_like(&o, f->dead, RS_MEM_DEVICE, one, NULL));
  BAD(rs_full_like(&o, f->d, BAD_WHERE, one, NULL));
  BAD(rs_full_like(&o, f->d, RS_MEM_DEVICE, (rs_scalar){(rs_scalar_kind)77, 0, 0.0, 0.0}, NULL));
  BAD(rs_full_like(&o, f->d, RS_MEM_DEVICE, one, f->fs));
  BAD(rs_zeros_into(NULL, NULL));
  BAD(rs_zeros_into(f->dead, NULL));
  BAD(rs_zeros_into(f->d, f->fs));
  BAD(rs_ones_into(NULL, NULL));
  BAD(rs_ones_into(f->dead, NULL));
  BAD(rs_full_into(NULL, one, NULL));
  BAD(rs_full_into(f->dead, one, NULL));
  BAD(rs_full_into(f->d, (rs_scalar){(rs_scalar_kind)77, 0, 0.0, 0.0}, NULL));
  BAD(rs_arange_into(NULL, 0, 1, NULL));
  BAD(rs_arange_into(f->dead, 0, 1, NULL));
  BAD(rs_arange_into(f->d, 0, NAN, NULL));
  BAD(rs_linspace_into(NULL, 0, 1, 1, NULL));
  BAD(rs_linspace_into(f->dead, 0, 1, 1, NULL));
  BAD(rs_eye_into(NULL, 0, NULL));
  BAD(rs_eye_into(f->dead, 0, NULL));
  BAD(rs_eye_into(f->row, 0, NULL)); /* not 2-d */
}

static void case_random(fx *f) {
  rs_context *c = f->ctx;
  rs_rng rng = rs_rng_seed(7);
  BAD_KNOWN("null-out-creation", rs_random_uniform(NULL, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD_KNOWN("null-out-creation", rs_random_normal(NULL, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD_KNOWN("null-out-creation", rs_random_integers(NULL, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_INT32, 0, 9, NULL));
  BAD(rs_random_uniform(&o, NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD(rs_random_uniform(&o, &rng, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD(rs_random_uniform(&o, &rng, c, RS_MEM_DEVICE, 2, big2, RS_FLOAT32, 0, 1, NULL));
  BAD(rs_random_uniform(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_INT32, 0, 1, NULL));
  BAD(rs_random_uniform(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 1, 0, NULL));
  BAD(rs_random_uniform(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, NAN, NULL));
  BAD(rs_random_uniform_into(NULL, &rng, 0, 1, NULL));
  BAD(rs_random_uniform_into(f->d, NULL, 0, 1, NULL));
  BAD(rs_random_uniform_into(f->dead, &rng, 0, 1, NULL));
  BAD(rs_random_uniform_into(f->d, &rng, 0, 1, f->fs));
  BAD(rs_random_normal(&o, NULL, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD(rs_random_normal(&o, &rng, NULL, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 1, NULL));
  BAD(rs_random_normal(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, -1, NULL));
  BAD(rs_random_normal_into(NULL, &rng, 0, 1, NULL));
  BAD(rs_random_normal_into(f->d, NULL, 0, 1, NULL));
  BAD(rs_random_normal_into(f->dead, &rng, 0, 1, NULL));
  BAD(rs_random_integers(&o, NULL, c, RS_MEM_DEVICE, 2, shape33, RS_INT32, 0, 9, NULL));
  BAD(rs_random_integers(&o, &rng, NULL, RS_MEM_DEVICE, 2, shape33, RS_INT32, 0, 9, NULL));
  BAD(rs_random_integers(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_INT32, 9, 0, NULL));
  BAD(rs_random_integers(&o, &rng, c, RS_MEM_DEVICE, 2, shape33, RS_FLOAT32, 0, 9, NULL));
  BAD(rs_random_integers_into(NULL, &rng, 0, 9, NULL));
  BAD(rs_random_integers_into(f->i64, NULL, 0, 9, NULL));
  BAD(rs_random_integers_into(f->dead, &rng, 0, 9, NULL));
  BAD(rs_random_integers_into(f->i64, &rng, 9, 0, NULL));
}

static void case_linalg(fx *f) {
  rs_array *u = NULL, *s = NULL, *vh = NULL;
  binary_family(f, "[rs_matmul] ", rs_matmul, rs_matmul_into);
  binary_family(f, "[rs_solve] ", rs_solve, rs_solve_into);
  BAD(rs_svd(&u, NULL, &vh, f->d, 0, NULL)); /* u and vh may be NULL (values only), s not */
  BAD(rs_svd(&u, &s, &vh, NULL, 0, NULL));
  BAD(rs_svd(&u, &s, &vh, f->dead, 0, NULL));
  BAD(rs_svd(&u, &s, &vh, f->row, 0, NULL)); /* not 2-d */
  BAD(rs_svd(&u, &s, &vh, f->d, 0, f->fs));
  EXPECT(u == NULL && s == NULL && vh == NULL);
  BAD(rs_svd_into(NULL, f->row, f->d, f->d, 0, NULL));
  BAD(rs_svd_into(f->d, NULL, f->d, f->d, 0, NULL));
  BAD(rs_svd_into(f->d, f->row, f->d, NULL, 0, NULL));
  BAD(rs_svd_into(f->d, f->row, f->d, f->d, 0, NULL)); /* s is (4), not (3) */
  BAD(rs_svd_into(f->fd, f->row, f->d, f->d, 0, NULL));
  /* nothing can be bad: threads may be NULL */
  int threads = 0;
  EXPECT(rs_linalg_host_library(NULL) != NULL && rs_linalg_host_library(&threads) != NULL && threads >= 1);
  EXPECT(rs_host_threads() >= 1); /* nothing can be bad either */
}

static void case_expr(fx *f) {
  rs_context *c = f->ctx;
  rs_expr *e = f->e;
  rs_scalar two = rs_scalar_float(2.0);
  BAD(rs_expr_create(NULL, c));
  BAD(rs_expr_create(&ox, NULL));
  EXPECT(rs_expr_destroy(NULL) == RS_OK);
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_array(NULL, f->d));
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_scalar(NULL, two));
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_unary(NULL, RS_OP_SQRT, 0));
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_binary(NULL, RS_OP_ADD, 0, 0));
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_where(NULL, 0, 0, 0));
  if (!is_known("expr-null-message")) BAD_NODE(rs_expr_astype(NULL, 0, RS_INT32));
  BAD(rs_expr_rebind(NULL, 0, f->d));
  BAD(rs_expr_status(NULL));
  BAD(rs_expr_eval(&o, NULL, 0, NULL));
  BAD(rs_expr_eval_into(f->d, NULL, 0, NULL));
  /* each failing node on one expression keeps the FIRST error; make a fresh one each time */
  struct {
    const char *what;
    int bad;
  } nodes[8];
  int n = 0;
  rs_expr *x = NULL;
#define NODE_CASE(call)                                        \
  do {                                                         \
    if (rs_expr_create(&x, c) != RS_OK) break;                 \
    int a_ = rs_expr_array(x, f->d);                           \
    (void)a_;                                                  \
    nodes[n].what = #call;                                     \
    nodes[n].bad = (call) == -1 && rs_expr_status(x) != RS_OK; \
    n++;                                                       \
    rs_expr_destroy(x);                                        \
  } while (0)
  NODE_CASE(rs_expr_array(x, NULL));
  NODE_CASE(rs_expr_array(x, f->fd));
  NODE_CASE(rs_expr_array(x, f->dead));
  NODE_CASE(rs_expr_scalar(x, (rs_scalar){(rs_scalar_kind)77, 0, 0.0, 0.0}));
  NODE_CASE(rs_expr_unary(x, RS_OP_SQRT, 99));
  NODE_CASE(rs_expr_binary(x, RS_OP_SQRT, 0, 0));
  NODE_CASE(rs_expr_where(x, 0, 0, -5));
  NODE_CASE(rs_expr_astype(x, 0, BAD_DT));
#undef NODE_CASE
  for (int i = 0; i < n; i++)
    if (!nodes[i].bad) rs_t_fail_(__FILE__, __LINE__, "%s: not refused (node or status)", nodes[i].what);
  int a = rs_expr_array(e, f->d);
  BAD(rs_expr_rebind(e, 99, f->d));
  BAD(rs_expr_rebind(e, a, NULL));
  BAD(rs_expr_rebind(e, a, f->row)); /* another shape */
  BAD(rs_expr_rebind(e, a, f->i64)); /* another dtype */
  BAD(rs_expr_rebind(e, a, f->fd));
  BAD(rs_expr_eval(NULL, e, a, NULL));
  BAD(rs_expr_eval(&o, e, 99, NULL));
  BAD(rs_expr_eval(&o, e, a, f->fs));
  BAD(rs_expr_eval_into(NULL, e, a, NULL));
  BAD(rs_expr_eval_into(f->row, e, a, NULL));
  BAD(rs_expr_eval_into(f->fd, e, a, NULL));
  BAD(rs_expr_eval_into(f->dead, e, a, NULL));
}

static void case_items_compare(fx *f) {
  const int64_t at[2] = {1, 1}, out_of[2] = {3, 0}, negative[2] = {-9, 0};
  double v;
  int64_t i;
  float buf;
  int r;
  rs_close_report rep;
  BAD(rs_array_item_to_host(NULL, at, &buf, NULL));
  BAD(rs_array_item_to_host(f->dead, at, &buf, NULL));
  BAD(rs_array_item_to_host(f->d, NULL, &buf, NULL)); /* 2-d: an index is needed */
  BAD(rs_array_item_to_host(f->d, out_of, &buf, NULL));
  BAD(rs_array_item_to_host(f->d, negative, &buf, NULL));
  BAD(rs_array_item_to_host(f->d, at, NULL, NULL));
  BAD(rs_array_item_to_host(f->d, at, &buf, f->fs));
  BAD(rs_array_item_double(NULL, at, &v, NULL));
  BAD(rs_array_item_double(f->d, out_of, &v, NULL));
  BAD(rs_array_item_double(f->d, at, NULL, NULL));
  BAD(rs_array_item_double(f->dead, at, &v, NULL));
  BAD(rs_array_item_int64(NULL, at, &i, NULL));
  BAD(rs_array_item_int64(f->i64, out_of, &i, NULL));
  BAD(rs_array_item_int64(f->i64, at, NULL, NULL));
  BAD(rs_array_item_int64(f->dead, at, &i, NULL));
  BAD(rs_allclose(NULL, f->d, 1e-5, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, NULL, 1e-5, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, f->d, 1e-5, 1e-8, 0, NULL, NULL));
  BAD(rs_allclose(f->d, f->dead, 1e-5, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, f->fd, 1e-5, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, f->row, 1e-5, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, f->d, -1, 1e-8, 0, &r, NULL));
  BAD(rs_allclose(f->d, f->d, NAN, 1e-8, 0, &r, NULL));
  BAD(rs_allclose_report(NULL, f->d, 1e-5, 1e-8, 0, &rep, NULL));
  BAD(rs_allclose_report(f->d, f->d, 1e-5, 1e-8, 0, NULL, NULL));
  BAD(rs_allclose_report(f->d, f->fd, 1e-5, 1e-8, 0, &rep, NULL));
  BAD(rs_assert_allclose(NULL, f->d, 1e-5, 1e-8, NULL));
  BAD(rs_assert_allclose(f->d, f->dead, 1e-5, 1e-8, NULL));
  BAD(rs_assert_allclose(f->d, f->row, 1e-5, 1e-8, NULL));
  BAD(rs_array_equal(NULL, f->d, &r, NULL));
  BAD(rs_array_equal(f->d, NULL, &r, NULL));
  BAD(rs_array_equal(f->d, f->d, NULL, NULL));
  BAD(rs_array_equal(f->d, f->dead, &r, NULL));
  BAD(rs_array_equal(f->d, f->fd, &r, NULL));
}

/* manip (issue 18): resident/manip.h. f->d is a device float32 3x3, f->row a (4). */
static void case_manip(fx *f) {
  const rs_array *two[2] = {f->d, f->d}, *mixed[2] = {f->d, f->row}, *foreign[2] = {f->d, f->fd};
  const rs_array *dead[2] = {f->d, f->dead}, *withnull[2] = {f->d, NULL};
  const int ax0[1] = {0}, ax00[2] = {0, 0}, ax9[1] = {9};
  const int64_t one[1] = {1}, neg[1] = {-1}, sh33[2] = {3, 3};
  rs_array *outs[4] = {0};
  BAD(rs_array_expand_dims_axes(NULL, f->d, 1, ax0));
  BAD(rs_array_expand_dims_axes(&o, f->dead, 1, ax0));
  BAD(rs_array_expand_dims_axes(&o, f->d, 2, ax00));
  BAD(rs_array_expand_dims_axes(&o, f->d, 1, NULL));
  BAD(rs_array_squeeze_axes(NULL, f->d, 0, NULL));
  BAD(rs_array_squeeze_axes(&o, f->dead, 0, NULL));
  BAD(rs_array_squeeze_axes(&o, f->d, 1, ax0)); /* length 3 */
  BAD(rs_array_permute_dims(&o, f->d, NULL));
  BAD(rs_array_permute_dims(&o, f->d, ax00));
  BAD(rs_array_moveaxis(NULL, f->d, 1, ax0, ax0));
  BAD(rs_array_moveaxis(&o, f->d, 1, ax9, ax0));
  BAD(rs_array_moveaxis(&o, f->d, 2, ax00, ax00));
  BAD(rs_array_broadcast_to(NULL, f->d, 2, sh33));
  BAD(rs_array_broadcast_to(&o, f->row, 2, sh33));
  BAD(rs_array_broadcast_to(&o, f->d, 2, NULL));
  BAD(rs_array_broadcast_to(&o, f->d, -1, sh33));
  BAD(rs_array_broadcast_arrays(NULL, 2, two));
  BAD(rs_array_broadcast_arrays(outs, 2, mixed));
  BAD(rs_array_broadcast_arrays(outs, 2, foreign));
  BAD(rs_array_broadcast_arrays(outs, 0, two));
  BAD(rs_array_unstack(NULL, 3, f->d, 0));
  BAD(rs_array_unstack(outs, 2, f->d, 0));
  BAD(rs_array_unstack(outs, 3, f->dead, 0));
  BAD(rs_concat(NULL, 2, two, 0, NULL));
  BAD(rs_concat(&o, 2, mixed, 0, NULL));
  BAD(rs_concat(&o, 2, foreign, 0, NULL));
  BAD(rs_concat(&o, 2, dead, 0, NULL));
  BAD(rs_concat(&o, 2, withnull, 0, NULL));
  BAD(rs_concat(&o, 2, two, 2, NULL));
  BAD(rs_concat(&o, 2, two, 0, f->fs));
  BAD(rs_concat_into(NULL, 2, two, 0, NULL));
  BAD(rs_concat_into(f->d, 2, two, 0, NULL)); /* (6, 3) does not fit (3, 3) */
  BAD(rs_stack(NULL, 2, two, 0, NULL));
  BAD(rs_stack(&o, 2, mixed, 0, NULL));
  BAD(rs_stack(&o, 2, two, 3, NULL));
  BAD(rs_stack_into(NULL, 2, two, 0, NULL));
  BAD(rs_stack_into(f->d, 2, two, 0, NULL));
  BAD(rs_flip(NULL, f->d, 0, NULL, NULL));
  BAD(rs_flip(&o, f->dead, 0, NULL, NULL));
  BAD(rs_flip(&o, f->d, 2, ax00, NULL));
  BAD(rs_flip_into(NULL, f->d, 0, NULL, NULL));
  BAD(rs_flip_into(f->row, f->d, 0, NULL, NULL));
  BAD(rs_flip_into(f->fd, f->d, 0, NULL, NULL));
  BAD(rs_roll(NULL, f->d, 1, one, NULL, NULL));
  BAD(rs_roll(&o, f->d, 1, NULL, ax0, NULL));
  BAD(rs_roll(&o, f->d, 1, one, ax9, NULL));
  BAD(rs_roll(&o, f->d, 2, sh33, NULL, NULL));
  BAD(rs_roll_into(NULL, f->d, 1, one, NULL, NULL));
  BAD(rs_roll_into(f->i64, f->d, 1, one, NULL, NULL)); /* float32 does not cast to int64 */
  BAD(rs_repeat(NULL, f->d, 1, one, 0, NULL));
  BAD(rs_repeat(&o, f->d, 1, neg, 0, NULL));
  BAD(rs_repeat(&o, f->d, 1, NULL, 0, NULL));
  BAD(rs_repeat(&o, f->d, 2, sh33, 0, NULL));
  BAD(rs_repeat(&o, f->d, 1, one, 5, NULL));
  BAD(rs_repeat_into(NULL, f->d, 1, one, 0, NULL));
  BAD(rs_repeat_into(f->row, f->d, 1, one, 0, NULL));
  BAD(rs_tile(NULL, f->d, 1, one, NULL));
  BAD(rs_tile(&o, f->d, 1, neg, NULL));
  BAD(rs_tile(&o, f->d, 1, NULL, NULL));
  BAD(rs_tile(&o, f->dead, 1, one, NULL));
  BAD(rs_tile_into(NULL, f->d, 1, one, NULL));
  BAD(rs_tile_into(f->row, f->d, 1, one, NULL));
  BAD(rs_meshgrid(NULL, 2, two, RS_MESHGRID_XY, NULL));
  BAD(rs_meshgrid(outs, 2, two, RS_MESHGRID_XY, NULL)); /* not 1-d */
  BAD(rs_meshgrid(outs, 1, (const rs_array *const *)&f->row, (rs_meshgrid_indexing)7, NULL));
  BAD(rs_meshgrid(outs, 0, two, RS_MESHGRID_IJ, NULL));
  BAD(rs_meshgrid_into(NULL, 1, (const rs_array *const *)&f->row, RS_MESHGRID_IJ, NULL));
  BAD(rs_meshgrid_into(outs, 1, (const rs_array *const *)&f->row, RS_MESHGRID_IJ, NULL)); /* dsts[0] NULL */
  BAD(rs_meshgrid_into(&f->d, 1, (const rs_array *const *)&f->row, RS_MESHGRID_IJ, NULL)); /* (3, 3) not (4) */
  BAD(rs_tril(NULL, f->d, 0, NULL));
  BAD(rs_tril(&o, f->row, 0, NULL));
  BAD(rs_tril(&o, f->dead, 0, NULL));
  BAD(rs_tril_into(NULL, f->d, 0, NULL));
  BAD(rs_tril_into(f->row, f->d, 0, NULL));
  BAD(rs_triu(NULL, f->d, 0, NULL));
  BAD(rs_triu(&o, f->row, 0, NULL));
  BAD(rs_triu_into(NULL, f->d, 0, NULL));
  BAD(rs_triu_into(f->fd, f->d, 0, NULL));
  BAD(rs_astype_copy(NULL, f->d, RS_FLOAT32, 0, NULL));
  BAD(rs_astype_copy(&o, NULL, RS_FLOAT32, 0, NULL));
  BAD(rs_astype_copy(&o, f->dead, RS_FLOAT32, 0, NULL));
  BAD(rs_astype_copy(&o, f->d, BAD_DT, 0, NULL));
  for (int i = 0; i < 4; i++) CHECK_MSG(outs[i] == NULL, "outs[%d] set by a failed call", i);
}

/* collective.h (issue 19): a comm of the fixture's context alone (where NCCL is missing on
 * CUDA only the calls without a comm are tried). */
static void case_collective(fx *f) {
  rs_comm *cm = NULL;
  rs_comm_id id;
  rs_context *one[1] = {f->ctx}, *none[1] = {NULL};
  int n = 0, to[1] = {5};
  BAD(rs_comm_create(NULL, one, 1));
  BAD(rs_comm_create(&cm, NULL, 1));
  BAD(rs_comm_create(&cm, one, 0));
  BAD(rs_comm_create(&cm, one, 65));
  BAD(rs_comm_create(&cm, none, 1));
  EXPECT(cm == NULL);
  BAD(rs_comm_unique_id(RS_BACKEND_SIM, NULL));
  BAD(rs_comm_unique_id((rs_backend_kind)99, &id));
  memset(&id, 0, sizeof id);
  BAD(rs_comm_init_rank(NULL, f->ctx, 1, 0, &id));
  BAD(rs_comm_init_rank(&cm, NULL, 1, 0, &id));
  BAD(rs_comm_init_rank(&cm, f->ctx, 1, 0, NULL));
  BAD(rs_comm_init_rank(&cm, f->ctx, 0, 0, &id));
  BAD(rs_comm_init_rank(&cm, f->ctx, 2, 2, &id));
  BAD(rs_comm_init_rank(&cm, f->ctx, 2, -1, &id));
  BAD(rs_comm_init_rank(&cm, f->ctx, 1, 0, &id)); /* an id of zeros: garbled */
  EXPECT(cm == NULL);
  EXPECT(rs_comm_destroy(NULL) == RS_OK);
  BAD(rs_comm_get_info(NULL, &n, &n, &n));
  const rs_array *sd[1] = {f->d};
  rs_array *rd[1] = {f->d};
  BAD(rs_comm_all_reduce(NULL, sd, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_reduce_scatter(NULL, sd, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_gather(NULL, sd, rd, NULL));
  BAD(rs_comm_broadcast(NULL, rd, 0, NULL));
  BAD(rs_comm_send_recv(NULL, sd, to, rd, to, NULL));
  if (rs_comm_create(&cm, one, 1) != RS_OK) return; /* CUDA without NCCL */
  const rs_array *dead[1] = {f->dead}, *foreign[1] = {f->fd}, *host[1] = {f->h}, *nul[1] = {NULL};
  BAD(rs_comm_all_reduce(cm, NULL, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_reduce(cm, nul, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_reduce(cm, dead, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_reduce(cm, foreign, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_reduce(cm, host, rd, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_reduce(cm, sd, rd, (rs_reduce_op)99, NULL));
  BAD(rs_comm_all_reduce(cm, sd, rd, RS_REDUCE_SUM, &f->dead_s));
  BAD(rs_comm_all_reduce(cm, sd, rd, RS_REDUCE_SUM, &f->fs)); /* another context's stream */
  BAD(rs_comm_reduce_scatter(cm, sd, NULL, RS_REDUCE_SUM, NULL));
  BAD(rs_comm_all_gather(cm, foreign, rd, NULL));
  BAD(rs_comm_broadcast(cm, rd, 1, NULL));
  BAD(rs_comm_broadcast(cm, NULL, 0, NULL));
  BAD(rs_comm_send_recv(cm, sd, NULL, rd, to, NULL));
  BAD(rs_comm_send_recv(cm, sd, to, NULL, NULL, NULL));
  EXPECT(rs_comm_destroy(cm) == RS_OK);
  BAD(rs_comm_destroy(cm));
  BAD(rs_comm_get_info(cm, &n, NULL, NULL));
  BAD(rs_comm_all_reduce(cm, sd, rd, RS_REDUCE_SUM, NULL));
}

/* indexing.h and sets.h (indexing, searching, sets) */
static void case_indexing(fx *f) {
  /* f->d is float32 3x3, f->i64 int64 3x3 zeros (valid indices), f->row float32 (4) */
  BAD(rs_take(NULL, f->d, f->i64, 0, NULL));
  BAD(rs_take(&o, NULL, f->i64, 0, NULL));
  BAD(rs_take(&o, f->d, NULL, 0, NULL));
  BAD(rs_take(&o, f->dead, f->i64, 0, NULL));
  BAD(rs_take(&o, f->d, f->fd, 0, NULL));
  BAD(rs_take(&o, f->d, f->row, 0, NULL)); /* float indices */
  BAD(rs_take(&o, f->d, f->i64, 5, NULL)); /* axis out of range */
  BAD(rs_take_into(NULL, f->d, f->i64, 0, NULL));
  BAD(rs_take_into(f->row, f->d, f->i64, 0, NULL)); /* wrong shape */
  BAD(rs_take_into(f->fd, f->d, f->i64, 0, NULL));
  BAD(rs_take_along_axis(NULL, f->d, f->i64, 0, NULL));
  BAD(rs_take_along_axis(&o, f->d, f->row, 0, NULL));
  BAD(rs_take_along_axis(&o, f->d, f->i64, -3, NULL));
  BAD(rs_take_along_axis_into(NULL, f->d, f->i64, 0, NULL));
  BAD(rs_take_along_axis_into(f->row, f->d, f->i64, 0, NULL));
  BAD(rs_put(NULL, f->i64, 0, f->d, NULL));
  BAD(rs_put(f->d, NULL, 0, f->d, NULL));
  BAD(rs_put(f->d, f->i64, 0, NULL, NULL));
  BAD(rs_put(f->d, f->i64, 0, f->row, NULL)); /* values do not broadcast */
  BAD(rs_put(f->d, f->i64, 0, f->fd, NULL));
  BAD(rs_mask_get(NULL, f->d, f->d, NULL));
  BAD(rs_mask_get(&o, f->d, NULL, NULL));
  BAD(rs_mask_get(&o, f->d, f->d, NULL)); /* not bool */
  BAD(rs_mask_get(&o, f->dead, f->d, NULL));
  BAD(rs_mask_get_into(NULL, f->d, f->d, NULL));
  BAD(rs_mask_get_into(f->d, f->d, f->row, NULL));
  BAD(rs_mask_set(NULL, f->d, f->d, NULL));
  BAD(rs_mask_set(f->d, NULL, f->d, NULL));
  BAD(rs_mask_set(f->d, f->d, NULL, NULL));
  BAD(rs_mask_set(f->d, f->d, f->d, NULL));
  BAD(rs_mask_set_scalar(NULL, f->d, rs_scalar_int(1), NULL));
  BAD(rs_mask_set_scalar(f->d, NULL, rs_scalar_int(1), NULL));
  BAD(rs_mask_set_scalar(f->d, f->row, rs_scalar_int(1), NULL));
  BAD(rs_nonzero(NULL, f->d, NULL));
  BAD(rs_nonzero(&o, NULL, NULL));
  BAD(rs_nonzero(&o, f->dead, NULL));
  BAD(rs_nonzero_into(NULL, f->d, NULL));
  BAD(rs_nonzero_into(f->row, f->d, NULL));
  BAD(rs_count_nonzero(NULL, f->d, 0, NULL, 0, NULL));
  BAD(rs_count_nonzero(&o, NULL, 0, NULL, 0, NULL));
  BAD(rs_count_nonzero(&o, f->d, 1, (const int[]){7}, 0, NULL));
  BAD(rs_count_nonzero_into(NULL, f->d, 0, NULL, 0, NULL));
  BAD(rs_count_nonzero_into(f->row, f->d, 0, NULL, 0, NULL));
  BAD(rs_searchsorted(NULL, f->row, f->row, RS_SIDE_LEFT, NULL, NULL));
  BAD(rs_searchsorted(&o, NULL, f->row, RS_SIDE_LEFT, NULL, NULL));
  BAD(rs_searchsorted(&o, f->row, NULL, RS_SIDE_LEFT, NULL, NULL));
  BAD(rs_searchsorted(&o, f->d, f->row, RS_SIDE_LEFT, NULL, NULL)); /* 2-d */
  BAD(rs_searchsorted(&o, f->row, f->row, (rs_side)9, NULL, NULL));
  BAD(rs_searchsorted(&o, f->row, f->row, RS_SIDE_LEFT, f->d, NULL)); /* sorter shape */
  BAD(rs_searchsorted(&o, f->row, f->fd, RS_SIDE_LEFT, NULL, NULL));
  BAD(rs_searchsorted_into(NULL, f->row, f->row, RS_SIDE_LEFT, NULL, NULL));
  BAD(rs_searchsorted_into(f->row, f->row, f->row, RS_SIDE_LEFT, NULL, NULL)); /* not int64 */
  rs_array *o2 = NULL, *o3 = NULL, *o4 = NULL;
  BAD(rs_unique_values(NULL, f->d, NULL));
  BAD(rs_unique_values(&o, NULL, NULL));
  BAD(rs_unique_values(&o, f->dead, NULL));
  BAD(rs_unique_values_into(NULL, f->d, NULL));
  BAD(rs_unique_values_into(f->d, f->d, NULL)); /* 2 values, a 3x3 destination */
  BAD(rs_unique_counts(&o, NULL, f->d, NULL));
  BAD(rs_unique_counts(&o, &o2, NULL, NULL));
  BAD(rs_unique_counts_into(f->d, NULL, f->d, NULL));
  BAD(rs_unique_counts_into(f->row, f->row, f->d, NULL));
  BAD(rs_unique_inverse(&o, NULL, f->d, NULL));
  BAD(rs_unique_inverse(&o, &o2, f->dead, NULL));
  BAD(rs_unique_inverse_into(NULL, f->i64, f->d, NULL));
  BAD(rs_unique_inverse_into(f->row, f->i64, f->fd, NULL));
  BAD(rs_unique_all(&o, &o2, &o3, NULL, f->d, NULL));
  BAD(rs_unique_all(&o, &o2, &o3, &o4, NULL, NULL));
  BAD(rs_unique_all_into(f->row, f->row, f->i64, NULL, f->d, NULL));
  BAD(rs_unique_all_into(f->row, f->row, f->row, f->row, f->d, NULL));
  EXPECT(o2 == NULL && o3 == NULL && o4 == NULL);
}

/* stats.h and the any-axis sorts of sort.h (stats) */
typedef rs_status (*var_fn)(rs_array **, const rs_array *, int, const int *, double, int, rs_stream *);
typedef rs_status (*var_into_fn)(rs_array *, const rs_array *, int, const int *, double, int, rs_stream *);
typedef rs_status (*scan_fn)(rs_array **, const rs_array *, int, int, rs_stream *);
typedef rs_status (*scan_into_fn)(rs_array *, const rs_array *, int, int, rs_stream *);
typedef rs_status (*asort_fn)(rs_array **, const rs_array *, int, int, int, rs_stream *);
typedef rs_status (*asort_into_fn)(rs_array *, const rs_array *, int, int, int, rs_stream *);

static void var_family(fx *f, const char *name, var_fn fn, var_into_fn into) {
  const int ax0[1] = {0}, ax9[1] = {9}, twice[2] = {0, 0};
  cur = name;
  BAD(fn(NULL, f->d, 0, NULL, 0, 0, NULL));
  BAD(fn(&o, NULL, 0, NULL, 0, 0, NULL));
  BAD(fn(&o, f->dead, 0, NULL, 0, 0, NULL));
  BAD(fn(&o, f->d, 1, ax9, 0, 0, NULL));
  BAD(fn(&o, f->d, 2, twice, 0, 0, NULL));
  BAD(fn(&o, f->d, -1, ax0, 0, 0, NULL));
  BAD(fn(&o, f->d, 0, NULL, -1, 0, NULL));
  BAD(fn(&o, f->d, 0, NULL, 9, 0, NULL)); /* 9 elements: no degree of freedom left */
  BAD(fn(&o, f->d, 0, NULL, 0, 0, f->fs));
  BAD(into(NULL, f->d, 0, NULL, 0, 0, NULL));
  BAD(into(f->d, NULL, 0, NULL, 0, 0, NULL));
  BAD(into(f->dead, f->d, 0, NULL, 0, 0, NULL));
  BAD(into(f->d, f->d, 0, NULL, 0, 0, NULL));
  BAD(into(f->row, f->d, 1, ax0, 0, 0, NULL));
  BAD(into(f->fd, f->d, 1, ax0, 0, 0, NULL));
  cur = "";
}

static void scan_family(fx *f, const char *name, scan_fn fn, scan_into_fn into) {
  cur = name;
  BAD(fn(NULL, f->d, 0, 0, NULL));
  BAD(fn(&o, NULL, 0, 0, NULL));
  BAD(fn(&o, f->dead, 0, 0, NULL));
  BAD(fn(&o, f->d, 2, 0, NULL));
  BAD(fn(&o, f->d, RS_ALL_AXES, 0, NULL)); /* 2-d: an axis is required */
  BAD(fn(&o, f->d, 0, 0, f->fs));
  BAD(into(NULL, f->d, 0, 0, NULL));
  BAD(into(f->d, NULL, 0, 0, NULL));
  BAD(into(f->dead, f->d, 0, 0, NULL));
  BAD(into(f->d, f->d, 0, 1, NULL)); /* include_initial: (4, 3) */
  BAD(into(f->fd, f->d, 0, 0, NULL));
  BAD(into(f->row, f->d, 0, 0, NULL));
  cur = "";
}

static void asort_family(fx *f, const char *name, asort_fn fn, asort_into_fn into, rs_array *ok_dst) {
  cur = name;
  BAD(fn(NULL, f->d, 0, 0, 1, NULL));
  BAD(fn(&o, NULL, 0, 0, 1, NULL));
  BAD(fn(&o, f->dead, 0, 0, 1, NULL));
  BAD(fn(&o, f->d, 2, 0, 1, NULL));
  BAD(fn(&o, f->d, -3, 1, 1, NULL));
  BAD(fn(&o, f->d, 0, 0, 1, f->fs));
  BAD(into(NULL, f->d, 0, 0, 1, NULL));
  BAD(into(ok_dst, NULL, 0, 0, 1, NULL));
  BAD(into(f->dead, f->d, 0, 0, 1, NULL));
  BAD(into(ok_dst, f->d, 5, 0, 1, NULL));
  BAD(into(f->fd, f->d, 0, 0, 1, NULL));
  BAD(into(f->row, f->d, 0, 0, 1, NULL));
  cur = "";
}

static void case_stats(fx *f) {
  rs_scalar lo = rs_scalar_float(0), bad_kind = {(rs_scalar_kind)77, 0, 0.0, 0.0};
  var_family(f, "[rs_var] ", rs_var, rs_var_into);
  var_family(f, "[rs_std] ", rs_std, rs_std_into);
  scan_family(f, "[rs_cumulative_sum] ", rs_cumulative_sum, rs_cumulative_sum_into);
  scan_family(f, "[rs_cumulative_prod] ", rs_cumulative_prod, rs_cumulative_prod_into);
  asort_family(f, "[rs_sort_axis] ", rs_sort_axis, rs_sort_axis_into, f->d);
  asort_family(f, "[rs_argsort_axis] ", rs_argsort_axis, rs_argsort_axis_into, f->i64);
  BAD(rs_clip(NULL, f->d, f->d, NULL, NULL));
  BAD(rs_clip(&o, NULL, f->d, NULL, NULL));
  BAD(rs_clip(&o, f->dead, NULL, NULL, NULL));
  BAD(rs_clip(&o, f->d, f->dead, NULL, NULL));
  BAD(rs_clip(&o, f->d, NULL, f->fd, NULL));
  BAD(rs_clip(&o, f->d, f->row, NULL, NULL));
  BAD(rs_clip(&o, f->d, NULL, NULL, f->fs));
  BAD(rs_clip_into(NULL, f->d, NULL, NULL, NULL));
  BAD(rs_clip_into(f->d, NULL, NULL, NULL, NULL));
  BAD(rs_clip_into(f->fd, f->d, NULL, NULL, NULL));
  BAD(rs_clip_into(f->row, f->d, f->d, NULL, NULL));
  BAD(rs_clip_scalar(NULL, f->d, &lo, NULL, NULL));
  BAD(rs_clip_scalar(&o, NULL, &lo, NULL, NULL));
  BAD(rs_clip_scalar(&o, f->dead, &lo, NULL, NULL));
  BAD(rs_clip_scalar(&o, f->d, &bad_kind, NULL, NULL));
  BAD(rs_clip_scalar(&o, f->d, NULL, &lo, f->fs));
  BAD(rs_clip_scalar_into(NULL, f->d, &lo, NULL, NULL));
  BAD(rs_clip_scalar_into(f->d, NULL, &lo, NULL, NULL));
  BAD(rs_clip_scalar_into(f->fd, f->d, &lo, NULL, NULL));
  BAD(rs_clip_scalar_into(f->row, f->d, &lo, &lo, NULL));
  BAD(rs_diff(NULL, f->d, 1, 0, NULL, NULL, NULL));
  BAD(rs_diff(&o, NULL, 1, 0, NULL, NULL, NULL));
  BAD(rs_diff(&o, f->dead, 1, 0, NULL, NULL, NULL));
  BAD(rs_diff(&o, f->d, -1, 0, NULL, NULL, NULL));
  BAD(rs_diff(&o, f->d, 1, 2, NULL, NULL, NULL));
  BAD(rs_diff(&o, f->d, 1, 0, f->row, NULL, NULL));
  BAD(rs_diff(&o, f->d, 1, 0, NULL, f->fd, NULL));
  BAD(rs_diff(&o, f->d, 1, 0, f->dead, NULL, NULL));
  BAD(rs_diff(&o, f->d, 1, 0, NULL, NULL, f->fs));
  BAD(rs_diff_into(NULL, f->d, 1, 0, NULL, NULL, NULL));
  BAD(rs_diff_into(f->d, NULL, 1, 0, NULL, NULL, NULL));
  BAD(rs_diff_into(f->d, f->d, 1, 0, NULL, NULL, NULL)); /* (3, 3) for (2, 3) */
  BAD(rs_diff_into(f->fd, f->d, 0, 0, NULL, NULL, NULL));
}

/* linalg extension: factorizations (f->d is a 3x3 identity, f->row a vector) */
static void case_linalg_ext(fx *f) {
  rs_array *a = NULL, *b = NULL;
  unary_family(f, "[rs_det] ", rs_det, rs_det_into);
  unary_family(f, "[rs_inv] ", rs_inv, rs_inv_into);
  unary_family(f, "[rs_eigvalsh] ", rs_eigvalsh, rs_eigvalsh_into);
  BAD(rs_cholesky(NULL, f->d, 0, NULL));
  BAD(rs_cholesky(&a, NULL, 0, NULL));
  BAD(rs_cholesky(&a, f->dead, 0, NULL));
  BAD(rs_cholesky(&a, f->row, 0, NULL)); /* not a matrix */
  BAD(rs_cholesky(&a, f->d, 0, f->fs));
  BAD(rs_cholesky_into(NULL, f->d, 0, NULL));
  BAD(rs_cholesky_into(f->row, f->d, 1, NULL));
  BAD(rs_cholesky_into(f->fd, f->d, 0, NULL));
  BAD(rs_qr(&a, NULL, f->d, 0, NULL)); /* q may be NULL, r not */
  BAD(rs_qr(&a, &b, NULL, 0, NULL));
  BAD(rs_qr(&a, &b, f->dead, 0, NULL));
  BAD(rs_qr(&a, &b, f->row, 1, NULL));
  BAD(rs_qr(&a, &b, f->d, 0, f->fs));
  BAD(rs_qr_into(f->d, NULL, f->d, 0, NULL));
  BAD(rs_qr_into(f->d, f->row, f->d, 0, NULL));
  BAD(rs_qr_into(f->fd, f->d, f->d, 0, NULL));
  BAD(rs_eigh(NULL, &b, f->d, NULL));
  BAD(rs_eigh(&a, NULL, f->d, NULL));
  BAD(rs_eigh(&a, &b, f->dead, NULL));
  BAD(rs_eigh(&a, &b, f->row, NULL));
  BAD(rs_eigh(&a, &b, f->d, f->fs));
  BAD(rs_eigh_into(NULL, f->d, f->d, NULL));
  BAD(rs_eigh_into(f->row, NULL, f->d, NULL));
  BAD(rs_eigh_into(f->d, f->d, f->d, NULL)); /* w is (3,), not (3, 3) */
  BAD(rs_slogdet(NULL, &b, f->d, NULL));
  BAD(rs_slogdet(&a, NULL, f->d, NULL));
  BAD(rs_slogdet(&a, &b, f->dead, NULL));
  BAD(rs_slogdet(&a, &b, f->row, NULL));
  BAD(rs_slogdet(&a, &b, f->d, f->fs));
  BAD(rs_slogdet_into(NULL, f->d, f->d, NULL));
  BAD(rs_slogdet_into(f->d, NULL, f->d, NULL));
  BAD(rs_slogdet_into(f->d, f->d, f->d, NULL)); /* sign is 0-d, not (3, 3) */
  EXPECT(a == NULL && b == NULL);
}

/* linalg extension: the composed operations */
typedef rs_status (*off_fn)(rs_array **, const rs_array *, int64_t, rs_stream *);
typedef rs_status (*off_into_fn)(rs_array *, const rs_array *, int64_t, rs_stream *);
typedef rs_status (*tol_fn)(rs_array **, const rs_array *, double, rs_stream *);
typedef rs_status (*tol_into_fn)(rs_array *, const rs_array *, double, rs_stream *);

static void matrix_family(fx *f, const char *name, off_fn fn, off_into_fn into, tol_fn tfn, tol_into_fn tinto) {
  cur = name;
  for (int t = 0; t < 2; t++) {
    /* a NULL out, a NULL / dead / non-matrix input, a foreign stream; into: NULL dst, a
     * foreign dst, a dst of the wrong shape */
#define RS_MF_(out, x, s) (t ? tfn(out, x, 1e-3, s) : fn(out, x, 2, s))
#define RS_MF_INTO_(d, x, s) (t ? tinto(d, x, 1e-3, s) : into(d, x, 2, s))
    if (t ? !tfn : !fn) continue;
    BAD(RS_MF_(NULL, f->d, NULL));
    BAD(RS_MF_(&o, NULL, NULL));
    BAD(RS_MF_(&o, f->dead, NULL));
    BAD(RS_MF_(&o, f->row, NULL));
    BAD(RS_MF_(&o, f->d, f->fs));
    BAD(RS_MF_INTO_(NULL, f->d, NULL));
    BAD(RS_MF_INTO_(f->dead, f->d, NULL));
    BAD(RS_MF_INTO_(f->fd, f->d, NULL));
    BAD(RS_MF_INTO_(f->row, f->d, NULL));
#undef RS_MF_
#undef RS_MF_INTO_
  }
  cur = "";
}

static void case_linalg_compose(fx *f) {
  rs_array *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  int ax[1] = {0}, bx[1] = {1}, far[1] = {5};
  matrix_family(f, "[rs_diagonal] ", rs_diagonal, rs_diagonal_into, NULL, NULL);
  matrix_family(f, "[rs_trace] ", rs_trace, rs_trace_into, NULL, NULL);
  matrix_family(f, "[rs_matrix_power] ", rs_matrix_power, rs_matrix_power_into, NULL, NULL);
  matrix_family(f, "[rs_matrix_rank] ", NULL, NULL, rs_matrix_rank, rs_matrix_rank_into);
  matrix_family(f, "[rs_pinv] ", NULL, NULL, rs_pinv, rs_pinv_into);
  unary_family(f, "[rs_svdvals] ", rs_svdvals, rs_svdvals_into);
  BAD(rs_matrix_rank(&a, f->d, NAN, NULL));
  BAD(rs_pinv(&a, f->d, NAN, NULL));
  /* outer: 1-d operands */
  BAD(rs_outer(NULL, f->row, f->row, NULL));
  BAD(rs_outer(&a, NULL, f->row, NULL));
  BAD(rs_outer(&a, f->row, f->dead, NULL));
  BAD(rs_outer(&a, f->d, f->row, NULL));
  BAD(rs_outer(&a, f->row, f->row, f->fs));
  BAD(rs_outer_into(NULL, f->row, f->row, NULL));
  BAD(rs_outer_into(f->d, f->row, f->row, NULL)); /* (4, 4) into (3, 3) */
  /* vecdot */
  BAD(rs_vecdot(NULL, f->d, f->d, -1, NULL));
  BAD(rs_vecdot(&a, NULL, f->d, -1, NULL));
  BAD(rs_vecdot(&a, f->d, f->dead, -1, NULL));
  BAD(rs_vecdot(&a, f->d, f->row, -1, NULL)); /* 3 and 4 */
  BAD(rs_vecdot(&a, f->d, f->d, 2, NULL));
  BAD(rs_vecdot(&a, f->d, f->d, -1, f->fs));
  BAD(rs_vecdot_into(NULL, f->d, f->d, -1, NULL));
  BAD(rs_vecdot_into(f->d, f->d, f->d, -1, NULL)); /* (3,) into (3, 3) */
  BAD(rs_vecdot_into(f->fd, f->d, f->d, -1, NULL));
  /* tensordot */
  BAD(rs_tensordot(NULL, f->d, f->d, 1, bx, ax, NULL));
  BAD(rs_tensordot(&a, NULL, f->d, 1, bx, ax, NULL));
  BAD(rs_tensordot(&a, f->d, f->dead, 1, bx, ax, NULL));
  BAD(rs_tensordot(&a, f->d, f->d, 1, NULL, ax, NULL));
  BAD(rs_tensordot(&a, f->d, f->d, 1, far, ax, NULL));
  BAD(rs_tensordot(&a, f->d, f->row, 1, bx, ax, NULL)); /* 3 and 4 */
  BAD(rs_tensordot(&a, f->d, f->d, 3, bx, ax, NULL));
  BAD(rs_tensordot(&a, f->d, f->d, 1, bx, ax, f->fs));
  BAD(rs_tensordot_into(NULL, f->d, f->d, 1, bx, ax, NULL));
  BAD(rs_tensordot_into(f->row, f->d, f->d, 1, bx, ax, NULL));
  BAD(rs_tensordot_into(f->fd, f->d, f->d, 1, bx, ax, NULL));
  /* norms */
  BAD(rs_vector_norm(NULL, f->d, 0, NULL, 0, 2, NULL));
  BAD(rs_vector_norm(&a, NULL, 0, NULL, 0, 2, NULL));
  BAD(rs_vector_norm(&a, f->dead, 0, NULL, 0, 2, NULL));
  BAD(rs_vector_norm(&a, f->d, 1, far, 0, 2, NULL));
  BAD(rs_vector_norm(&a, f->d, 0, NULL, 0, NAN, NULL));
  BAD(rs_vector_norm(&a, f->d, 0, NULL, 0, 2, f->fs));
  BAD(rs_vector_norm_into(NULL, f->d, 0, NULL, 0, 2, NULL));
  BAD(rs_vector_norm_into(f->d, f->d, 0, NULL, 0, 2, NULL)); /* 0-d result into (3, 3) */
  BAD(rs_vector_norm_into(f->fd, f->d, 0, NULL, 0, 2, NULL));
  BAD(rs_matrix_norm(NULL, f->d, RS_NORM_FRO, 0, NULL));
  BAD(rs_matrix_norm(&a, NULL, RS_NORM_FRO, 0, NULL));
  BAD(rs_matrix_norm(&a, f->row, RS_NORM_2, 0, NULL));
  BAD(rs_matrix_norm(&a, f->d, (rs_matrix_norm_ord)99, 0, NULL));
  BAD(rs_matrix_norm(&a, f->d, RS_NORM_1, 0, f->fs));
  BAD(rs_matrix_norm_into(NULL, f->d, RS_NORM_FRO, 0, NULL));
  BAD(rs_matrix_norm_into(f->d, f->d, RS_NORM_FRO, 0, NULL));
  BAD(rs_matrix_norm_into(f->fd, f->d, RS_NORM_INF, 0, NULL));
  /* lstsq */
  BAD(rs_lstsq(NULL, &b, &c, &d, f->d, f->d, -1, NULL));
  BAD(rs_lstsq(&a, &b, &c, &d, NULL, f->d, -1, NULL));
  BAD(rs_lstsq(&a, &b, &c, &d, f->d, f->dead, -1, NULL));
  BAD(rs_lstsq(&a, &b, &c, &d, f->row, f->row, -1, NULL));
  BAD(rs_lstsq(&a, &b, &c, &d, f->d, f->row, -1, NULL)); /* 3 rows and 4 */
  BAD(rs_lstsq(&a, &b, &c, &d, f->d, f->d, NAN, NULL));
  BAD(rs_lstsq(&a, &b, &c, &d, f->d, f->d, -1, f->fs));
  EXPECT(a == NULL && b == NULL && c == NULL && d == NULL);
}

/* ---- every public function and the case that calls it ---------------------------------- */
typedef void (*case_fn)(fx *f);
static const struct {
  const char *name;
  case_fn fn;
} cases[] = {
    {"rs_allocator_name", case_allocator},
    {"rs_allocator_from_name", case_allocator},
    {"rs_context_set_allocator", case_allocator},
    {"rs_context_allocator", case_allocator},
    {"rs_memory_alloc", case_allocator},
    {"rs_memory_free", case_allocator},
    {"rs_memory_get_stats", case_allocator},
    {"rs_memory_reset_stats", case_allocator},
    {"rs_memory_set_limit", case_allocator},
    {"rs_memory_set_limit_fraction", case_allocator},
    {"rs_memory_release", case_allocator},
    {"rs_memory_report", case_allocator},
    {"rs_memory_flush", case_allocator},
    {"rs_defer_cleanup_begin", case_allocator},
    {"rs_defer_cleanup_end", case_allocator},
    {"rs_memory_set_pending_limits", case_allocator},
    {"rs_mem_kind_name", case_array_create},
    {"rs_device_array", case_array_create},
    {"rs_device_array_like", case_array_create},
    {"rs_host_array", case_array_create},
    {"rs_host_array_like", case_array_create},
    {"rs_host_array_wrap", case_array_create},
    {"rs_device_array_wrap", case_array_create},
    {"rs_array_retain", case_array_refs},
    {"rs_array_release", case_array_refs},
    {"rs_array_ndim", case_array_meta},
    {"rs_array_shape", case_array_meta},
    {"rs_array_strides", case_array_meta},
    {"rs_array_dtype", case_array_meta},
    {"rs_array_kind", case_array_meta},
    {"rs_array_context", case_array_meta},
    {"rs_array_size", case_array_meta},
    {"rs_array_itemsize", case_array_meta},
    {"rs_array_nbytes", case_array_meta},
    {"rs_array_offset", case_array_meta},
    {"rs_array_is_c_contiguous", case_array_meta},
    {"rs_array_is_f_contiguous", case_array_meta},
    {"rs_array_host_data", case_array_meta},
    {"rs_array_device_data", case_array_meta},
    {"rs_array_reshape", case_views},
    {"rs_array_ravel", case_views},
    {"rs_array_transpose", case_views},
    {"rs_array_permute", case_views},
    {"rs_array_slice", case_views},
    {"rs_array_expand_dims", case_views},
    {"rs_array_squeeze", case_views},
    {"rs_array_describe", case_array_meta},
    {"rs_bench_defaults", case_bench},
    {"rs_benchmark", case_bench},
    {"rs_streamed_run", case_streamed},
    {"rs_graph_begin_capture", case_graph},
    {"rs_graph_end_capture", case_graph},
    {"rs_graph_launch", case_graph},
    {"rs_graph_get_counts", case_graph},
    {"rs_graph_destroy", case_graph},
    {"rs_bench_result_destroy", case_bench},
    {"rs_bench_summarize", case_bench},
    {"rs_bench_print", case_bench},
    {"rs_backend_name", case_context},
    {"rs_backend_from_name", case_context},
    {"rs_backend_version", case_context},
    {"rs_device_count", case_context},
    {"rs_device_get_props", case_context},
    {"rs_context_create", case_context},
    {"rs_context_destroy", case_context},
    {"rs_context_backend", case_context},
    {"rs_context_device", case_context},
    {"rs_context_get_props", case_context},
    {"rs_context_synchronize", case_context},
    {"rs_parse_bytes", case_context},
    {"rs_context_get_live_stats", case_context},
    {"rs_dtype_size", case_dtype},
    {"rs_dtype_name", case_dtype},
    {"rs_dtype_from_name", case_dtype},
    {"rs_dtype_valid", case_dtype},
    {"rs_kernel_create", case_kernel},
    {"rs_kernel_create_from_file", case_kernel},
    {"rs_kernel_destroy", case_kernel},
    {"rs_kernel_last_log", case_kernel},
    {"rs_kernel_device_header", case_kernel},
    {"rs_arg_scalar", case_kernel},
    {"rs_kernel_launch", case_kernel},
    {"rs_kernel_resolve_config", case_kernel},
    {"rs_kernel_synchronize", case_kernel},
    {"rs_kernel_set_constant", case_kernel},
    {"rs_kernel_get_constant", case_kernel},
    {"rs_kernel_get_info", case_kernel},
    {"rs_kernel_get_param", case_kernel},
    {"rs_kernel_cache_get_stats", case_kernel},
    {"rs_kernel_cache_clear", case_cache_clear},
    {"rs_direction_name", case_ledger},
    {"rs_ledger_copies", case_ledger},
    {"rs_ledger_bytes", case_ledger},
    {"rs_ledger_copy_ms", case_ledger},
    {"rs_ledger_set_timing", case_ledger},
    {"rs_ledger_get_stats", case_ledger},
    {"rs_ledger_reset", case_ledger},
    {"rs_ledger_begin", case_ledger},
    {"rs_ledger_end", case_ledger},
    {"rs_ledger_begin_named", case_ledger},
    {"rs_trace_write", case_ledger},
    {"rs_ledger_count", case_ledger},
    {"rs_ledger_entry_at", case_ledger},
    {"rs_ledger_print", case_ledger},
    {"rs_guard_mode_name", case_ledger},
    {"rs_guard_parse", case_ledger},
    {"rs_guard_set", case_ledger},
    {"rs_guard_get", case_ledger},
    {"rs_guard_push", case_ledger},
    {"rs_guard_pop", case_ledger},
    {"rs_set_log_handler", case_ledger},
    {"rs_matmul", case_linalg},
    {"rs_matmul_into", case_linalg},
    {"rs_svd", case_linalg},
    {"rs_svd_into", case_linalg},
    {"rs_solve", case_linalg},
    {"rs_solve_into", case_linalg},
    {"rs_linalg_host_library", case_linalg},
    {"rs_host_threads", case_linalg},
    {"rs_pinned_array", case_memory},
    {"rs_pinned_array_like", case_memory},
    {"rs_mapped_array", case_memory},
    {"rs_mapped_array_like", case_memory},
    {"rs_managed_array", case_memory},
    {"rs_pinned_begin", case_memory},
    {"rs_pinned_end", case_memory},
    {"rs_mapped_begin", case_memory},
    {"rs_mapped_end", case_memory},
    {"rs_empty", case_creation},
    {"rs_zeros", case_creation},
    {"rs_ones", case_creation},
    {"rs_full", case_creation},
    {"rs_arange", case_creation},
    {"rs_linspace", case_creation},
    {"rs_eye", case_creation},
    {"rs_zeros_into", case_creation},
    {"rs_empty_like", case_creation},
    {"rs_zeros_like", case_creation},
    {"rs_ones_like", case_creation},
    {"rs_full_like", case_creation},
    {"rs_ones_into", case_creation},
    {"rs_full_into", case_creation},
    {"rs_arange_into", case_creation},
    {"rs_linspace_into", case_creation},
    {"rs_eye_into", case_creation},
    {"rs_op_name", case_generic_ops},
    {"rs_op_arity", case_generic_ops},
    {"rs_binary", case_generic_ops},
    {"rs_binary_into", case_generic_ops},
    {"rs_binary_scalar", case_generic_ops},
    {"rs_binary_scalar_into", case_generic_ops},
    {"rs_scalar_binary", case_generic_ops},
    {"rs_scalar_binary_into", case_generic_ops},
    {"rs_unary", case_generic_ops},
    {"rs_unary_into", case_generic_ops},
    {"rs_add", case_elementwise},
    {"rs_add_into", case_elementwise},
    {"rs_subtract", case_elementwise},
    {"rs_subtract_into", case_elementwise},
    {"rs_multiply", case_elementwise},
    {"rs_multiply_into", case_elementwise},
    {"rs_divide", case_elementwise},
    {"rs_divide_into", case_elementwise},
    {"rs_add_scalar", case_elementwise},
    {"rs_add_scalar_into", case_elementwise},
    {"rs_multiply_scalar", case_elementwise},
    {"rs_multiply_scalar_into", case_elementwise},
    {"rs_sqrt", case_elementwise},
    {"rs_sqrt_into", case_elementwise},
    {"rs_exp", case_elementwise},
    {"rs_exp_into", case_elementwise},
    {"rs_log", case_elementwise},
    {"rs_log_into", case_elementwise},
    {"rs_where", case_generic_ops},
    {"rs_where_into", case_generic_ops},
    {"rs_astype", case_generic_ops},
    {"rs_astype_into", case_generic_ops},
    {"rs_copy", case_elementwise},
    {"rs_copy_into", case_elementwise},
    {"rs_expr_create", case_expr},
    {"rs_expr_destroy", case_expr},
    {"rs_expr_array", case_expr},
    {"rs_expr_scalar", case_expr},
    {"rs_expr_unary", case_expr},
    {"rs_expr_binary", case_expr},
    {"rs_expr_where", case_expr},
    {"rs_expr_astype", case_expr},
    {"rs_expr_rebind", case_expr},
    {"rs_expr_status", case_expr},
    {"rs_expr_eval", case_expr},
    {"rs_expr_eval_into", case_expr},
    {"rs_array_item_to_host", case_items_compare},
    {"rs_array_item_double", case_items_compare},
    {"rs_array_item_int64", case_items_compare},
    {"rs_allclose", case_items_compare},
    {"rs_allclose_report", case_items_compare},
    {"rs_assert_allclose", case_items_compare},
    {"rs_array_equal", case_items_compare},
    {"rs_random_uniform", case_random},
    {"rs_random_uniform_into", case_random},
    {"rs_random_normal", case_random},
    {"rs_random_normal_into", case_random},
    {"rs_random_integers", case_random},
    {"rs_random_integers_into", case_random},
    {"rs_reduce_op_name", case_reduce_sort},
    {"rs_reduce", case_reduce_sort},
    {"rs_reduce_into", case_reduce_sort},
    {"rs_sum", case_reduce_sort},
    {"rs_sum_into", case_reduce_sort},
    {"rs_prod", case_reduce_sort},
    {"rs_prod_into", case_reduce_sort},
    {"rs_mean", case_reduce_sort},
    {"rs_mean_into", case_reduce_sort},
    {"rs_min", case_reduce_sort},
    {"rs_min_into", case_reduce_sort},
    {"rs_max", case_reduce_sort},
    {"rs_max_into", case_reduce_sort},
    {"rs_all", case_reduce_sort},
    {"rs_all_into", case_reduce_sort},
    {"rs_any", case_reduce_sort},
    {"rs_any_into", case_reduce_sort},
    {"rs_argmin", case_reduce_sort},
    {"rs_argmin_into", case_reduce_sort},
    {"rs_argmax", case_reduce_sort},
    {"rs_argmax_into", case_reduce_sort},
    {"rs_sort", case_reduce_sort},
    {"rs_sort_into", case_reduce_sort},
    {"rs_argsort", case_reduce_sort},
    {"rs_argsort_into", case_reduce_sort},
    {"rs_status_name", case_status},
    {"rs_status_str", case_status},
    {"rs_last_error", case_status},
    {"rs_clear_error", case_status},
    {"rs_stream_create", case_stream},
    {"rs_stream_legacy", case_stream},
    {"rs_stream_per_thread", case_stream},
    {"rs_stream_wrap", case_stream},
    {"rs_stream_native", case_stream},
    {"rs_stream_destroy", case_stream},
    {"rs_stream_synchronize", case_stream},
    {"rs_stream_query", case_stream},
    {"rs_stream_add_callback", case_stream},
    {"rs_stream_wait_event", case_stream},
    {"rs_stream_auto_synchronize_begin", case_stream},
    {"rs_stream_auto_synchronize_end", case_stream},
    {"rs_event_create", case_stream},
    {"rs_event_destroy", case_stream},
    {"rs_event_record", case_stream},
    {"rs_event_synchronize", case_stream},
    {"rs_event_query", case_stream},
    {"rs_event_elapsed_ms", case_stream},
    {"rs_to_device", case_transfer},
    {"rs_array_to_dlpack", case_dlpack},
    {"rs_array_from_dlpack", case_dlpack},
    {"rs_array_from_dlpack_legacy", case_dlpack},
    {"rs_array_to_dlpack_on", case_dlpack},
    {"rs_stream_dlpack_value", case_dlpack},
    {"rs_stream_wait_dlpack", case_dlpack},
    {"rs_asarray", case_transfer},
    {"rs_ipc_export", case_ipc},
    {"rs_array_prefetch", case_prefetch},
    {"rs_array_advise", case_prefetch},
    {"rs_ipc_open", case_ipc},
    {"rs_ipc_event_export", case_ipc},
    {"rs_ipc_event_open", case_ipc},
    {"rs_to_device_into", case_transfer},
    {"rs_copy_to_host", case_transfer},
    {"rs_copy_to_host_into", case_transfer},
    {"rs_array_copy", case_transfer},
    /* manip (issue 18) */
    {"rs_array_expand_dims_axes", case_manip},
    {"rs_array_squeeze_axes", case_manip},
    {"rs_array_permute_dims", case_manip},
    {"rs_array_moveaxis", case_manip},
    {"rs_array_broadcast_to", case_manip},
    {"rs_array_broadcast_arrays", case_manip},
    {"rs_array_unstack", case_manip},
    {"rs_concat", case_manip},
    {"rs_concat_into", case_manip},
    {"rs_stack", case_manip},
    {"rs_stack_into", case_manip},
    {"rs_flip", case_manip},
    {"rs_flip_into", case_manip},
    {"rs_roll", case_manip},
    {"rs_roll_into", case_manip},
    {"rs_repeat", case_manip},
    {"rs_repeat_into", case_manip},
    {"rs_tile", case_manip},
    {"rs_tile_into", case_manip},
    {"rs_meshgrid", case_manip},
    {"rs_meshgrid_into", case_manip},
    {"rs_tril", case_manip},
    {"rs_tril_into", case_manip},
    {"rs_triu", case_manip},
    {"rs_triu_into", case_manip},
    {"rs_astype_copy", case_manip},
    /* collectives (issue 19) */
    {"rs_comm_create", case_collective},
    {"rs_comm_unique_id", case_collective},
    {"rs_comm_init_rank", case_collective},
    {"rs_comm_destroy", case_collective},
    {"rs_comm_get_info", case_collective},
    {"rs_comm_all_reduce", case_collective},
    {"rs_comm_reduce_scatter", case_collective},
    {"rs_comm_all_gather", case_collective},
    {"rs_comm_broadcast", case_collective},
    {"rs_comm_send_recv", case_collective},
    /* indexing, searching, sets */
    {"rs_take", case_indexing},
    {"rs_take_into", case_indexing},
    {"rs_take_along_axis", case_indexing},
    {"rs_take_along_axis_into", case_indexing},
    {"rs_put", case_indexing},
    {"rs_mask_get", case_indexing},
    {"rs_mask_get_into", case_indexing},
    {"rs_mask_set", case_indexing},
    {"rs_mask_set_scalar", case_indexing},
    {"rs_nonzero", case_indexing},
    {"rs_nonzero_into", case_indexing},
    {"rs_count_nonzero", case_indexing},
    {"rs_count_nonzero_into", case_indexing},
    {"rs_searchsorted", case_indexing},
    {"rs_searchsorted_into", case_indexing},
    {"rs_unique_values", case_indexing},
    {"rs_unique_values_into", case_indexing},
    {"rs_unique_counts", case_indexing},
    {"rs_unique_counts_into", case_indexing},
    {"rs_unique_inverse", case_indexing},
    {"rs_unique_inverse_into", case_indexing},
    {"rs_unique_all", case_indexing},
    {"rs_unique_all_into", case_indexing},
    /* stats */
    {"rs_var", case_stats},
    {"rs_var_into", case_stats},
    {"rs_std", case_stats},
    {"rs_std_into", case_stats},
    {"rs_cumulative_sum", case_stats},
    {"rs_cumulative_sum_into", case_stats},
    {"rs_cumulative_prod", case_stats},
    {"rs_cumulative_prod_into", case_stats},
    {"rs_clip", case_stats},
    {"rs_clip_into", case_stats},
    {"rs_clip_scalar", case_stats},
    {"rs_clip_scalar_into", case_stats},
    {"rs_diff", case_stats},
    {"rs_diff_into", case_stats},
    {"rs_sort_axis", case_stats},
    {"rs_sort_axis_into", case_stats},
    {"rs_argsort_axis", case_stats},
    {"rs_argsort_axis_into", case_stats},
    /* linalg extension */
    {"rs_cholesky", case_linalg_ext},
    {"rs_cholesky_into", case_linalg_ext},
    {"rs_qr", case_linalg_ext},
    {"rs_qr_into", case_linalg_ext},
    {"rs_eigh", case_linalg_ext},
    {"rs_eigh_into", case_linalg_ext},
    {"rs_eigvalsh", case_linalg_ext},
    {"rs_eigvalsh_into", case_linalg_ext},
    {"rs_det", case_linalg_ext},
    {"rs_det_into", case_linalg_ext},
    {"rs_slogdet", case_linalg_ext},
    {"rs_slogdet_into", case_linalg_ext},
    {"rs_inv", case_linalg_ext},
    {"rs_inv_into", case_linalg_ext},
    {"rs_diagonal", case_linalg_compose},
    {"rs_diagonal_into", case_linalg_compose},
    {"rs_trace", case_linalg_compose},
    {"rs_trace_into", case_linalg_compose},
    {"rs_outer", case_linalg_compose},
    {"rs_outer_into", case_linalg_compose},
    {"rs_vecdot", case_linalg_compose},
    {"rs_vecdot_into", case_linalg_compose},
    {"rs_tensordot", case_linalg_compose},
    {"rs_tensordot_into", case_linalg_compose},
    {"rs_matrix_power", case_linalg_compose},
    {"rs_matrix_power_into", case_linalg_compose},
    {"rs_vector_norm", case_linalg_compose},
    {"rs_vector_norm_into", case_linalg_compose},
    {"rs_matrix_norm", case_linalg_compose},
    {"rs_matrix_norm_into", case_linalg_compose},
    {"rs_svdvals", case_linalg_compose},
    {"rs_svdvals_into", case_linalg_compose},
    {"rs_matrix_rank", case_linalg_compose},
    {"rs_matrix_rank_into", case_linalg_compose},
    {"rs_pinv", case_linalg_compose},
    {"rs_pinv_into", case_linalg_compose},
    {"rs_lstsq", case_linalg_compose},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The RS_API declarations of the public headers (the same rule as check_exports.py). */
static int declared_names(char names[][64], int cap) {
  DIR *d = opendir(RS_T_INCLUDE_DIR);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", RS_T_INCLUDE_DIR, e->d_name);
    FILE *fp = fopen(path, "rb");
    if (!fp) continue;
    static char text[1 << 18];
    size_t tl = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[tl] = '\0';
    for (char *p = strstr(text, "RS_API"); p; p = strstr(p + 6, "RS_API")) {
      if (p != text && p[-1] != '\n') continue; /* at a line's start */
      /* the first rs_ identifier followed by '(' before the declaration ends */
      for (char *q = p + 6; *q && *q != ';' && *q != '{'; q++) {
        if (strncmp(q, "rs_", 3) != 0 || (q > text && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))) continue;
        char *end = q;
        while (isalnum((unsigned char)*end) || *end == '_') end++;
        char *paren = end;
        while (*paren == ' ' || *paren == '\t' || *paren == '\n') paren++;
        if (*paren != '(') {
          q = end - 1;
          continue;
        }
        if (n < cap) snprintf(names[n++], 64, "%.*s", (int)(end - q), q);
        break;
      }
    }
  }
  closedir(d);
  return n;
}

static void test_every_function_has_a_case(rs_context *ctx) {
  (void)ctx;
  static char names[512][64];
  int n = declared_names(names, 512);
  CHECK_MSG(n > 200, "read %d declarations from %s", n, RS_T_INCLUDE_DIR);
  int missing = 0;
  for (int i = 0; i < n; i++) {
    size_t j = 0;
    while (j < NCASES && strcmp(cases[j].name, names[i]) != 0) j++;
    if (j == NCASES) {
      rs_t_fail_(__FILE__, __LINE__, "%s is public but has no case in test_bad_input_all.c", names[i]);
      missing++;
    }
  }
  for (size_t j = 0; j < NCASES; j++) {
    int found = 0;
    for (int i = 0; i < n && !found; i++) found = strcmp(cases[j].name, names[i]) == 0;
    if (!found) rs_t_fail_(__FILE__, __LINE__, "the case of %s names no public function", cases[j].name);
  }
  printf("    %d public functions, %zu cases\n", n, NCASES);
}

/* Each case function once (several functions share one). */
static void test_bad_arguments(rs_context *ctx) {
  fx f;
  if (!fx_setup(&f, ctx)) {
    fx_teardown(&f);
    FAIL("the fixture could not be made");
  }
  for (size_t j = 0; j < NCASES; j++) {
    size_t first = 0;
    while (cases[first].fn != cases[j].fn) first++;
    if (first == j) cases[j].fn(&f);
  }
  fx_teardown(&f);
}

static const rs_test_case tests[] = {
    RS_TEST(test_every_function_has_a_case),
    RS_TEST(test_bad_arguments),
};
RS_TEST_MAIN(tests)
