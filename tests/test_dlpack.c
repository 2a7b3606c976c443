/* Issue 13 item 1 (host and simulator side): DLPack export and import without a copy.
 * The structs match the specification's ABI; a round trip is the same memory; the
 * producer's deleter runs exactly once, after the work queued on the memory; bad tensors
 * are refused with the deleter still called once. */
#include <stddef.h>
#include <stdatomic.h>
#include "harness.h"
#include "resident/dlpack.h"
#include "resident/ops.h"

static const rs_mem_kind kinds[] = {RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED, RS_MEM_MAPPED, RS_MEM_MANAGED};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

/* The specification's layout on a 64-bit target. */
static void test_abi_matches_the_specification(rs_context *ctx) {
  (void)ctx;
  CHECK_EQ_I64(sizeof(rs_dl_version), 8);
  CHECK_EQ_I64(sizeof(rs_dl_device), 8);
  CHECK_EQ_I64(sizeof(rs_dl_data_type), 4);
  CHECK_EQ_I64(offsetof(rs_dl_data_type, bits), 1);
  CHECK_EQ_I64(offsetof(rs_dl_data_type, lanes), 2);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, data), 0);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, device), 8);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, ndim), 16);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, dtype), 20);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, shape), 24);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, strides), 32);
  CHECK_EQ_I64(offsetof(rs_dl_tensor, byte_offset), 40);
  CHECK_EQ_I64(sizeof(rs_dl_tensor), 48);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor_versioned, version), 0);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor_versioned, manager_ctx), 8);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor_versioned, deleter), 16);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor_versioned, flags), 24);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor_versioned, dl_tensor), 32);
  CHECK_EQ_I64(sizeof(rs_dl_managed_tensor_versioned), 80);
  /* the legacy DLManagedTensor: the tensor first, no version, no flags */
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor, dl_tensor), 0);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor, manager_ctx), 48);
  CHECK_EQ_I64(offsetof(rs_dl_managed_tensor, deleter), 56);
  CHECK_EQ_I64(sizeof(rs_dl_managed_tensor), 64);
  CHECK_EQ_I64(RS_DL_CPU, 1);
  CHECK_EQ_I64(RS_DL_CUDA, 2);
  CHECK_EQ_I64(RS_DL_CUDA_HOST, 3);
  CHECK_EQ_I64(RS_DL_CUDA_MANAGED, 13);
  CHECK_EQ_I64(RS_DL_BOOL, 6);
  CHECK_EQ_I64(RS_DL_COMPLEX, 5);
}

/* A deleter that counts, then calls the one it replaced. */
static _Atomic int deletes;
static void (*inner_deleter)(rs_dl_managed_tensor_versioned *);
static void counting_deleter(rs_dl_managed_tensor_versioned *self) {
  atomic_fetch_add(&deletes, 1);
  if (inner_deleter) inner_deleter(self);
}
static void counting_legacy_deleter(rs_dl_managed_tensor *self) {
  (void)self;
  atomic_fetch_add(&deletes, 1);
}
static void count_deletes(rs_dl_managed_tensor_versioned *t) {
  atomic_store(&deletes, 0);
  inner_deleter = t->deleter;
  t->deleter = counting_deleter;
}

static const void *base_of(const rs_array *a) {
  return rs_array_kind(a) == RS_MEM_DEVICE ? rs_array_device_data(a) : rs_array_host_data(a);
}

static void test_round_trip_is_the_same_memory(rs_context *ctx) {
  const int64_t shape[2] = {3, 4};
  const int32_t want_type[] = {RS_DL_CUDA, RS_DL_CPU, RS_DL_CUDA_HOST, RS_DL_CUDA_HOST, RS_DL_CUDA_MANAGED};
  for (int k = 0; k < NKINDS; k++) {
    rs_array *a = NULL, *a2 = NULL, *f = NULL, *back = NULL;
    rs_dl_managed_tensor_versioned *t = NULL;
    CHECK_OK(rs_arange(&a, ctx, kinds[k], 0, 12, 1, RS_FLOAT64, NULL));
    CHECK_OK(rs_array_reshape(&a2, a, 2, shape));
    CHECK_OK(rs_array_transpose(&f, a2)); /* 4x3, strides (1, 4) elements */
    CHECK_OK(rs_array_release(a));
    CHECK_OK(rs_array_release(a2));
    CHECK_OK(rs_context_synchronize(ctx));
    CHECK_OK(rs_ledger_reset(ctx));
    CHECK_OK(rs_array_to_dlpack(&t, f));
    CHECK_EQ_I64(t->version.major, 1);
    CHECK_EQ_I64(t->flags, 0);
    CHECK_EQ_I64(t->dl_tensor.device.device_type, want_type[k]);
    CHECK_EQ_I64(t->dl_tensor.ndim, 2);
    CHECK_EQ_I64(t->dl_tensor.dtype.code, RS_DL_FLOAT);
    CHECK_EQ_I64(t->dl_tensor.dtype.bits, 64);
    CHECK_EQ_I64(t->dl_tensor.dtype.lanes, 1);
    CHECK_EQ_I64(t->dl_tensor.shape[0], 4);
    CHECK_EQ_I64(t->dl_tensor.shape[1], 3);
    CHECK_EQ_I64(t->dl_tensor.strides[0], 1);
    CHECK_EQ_I64(t->dl_tensor.strides[1], 4);
    CHECK((const char *)t->dl_tensor.data + t->dl_tensor.byte_offset == base_of(f));
    count_deletes(t);
    CHECK_OK(rs_array_from_dlpack(&back, ctx, t));
    CHECK_EQ_I64(rs_array_kind(back), kinds[k] == RS_MEM_MAPPED ? RS_MEM_PINNED : kinds[k]);
    CHECK(base_of(back) == base_of(f));
    CHECK(rs_array_is_f_contiguous(back));
    rs_ledger_stats st;
    CHECK_OK(rs_ledger_get_stats(ctx, &st));
    CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0); /* neither way copied */
    int same = 0;
    CHECK_OK(rs_array_equal(back, f, &same, NULL));
    CHECK(same);
    /* The export keeps the memory: the original handle may go first. */
    CHECK_OK(rs_array_release(f));
    CHECK_EQ_I64(atomic_load(&deletes), 0);
    CHECK_OK(rs_array_release(back));
    CHECK_EQ_I64(atomic_load(&deletes), 1);
  }
}

/* A strided view: strides in elements, element 0 at data + byte_offset, the same values. */
static void test_strided_view_round_trip(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL, *back = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_HOST, 0, 10, 1, RS_INT32, NULL));
  rs_slice odd = {1, RS_SLICE_DEFAULT, 2};
  CHECK_OK(rs_array_slice(&v, a, 1, &odd)); /* 1 3 5 7 9 */
  CHECK_OK(rs_array_to_dlpack(&t, v));
  CHECK_EQ_I64(t->dl_tensor.shape[0], 5);
  CHECK_EQ_I64(t->dl_tensor.strides[0], 2);
  CHECK_EQ_I64(t->dl_tensor.byte_offset, 4);
  CHECK(t->dl_tensor.data == rs_array_host_data(a));
  CHECK_OK(rs_array_from_dlpack(&back, ctx, t));
  const int32_t *h = rs_array_host_data(back);
  CHECK(h == (const int32_t *)rs_array_host_data(a) + 1);
  const int64_t *st = rs_array_strides(back);
  CHECK_EQ_I64(st[0], 8);
  for (int i = 0; i < 5; i++) CHECK_EQ_I64(h[2 * i], 2 * i + 1);
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_array_release(back)); /* the last one: the export's view goes with it */
}

/* The consumer calls the deleter of an export it does not import. */
static void test_export_deleter_alone(rs_context *ctx) {
  const int64_t n[1] = {10};
  rs_array *a = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n, RS_INT8, NULL));
  CHECK_OK(rs_array_to_dlpack(&t, a));
  CHECK_EQ_I64(t->dl_tensor.dtype.code, RS_DL_INT);
  CHECK_EQ_I64(t->dl_tensor.dtype.bits, 8);
  CHECK_OK(rs_array_release(a));
  t->deleter(t); /* the last reference: the memory goes now */
}

/* An imported producer's memory goes back only after the work queued on it. */
static void test_import_deleter_after_queued_work(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  const int64_t n[1] = {4096};
  rs_array *a = NULL, *b = NULL;
  rs_stream *s = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n, RS_FLOAT32, NULL));
  CHECK_OK(rs_array_to_dlpack(&t, a));
  CHECK_OK(rs_array_release(a));
  count_deletes(t);
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_array_from_dlpack(&b, ctx, t));
  CHECK_OK(rs_t_sleep(ctx, 300, s));
  CHECK_OK(rs_t_axpb(b, 1.0, 2.0, s));
  CHECK_OK(rs_array_release(b));
  CHECK_MSG(atomic_load(&deletes) == 0, "the deleter ran while a kernel still used the memory");
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_EQ_I64(atomic_load(&deletes), 1);
  CHECK_OK(rs_stream_destroy(s));
}

/* Bad tensors: a status, a message, no array, the deleter called exactly once. */
static int64_t bad_shape[2] = {2, 3};
static float bad_data[6];
static rs_dl_managed_tensor_versioned good_tensor(void) {
  rs_dl_managed_tensor_versioned t;
  memset(&t, 0, sizeof t);
  t.version = (rs_dl_version){1, 0};
  t.deleter = counting_deleter;
  t.dl_tensor.data = bad_data;
  t.dl_tensor.device = (rs_dl_device){RS_DL_CPU, 0};
  t.dl_tensor.ndim = 2;
  t.dl_tensor.dtype = (rs_dl_data_type){RS_DL_FLOAT, 32, 1};
  t.dl_tensor.shape = bad_shape;
  return t;
}

/* Each mutation is refused by both imports: the versioned one, and the legacy one (for
 * what a legacy tensor can express: no version, no flags). */
#define REFUSED_BY(mutate, legacy_too)                                         \
  do {                                                                         \
    for (int lg_ = 0; lg_ <= (legacy_too); lg_++) {                            \
      rs_dl_managed_tensor_versioned t_ = good_tensor();                       \
      int64_t shape_[2] = {2, 3}, strides_[2] = {3, 1};                        \
      (void)strides_;                                                          \
      t_.dl_tensor.shape = shape_;                                             \
      mutate;                                                                  \
      atomic_store(&deletes, 0);                                               \
      inner_deleter = NULL;                                                    \
      rs_array *o_ = (rs_array *)&t_;                                          \
      rs_clear_error();                                                        \
      rs_dl_managed_tensor l_ = {t_.dl_tensor, NULL, counting_legacy_deleter}; \
      rs_status st_ = lg_ ? rs_array_from_dlpack_legacy(&o_, ctx, &l_)         \
                          : rs_array_from_dlpack(&o_, ctx, &t_);               \
      CHECK_MSG(st_ != RS_OK, "%s (legacy %d): accepted", #mutate, lg_);       \
      CHECK_MSG(o_ == NULL, "%s: an array came back", #mutate);                \
      CHECK_MSG(rs_last_error()[0] != '\0', "%s: no message", #mutate);        \
      CHECK_MSG(atomic_load(&deletes) == 1, "%s (legacy %d): deleter called %d times", #mutate, lg_, \
                atomic_load(&deletes));                                        \
    }                                                                          \
  } while (0)
#define REFUSED(mutate) REFUSED_BY(mutate, 1)

static void test_import_refuses_bad_tensors(rs_context *ctx) {
  /* the good one is taken, to show the mutations are what is refused */
  rs_dl_managed_tensor_versioned g = good_tensor();
  rs_array *ok = NULL;
  atomic_store(&deletes, 0);
  inner_deleter = NULL;
  CHECK_OK(rs_array_from_dlpack(&ok, ctx, &g));
  CHECK(rs_array_host_data(ok) == (void *)bad_data);
  CHECK_OK(rs_array_release(ok));
  CHECK_EQ_I64(atomic_load(&deletes), 1);

  /* explicit C-order strides are taken */
  g = good_tensor();
  int64_t c_strides[2] = {3, 1};
  g.dl_tensor.strides = c_strides;
  atomic_store(&deletes, 0);
  CHECK_OK(rs_array_from_dlpack(&ok, ctx, &g));
  CHECK(rs_array_is_c_contiguous(ok));
  CHECK_OK(rs_array_release(ok));
  CHECK_EQ_I64(atomic_load(&deletes), 1);

  REFUSED(t_.dl_tensor.device.device_type = 4);         /* OpenCL */
  REFUSED(t_.dl_tensor.device.device_type = 0);
  REFUSED(t_.dl_tensor.device = ((rs_dl_device){RS_DL_CUDA, rs_context_device(ctx) + 1}));
  REFUSED(t_.dl_tensor.dtype.lanes = 4);
  REFUSED(t_.dl_tensor.dtype.bits = 24);
  REFUSED(t_.dl_tensor.dtype.code = RS_DL_BFLOAT; t_.dl_tensor.dtype.bits = 16);
  REFUSED(t_.dl_tensor.dtype.code = RS_DL_OPAQUE_HANDLE);
  REFUSED(t_.dl_tensor.data = NULL);
  REFUSED(shape_[1] = -3);
  REFUSED(t_.dl_tensor.shape = NULL);
  REFUSED(t_.dl_tensor.ndim = -1);
  REFUSED(t_.dl_tensor.ndim = RS_MAX_DIMS + 1);
  REFUSED(strides_[0] = INT64_MAX / 2; t_.dl_tensor.strides = strides_);
  REFUSED(strides_[0] = -3; t_.dl_tensor.strides = strides_);
  REFUSED(strides_[0] = 0; strides_[1] = 0; t_.dl_tensor.strides = strides_);
  REFUSED_BY(t_.version.major = 2, 0);
  REFUSED_BY(t_.version.major = 0, 0);
  REFUSED_BY(t_.flags = RS_DL_FLAG_READ_ONLY, 0);
  REFUSED(t_.dl_tensor.byte_offset = UINT64_MAX);
  /* NULL arguments: the tensor is still given back */
  rs_dl_managed_tensor_versioned t = good_tensor();
  atomic_store(&deletes, 0);
  CHECK_FAILS(rs_array_from_dlpack(NULL, ctx, &t));
  CHECK_EQ_I64(atomic_load(&deletes), 1);
  rs_array *o = NULL;
  CHECK_FAILS(rs_array_from_dlpack(&o, NULL, &t));
  CHECK_EQ_I64(atomic_load(&deletes), 2);
  CHECK(o == NULL);
  CHECK_FAILS(rs_array_from_dlpack(&o, ctx, NULL));
  rs_dl_managed_tensor l = {good_tensor().dl_tensor, NULL, counting_legacy_deleter};
  atomic_store(&deletes, 0);
  CHECK_FAILS(rs_array_from_dlpack_legacy(NULL, ctx, &l));
  CHECK_FAILS(rs_array_from_dlpack_legacy(&o, NULL, &l));
  CHECK_EQ_I64(atomic_load(&deletes), 2);
  CHECK_FAILS(rs_array_from_dlpack_legacy(&o, ctx, NULL));
  CHECK(o == NULL);
}

/* A legacy tensor (what torch.utils.dlpack.to_dlpack hands out) over an export of ours:
 * the same memory, no copy, the legacy deleter called once after the last view. */
static void legacy_over_versioned_deleter(rs_dl_managed_tensor *self) {
  atomic_fetch_add(&deletes, 1);
  rs_dl_managed_tensor_versioned *v = self->manager_ctx;
  v->deleter(v);
  free(self);
}

static void test_legacy_import_round_trip(rs_context *ctx) {
  for (int k = 0; k < NKINDS; k++) {
    rs_array *a = NULL, *back = NULL;
    rs_dl_managed_tensor_versioned *t = NULL;
    CHECK_OK(rs_arange(&a, ctx, kinds[k], 0, 12, 1, RS_INT64, NULL));
    CHECK_OK(rs_context_synchronize(ctx));
    CHECK_OK(rs_ledger_reset(ctx));
    CHECK_OK(rs_array_to_dlpack(&t, a));
    rs_dl_managed_tensor *l = malloc(sizeof *l);
    CHECK(l != NULL);
    l->dl_tensor = t->dl_tensor;
    l->manager_ctx = t;
    l->deleter = legacy_over_versioned_deleter;
    atomic_store(&deletes, 0);
    CHECK_OK(rs_array_from_dlpack_legacy(&back, ctx, l));
    CHECK(base_of(back) == base_of(a));
    CHECK_EQ_I64(rs_array_dtype(back), RS_INT64);
    rs_ledger_stats st;
    CHECK_OK(rs_ledger_get_stats(ctx, &st));
    CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0);
    int same = 0;
    CHECK_OK(rs_array_equal(back, a, &same, NULL));
    CHECK(same);
    CHECK_OK(rs_array_release(a));
    CHECK_EQ_I64(atomic_load(&deletes), 0);
    CHECK_OK(rs_array_release(back));
    CHECK_EQ_I64(atomic_load(&deletes), 1);
  }
}

static const rs_test_case tests[] = {
    RS_TEST(test_abi_matches_the_specification),
    RS_TEST(test_round_trip_is_the_same_memory),
    RS_TEST(test_strided_view_round_trip),
    RS_TEST(test_export_deleter_alone),
    RS_TEST(test_import_deleter_after_queued_work),
    RS_TEST(test_import_refuses_bad_tensors),
    RS_TEST(test_legacy_import_round_trip),
};
RS_TEST_MAIN(tests)
