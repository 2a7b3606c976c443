/* NVTX ranges of the ledger (CUDA backend, resident/trace.h): a profiler sees every ledger
 * entry and scope as a range in the domain "resident".
 *
 * This program is its own profiler: it defines NVTX's static injection hook
 * (InitializeInjectionNvtx2_fnptr, the documented alternative to NVTX_INJECTION64_PATH), so
 * the CUDA backend's NVTX calls reach the counters below.
 * - test_nvtx_messages calls the backend's hooks directly (no GPU needed): the domain is
 *   "resident", a push names the copy ("H2D implicit: axpb argument 2"), the wait and the
 *   kernel, each kind has its own colour and category, pops and ends balance.
 * - test_nvtx_ledger runs implicit launches, explicit copies and waits in two named scopes:
 *   on CUDA, as many pushes and pops as the ledger recorded entries and as many
 *   start/end ranges as scopes, with the copies' and scopes' names among the messages; on
 *   the simulator, none at all (it has no profiler hooks).
 * Built only with the CUDA backend and NVTX (RESIDENT_NVTX); elsewhere it is skipped. */
#include "harness.h"
#ifndef RS_T_NVTX
int main(void) {
  printf("skipped: built without the CUDA backend's NVTX\n");
  return 77;
}
#else
#include <stdatomic.h>
#define NVTX_NO_IMPL /* a tool's view: the types only */
#include <nvtx3/nvToolsExt.h>
#include "backend/backend.h"
#include "known_kernels.h"
#include "resident/ledger.h"

/* the CUDA backend's hooks (src/backend/cuda/cuda_nvtx.c) */
void rs_cuda_range_push(rs_range_kind kind, int implicit, const char *what, int arg);
void rs_cuda_range_pop(void);
uint64_t rs_cuda_range_start(rs_range_kind kind, const char *what);
void rs_cuda_range_end(uint64_t id);

/* ---- the profiler ------------------------------------------------------------------ */
static struct {
  atomic_int pushes, pops, starts, ends, domains;
  pthread_mutex_t lock;
  char domain[32];
  char last[64][160]; /* the newest messages */
  uint32_t colour[64];
  uint32_t category[64];
  int n;
} prof = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int dummy_domain;

static void note(const nvtxEventAttributes_t *a) {
  pthread_mutex_lock(&prof.lock);
  int i = prof.n++ % 64;
  snprintf(prof.last[i], sizeof prof.last[i], "%s", a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "?");
  prof.colour[i] = a ? a->color : 0;
  prof.category[i] = a ? a->category : 0;
  pthread_mutex_unlock(&prof.lock);
}

static nvtxDomainHandle_t NVTX_API t_create(const char *name) {
  snprintf(prof.domain, sizeof prof.domain, "%s", name);
  atomic_fetch_add(&prof.domains, 1);
  return (nvtxDomainHandle_t)&dummy_domain;
}
static int NVTX_API t_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  (void)d;
  note(a);
  return atomic_fetch_add(&prof.pushes, 1);
}
static int NVTX_API t_pop(nvtxDomainHandle_t d) {
  (void)d;
  return atomic_fetch_add(&prof.pops, 1);
}
static nvtxRangeId_t NVTX_API t_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  (void)d;
  note(a);
  return (nvtxRangeId_t)atomic_fetch_add(&prof.starts, 1) + 1;
}
static void NVTX_API t_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  (void)d;
  (void)id;
  atomic_fetch_add(&prof.ends, 1);
}

static int NVTX_API t_inject(NvtxGetExportTableFunc_t get) {
  const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned size = 0;
  if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || !table) return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)t_create;
  *table[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)t_push;
  *table[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)t_pop;
  *table[NVTX_CBID_CORE2_DomainRangeStartEx] = (NvtxFunctionPointer)t_start;
  *table[NVTX_CBID_CORE2_DomainRangeEnd] = (NvtxFunctionPointer)t_end;
  return 1;
}

/* NVTX's static injection: a strong definition replaces the library's weak one */
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = t_inject;

static int seen(const char *needle) {
  pthread_mutex_lock(&prof.lock);
  int found = 0;
  for (int i = 0; i < 64 && !found; i++) found = strstr(prof.last[i], needle) != NULL;
  pthread_mutex_unlock(&prof.lock);
  return found;
}

static void zero(void) {
  atomic_store(&prof.pushes, 0);
  atomic_store(&prof.pops, 0);
  atomic_store(&prof.starts, 0);
  atomic_store(&prof.ends, 0);
  pthread_mutex_lock(&prof.lock);
  memset(prof.last, 0, sizeof prof.last);
  prof.n = 0;
  pthread_mutex_unlock(&prof.lock);
}

static void test_nvtx_messages(rs_context *ctx) {
  (void)ctx;
  zero();
  rs_cuda_range_push(RS_RANGE_H2D, 1, "axpb", 2);
  rs_cuda_range_pop();
  rs_cuda_range_push(RS_RANGE_D2H, 0, "rs_copy_to_host", -1);
  rs_cuda_range_pop();
  rs_cuda_range_push(RS_RANGE_WAIT, 0, "rs_stream_synchronize", -1);
  rs_cuda_range_pop();
  rs_cuda_range_push(RS_RANGE_KERNEL, 0, "sum", -1);
  rs_cuda_range_pop();
  uint64_t id = rs_cuda_range_start(RS_RANGE_SCOPE, "my scope");
  rs_cuda_range_end(id);
  CHECK_EQ_I64(atomic_load(&prof.domains), 1);
  CHECK_STREQ(prof.domain, "resident");
  CHECK_EQ_I64(atomic_load(&prof.pushes), 4);
  CHECK_EQ_I64(atomic_load(&prof.pops), 4);
  CHECK_EQ_I64(atomic_load(&prof.starts), 1);
  CHECK_EQ_I64(atomic_load(&prof.ends), 1);
  CHECK(id != 0);
  CHECK_STREQ(prof.last[0], "H2D implicit: axpb argument 2");
  CHECK_STREQ(prof.last[1], "D2H explicit: rs_copy_to_host");
  CHECK_STREQ(prof.last[2], "wait: rs_stream_synchronize");
  CHECK_STREQ(prof.last[3], "sum");
  CHECK_STREQ(prof.last[4], "my scope");
  /* a colour and a category per kind; implicit and explicit copies apart */
  for (int i = 0; i < 5; i++)
    for (int k = i + 1; k < 5; k++) {
      CHECK_MSG(prof.colour[i] != prof.colour[k], "ranges %d and %d share the colour %08x", i, k, prof.colour[i]);
      CHECK_MSG(prof.category[i] != prof.category[k], "ranges %d and %d share the category %u", i, k, prof.category[i]);
    }
}

static void test_nvtx_ledger(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_ledger_reset(ctx));
  int64_t n = 4096;
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  memset(rs_array_host_data(h), 0, 4096 * sizeof(float));
  zero();
  CHECK_OK(rs_ledger_begin_named(ctx, "implicit style"));
  for (int k = 0; k < 3; k++) CHECK_OK(rs_t_axpb(h, 1.0, 1.0, NULL));
  CHECK_OK(rs_ledger_end(ctx, NULL));
  CHECK_OK(rs_ledger_begin_named(ctx, "explicit style"));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_t_axpb(d, 1.0, 1.0, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_ledger_end(ctx, NULL));
  rs_array_release(d);
  rs_array_release(h);
  int64_t entries = 0;
  CHECK_OK(rs_ledger_count(ctx, &entries, NULL));
  int pushes = atomic_load(&prof.pushes), pops = atomic_load(&prof.pops);
  int starts = atomic_load(&prof.starts), ends = atomic_load(&prof.ends);
  printf("    %lld ledger entries: %d pushes, %d pops, %d scope ranges\n", (long long)entries, pushes, pops, starts);
  if (rs_context_backend(ctx) != RS_BACKEND_CUDA) {
    CHECK_MSG(pushes == 0 && starts == 0, "the simulator opened %d ranges and %d scopes", pushes, starts);
    return;
  }
  CHECK_EQ_I64(pushes, entries);
  CHECK_EQ_I64(pops, entries);
  CHECK_EQ_I64(starts, 2);
  CHECK_EQ_I64(ends, 2);
  CHECK_MSG(seen("D2H explicit: rs_copy_to_host_into"), "no range for the explicit D2H copy");
  CHECK_MSG(seen("explicit style"), "no range for the scope");
  CHECK_MSG(seen("axpb"), "no range for the kernel");
}

static const rs_test_case tests[] = {RS_TEST(test_nvtx_messages), RS_TEST(test_nvtx_ledger)};
RS_TEST_MAIN(tests)
#endif
