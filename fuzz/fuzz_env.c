/* Context creation under a fuzzed value of one RESIDENT_* variable (the first input byte
 * picks it, the rest is the value): a context is made or refused with a message, a small
 * array is made and summed in a context that was made, and everything is destroyed. */
#include <sys/stat.h>
#include "fuzz_util.h"

static const char *const vars[] = {
    "RESIDENT_BACKEND",          "RESIDENT_SIM_DEVICE_MEMORY", "RESIDENT_SIM_THREADS",
    "RESIDENT_TRANSFER_GUARD",   "RESIDENT_LEDGER_TIMING",     "RESIDENT_LEDGER_ENTRIES",
    "RESIDENT_CACHE_DIR",        "RESIDENT_CACHE_MAX",         "RESIDENT_ALLOCATOR",
    "RESIDENT_POOL_LIMIT",       "RESIDENT_MAX_PENDING_DEALLOCS_COUNT",
    "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", "RESIDENT_PAGEABLE_STAGING", "RESIDENT_STAGING_THREADS",
    "XDG_CACHE_HOME", "RESIDENT_TRACE"};
/* RESIDENT_TRACE creates its file at context creation and writes it at destruction: the
 * fuzzed value becomes a name inside this folder ('/' taken out), never a path elsewhere. */
#define TRACE_DIR "/tmp/rs-fuzz-trace"
#define NVARS (sizeof vars / sizeof vars[0])

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  for (size_t i = 0; i < NVARS; i++) unsetenv(vars[i]);
  mkdir(TRACE_DIR, 0700);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const char *var = vars[data[0] % NVARS];
  char value[128];
  rs_fz_text(data + 1, size - 1, value, sizeof value);
  /* The ledger's log is allocated whole when the context is made, 128 bytes an entry: the
   * largest count the variable takes is 8.6 GB, past libFuzzer's memory limit. Above a
   * million entries that is left to RS_FUZZ_KNOWN=1 (fuzz/known/fuzz_env). */
  if (!rs_fz_known() && strcmp(var, "RESIDENT_LEDGER_ENTRIES") == 0 && strtoll(value, NULL, 10) > 1000000)
    return 0;
  char inside[sizeof value + sizeof TRACE_DIR + 1];
  const char *set = value;
  if (strcmp(var, "RESIDENT_TRACE") == 0) {
    for (char *p = value; *p; p++)
      if (*p == '/') *p = '_';
    snprintf(inside, sizeof inside, "%s/%s", TRACE_DIR, value);
    set = inside;
  }
  /* the simulator everywhere (no GPU is tried), but for the backend variable itself */
  setenv("RESIDENT_BACKEND", "sim", 1);
  setenv(var, set, 1);

  rs_context *ctx = NULL;
  rs_clear_error();
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  if (st != RS_OK) {
    FZ_FAILED_WITH_MESSAGE(st, var);
    FZ_ASSERT(ctx == NULL, "%s='%s': a failed creation gave a context", var, value);
  } else {
    rs_array *a = NULL, *s = NULL;
    const int64_t shape[1] = {16};
    st = rs_ones(&a, ctx, RS_MEM_DEVICE, 1, shape, RS_FLOAT32, NULL);
    if (st == RS_OK) st = rs_sum(&s, a, 0, NULL, 0, NULL);
    if (st == RS_OK) {
      double v = 0;
      st = rs_array_item_double(s, NULL, &v, NULL);
      FZ_ASSERT(st != RS_OK || v == 16.0, "%s='%s': the sum of 16 ones is %g", var, value, v);
    }
    if (st != RS_OK) FZ_FAILED_WITH_MESSAGE(st, var); /* a tiny pool limit may refuse it */
    FZ_ASSERT(rs_array_release(s) == RS_OK && rs_array_release(a) == RS_OK, "release");
    FZ_ASSERT(rs_context_destroy(ctx) == RS_OK, "%s='%s': destroy: %s", var, value, rs_last_error());
  }
  unsetenv(var);
  unsetenv("RESIDENT_BACKEND");
  return 0;
}
