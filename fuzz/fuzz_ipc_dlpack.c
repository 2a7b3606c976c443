/* Foreign bytes that claim to describe memory: an IPC handle (rs_ipc_open,
 * rs_ipc_event_open) and a DLPack tensor (both import forms). A handle that is not one
 * this library sealed is refused with a message; a tensor is imported or refused, and its
 * deleter runs exactly once either way (after the release of the array when it was
 * imported). Nothing is read through the fuzzed data pointer: only import and release.
 * Input: first byte even -> handle bytes; odd -> the tensor's fields. */
#include <stdatomic.h>
#include "fuzz_util.h"

static rs_context *ctx;
static _Atomic int deletes;
static double storage[64];

static void deleter(rs_dl_managed_tensor_versioned *t) {
  (void)t;
  atomic_fetch_add(&deletes, 1);
}
static void legacy_deleter(rs_dl_managed_tensor *t) {
  (void)t;
  atomic_fetch_add(&deletes, 1);
}

static void fuzz_handle(const uint8_t *data, size_t size) {
  rs_ipc_handle h;
  memset(&h, 0, sizeof h);
  memcpy(h.bytes, data, size < sizeof h.bytes ? size : sizeof h.bytes);
  rs_array *a = NULL;
  rs_event *e = NULL;
  rs_clear_error();
  rs_status st = rs_ipc_open(&a, ctx, &h);
  FZ_FAILED_WITH_MESSAGE(st, "rs_ipc_open of fuzzed bytes");
  FZ_ASSERT(a == NULL, "a refused handle gave an array");
  st = rs_ipc_event_open(&e, ctx, &h);
  FZ_FAILED_WITH_MESSAGE(st, "rs_ipc_event_open of fuzzed bytes");
  FZ_ASSERT(e == NULL, "a refused handle gave an event");
}

static void fuzz_tensor(const uint8_t *data, size_t size) {
  rs_fz_reader r = {data, size};
  int64_t shape[8], strides[8];
  rs_dl_managed_tensor_versioned t;
  memset(&t, 0, sizeof t);
  t.version.major = rs_fz_below(&r, 3);
  t.version.minor = rs_fz_u8(&r);
  t.flags = rs_fz_below(&r, 4);
  t.deleter = deleter;
  rs_dl_tensor *dl = &t.dl_tensor;
  static const int32_t types[] = {RS_DL_CPU, RS_DL_CPU, RS_DL_CUDA, RS_DL_CUDA_HOST, RS_DL_CUDA_MANAGED, 0, 4, 99};
  dl->device.device_type = types[rs_fz_below(&r, 8)];
  dl->device.device_id = (int32_t)rs_fz_below(&r, 3) - 1;
  dl->ndim = (int32_t)rs_fz_below(&r, 10) - 1;
  dl->dtype.code = (uint8_t)rs_fz_below(&r, 8);
  dl->dtype.bits = (uint8_t)(8u << rs_fz_below(&r, 6));
  dl->dtype.lanes = (uint16_t)(rs_fz_below(&r, 8) ? 1 : rs_fz_u8(&r));
  for (int d = 0; d < 8; d++) {
    shape[d] = (int64_t)(int8_t)rs_fz_u8(&r);
    int64_t s = (int64_t)(int8_t)rs_fz_u8(&r);
    /* huge strides, of either sign: shifted as unsigned (a negative value's shift is
     * undefined), the bits then read back as the signed stride */
    strides[d] = rs_fz_below(&r, 16) ? s : (int64_t)((uint64_t)s << (rs_fz_u8(&r) % 63));
  }
  dl->shape = rs_fz_below(&r, 16) ? shape : NULL;
  dl->strides = rs_fz_below(&r, 2) ? strides : NULL;
  dl->data = rs_fz_below(&r, 8) ? (void *)storage : NULL;
  dl->byte_offset = rs_fz_below(&r, 8) ? rs_fz_u8(&r) : (uint64_t)rs_fz_u8(&r) << 56;
  int legacy = rs_fz_below(&r, 2);
  rs_dl_managed_tensor lt = {*dl, NULL, legacy_deleter};
  atomic_store(&deletes, 0);
  rs_array *a = NULL;
  rs_clear_error();
  rs_status st = legacy ? rs_array_from_dlpack_legacy(&a, ctx, &lt) : rs_array_from_dlpack(&a, ctx, &t);
  if (st != RS_OK) {
    FZ_FAILED_WITH_MESSAGE(st, legacy ? "legacy import" : "import");
    FZ_ASSERT(a == NULL, "a refused tensor gave an array");
    FZ_ASSERT(atomic_load(&deletes) == 1, "refused: deleter called %d times", atomic_load(&deletes));
    return;
  }
  FZ_ASSERT(atomic_load(&deletes) == 0, "imported: deleter called before the release");
  FZ_ASSERT(rs_array_release(a) == RS_OK, "release: %s", rs_last_error());
  FZ_ASSERT(atomic_load(&deletes) == 1, "released: deleter called %d times", atomic_load(&deletes));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) abort();
  if (size == 0) return 0;
  if (data[0] % 2 == 0)
    fuzz_handle(data + 1, size - 1);
  else
    fuzz_tensor(data + 1, size - 1);
  return 0;
}
