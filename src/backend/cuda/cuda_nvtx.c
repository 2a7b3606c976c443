/* NVTX ranges for the ledger's entries and scopes (backend.h, range_*), in the domain
 * "resident", so Nsight Systems shows resident's own names beside the CUDA calls. The
 * header-only NVTX 3 of the CUDA toolkit: without a profiler attached, creating the domain
 * returns NULL once and every call after that is one load and one branch here, before any
 * formatting. */
#include "backend/cuda/cuda_internal.h"
#ifdef RS_HAVE_NVTX
#include <pthread.h>
#include <stdio.h>
#include <nvtx3/nvToolsExt.h>

#define RS_NVTX_KINDS 11

static nvtxDomainHandle_t rs_nvtx_domain;
static pthread_once_t rs_nvtx_once = PTHREAD_ONCE_INIT;

/* ARGB per rs_range_kind: copies warm (implicit brighter), kernels violet, waits yellow. */
static const uint32_t rs_nvtx_colour[RS_NVTX_KINDS][2] = {
    {0xff2e8b57, 0xffe53935}, /* H2D: explicit green, implicit red */
    {0xff00897b, 0xfffb8c00}, /* D2H: explicit teal, implicit orange */
    {0xff1e88e5, 0xff8e24aa}, /* D2D */
    {0xff757575, 0xffbdbdbd}, /* H2H */
    {0xff3949ab, 0xff3949ab}, /* P2P */
    {0xff5e35b1, 0xff5e35b1}, /* kernel */
    {0xfffdd835, 0xfffdd835}, /* wait */
    {0xff90a4ae, 0xff90a4ae}, /* scope */
    {0xff6d4c41, 0xff6d4c41}, /* prefetch */
    {0xffd81b60, 0xffd81b60}, /* graph replay */
    {0xff00acc1, 0xff00acc1}, /* collective */
};
static const char *const rs_nvtx_category[RS_NVTX_KINDS] = {
    "copy H2D", "copy D2H", "copy D2D", "copy H2H", "copy P2P", "kernel", "wait", "scope", "prefetch", "graph",
    "collective"};

static void rs_nvtx_init(void) {
  rs_nvtx_domain = nvtxDomainCreateA("resident");
  if (!rs_nvtx_domain) return; /* no profiler: every range below returns at once */
  for (uint32_t k = 0; k < RS_NVTX_KINDS; k++) nvtxDomainNameCategoryA(rs_nvtx_domain, k + 1, rs_nvtx_category[k]);
}

static nvtxDomainHandle_t rs_nvtx(void) {
  pthread_once(&rs_nvtx_once, rs_nvtx_init);
  return rs_nvtx_domain;
}

static void rs_nvtx_attributes(nvtxEventAttributes_t *a, rs_range_kind kind, int implicit, const char *message) {
  unsigned k = (unsigned)kind < RS_NVTX_KINDS ? (unsigned)kind : RS_RANGE_KERNEL;
  *a = (nvtxEventAttributes_t){0};
  a->version = NVTX_VERSION;
  a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a->category = k + 1;
  a->colorType = NVTX_COLOR_ARGB;
  a->color = rs_nvtx_colour[k][implicit ? 1 : 0];
  a->messageType = NVTX_MESSAGE_TYPE_ASCII;
  a->message.ascii = message;
}

static void rs_nvtx_message(char *buf, size_t len, rs_range_kind kind, int implicit, const char *what, int arg) {
  static const char *const dirs[5] = {"H2D", "D2H", "D2D", "H2H", "P2P"};
  if (!what) what = "";
  if ((unsigned)kind <= RS_RANGE_P2P && arg >= 0)
    snprintf(buf, len, "%s %s: %s argument %d", dirs[kind], implicit ? "implicit" : "explicit", what, arg);
  else if ((unsigned)kind <= RS_RANGE_P2P)
    snprintf(buf, len, "%s %s: %s", dirs[kind], implicit ? "implicit" : "explicit", what);
  else if (kind == RS_RANGE_WAIT)
    snprintf(buf, len, "wait: %s", what);
  else if (kind == RS_RANGE_PREFETCH)
    snprintf(buf, len, "prefetch: %s", what);
  else
    snprintf(buf, len, "%s", what);
}

void rs_cuda_range_push(rs_range_kind kind, int implicit, const char *what, int arg) {
  nvtxDomainHandle_t d = rs_nvtx();
  if (!d) return;
  char msg[160];
  nvtxEventAttributes_t a;
  rs_nvtx_message(msg, sizeof msg, kind, implicit, what, arg);
  rs_nvtx_attributes(&a, kind, implicit, msg);
  nvtxDomainRangePushEx(d, &a);
}

void rs_cuda_range_pop(void) {
  nvtxDomainHandle_t d = rs_nvtx();
  if (d) nvtxDomainRangePop(d);
}

uint64_t rs_cuda_range_start(rs_range_kind kind, const char *what) {
  nvtxDomainHandle_t d = rs_nvtx();
  if (!d) return 0;
  char msg[160];
  nvtxEventAttributes_t a;
  rs_nvtx_message(msg, sizeof msg, kind, 0, what, -1);
  rs_nvtx_attributes(&a, kind, 0, msg);
  return nvtxDomainRangeStartEx(d, &a);
}

void rs_cuda_range_end(uint64_t id) {
  nvtxDomainHandle_t d = rs_nvtx();
  if (d && id) nvtxDomainRangeEnd(d, id);
}
#endif /* RS_HAVE_NVTX */
