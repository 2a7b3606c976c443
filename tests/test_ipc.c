/* Issue 13, CUDA IPC (and the simulator's same API over shared memory): a device array
 * shared by two processes. The parent exports a strided view inside a pool block (so the
 * handle carries an offset into the shared segment), starts this very program again as
 * the child (fork + exec), which opens the handle, checks the values and rewrites them;
 * the parent then sees the child's values in its own array. Garbled, forged and stale
 * handles are refused with a message. */
#include <errno.h>
#include <sys/wait.h>
#include "harness.h"
#include "memory/ipc_wire.h"
#include "resident/ipc.h"
#include "resident/allocator.h"
#include "resident/ops.h"

#define N 1000
#define LO 100 /* the view shared: elements [LO, N-LO) */

static void to_hex(const rs_ipc_handle *h, char *out) {
  for (size_t i = 0; i < sizeof h->bytes; i++) sprintf(out + 2 * i, "%02x", h->bytes[i]);
}

static int from_hex(const char *s, rs_ipc_handle *h) {
  if (strlen(s) != 2 * sizeof h->bytes) return -1;
  for (size_t i = 0; i < sizeof h->bytes; i++) {
    unsigned v = 0;
    if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
    h->bytes[i] = (unsigned char)v;
  }
  return 0;
}

extern char **environ;

/* Run this program as the child with the handles (ev may be NULL) and what it should do;
 * its exit status. The child's environment is made before the fork: between fork and exec
 * only async-signal-safe calls are allowed (other threads may hold malloc's lock). */
static int run_child(rs_context *ctx, const rs_ipc_handle *h, const rs_ipc_handle *ev, const char *mode) {
  static char hex[32 + 2 * RS_IPC_HANDLE_BYTES], evhex[32 + 2 * RS_IPC_HANDLE_BYTES], modev[64], bev[64];
  strcpy(hex, "RS_T_IPC_HANDLE=");
  to_hex(h, hex + strlen(hex));
  strcpy(evhex, "RS_T_IPC_EVENT=");
  if (ev) to_hex(ev, evhex + strlen(evhex));
  snprintf(modev, sizeof modev, "RS_T_IPC_MODE=%s", mode);
  snprintf(bev, sizeof bev, "RESIDENT_BACKEND=%s", rs_context_backend(ctx) == RS_BACKEND_CUDA ? "cuda" : "sim");
  size_t n = 0;
  while (environ[n]) n++;
  char **envp = calloc(n + 5, sizeof *envp);
  if (!envp) return -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "RS_T_IPC_", 9) != 0 && strncmp(environ[i], "RESIDENT_BACKEND=", 17) != 0)
      envp[k++] = environ[i];
  envp[k++] = hex;
  envp[k++] = modev;
  envp[k++] = bev;
  if (ev) envp[k++] = evhex;
  char *const argv[] = {"/proc/self/exe", "test_ipc_child_side", NULL};
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execve("/proc/self/exe", argv, envp);
    _exit(127);
  }
  free(envp);
  if (pid < 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The child (only when started by run_child): "write" opens the array and the event, makes
 * its stream wait for the parent's record, checks x[i] == LO + i + 1000 there and writes
 * 2x + 1; "stale" expects the open to be refused. */
static void test_ipc_child_side(rs_context *ctx) {
  const char *hex = getenv("RS_T_IPC_HANDLE"), *mode = getenv("RS_T_IPC_MODE");
  if (!hex || !mode) return; /* run by ctest itself: nothing to do */
  rs_ipc_handle h;
  CHECK(from_hex(hex, &h) == 0);
  rs_array *a = NULL, *host = NULL;
  if (strcmp(mode, "stale") == 0) {
    rs_clear_error();
    CHECK_FAILS(rs_ipc_open(&a, ctx, &h));
    CHECK(a == NULL);
    printf("    child: refused as it should be: %s\n", rs_last_error());
    return;
  }
  rs_ipc_handle eh;
  const char *evhex = getenv("RS_T_IPC_EVENT");
  CHECK(evhex && from_hex(evhex, &eh) == 0);
  rs_event *ev = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_ipc_event_open(&ev, ctx, &eh));
  CHECK_OK(rs_ipc_open(&a, ctx, &h));
  CHECK_EQ_I64(rs_array_ndim(a), 1);
  CHECK_EQ_I64(rs_array_shape(a)[0], N - 2 * LO);
  CHECK_EQ_I64(rs_array_kind(a), RS_MEM_DEVICE);
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  int done = -1;
  CHECK_OK(rs_event_query(ev, &done));
  printf("    child: the parent's record %s when the child got there\n", done ? "had completed" : "was pending");
  CHECK_OK(rs_stream_wait_event(s, ev)); /* the device waits for the other process's kernel */
  CHECK_OK(rs_copy_to_host(&host, a, s));
  CHECK_OK(rs_stream_synchronize(s));
  const float *x = rs_array_host_data(host);
  int bad = 0;
  for (int i = 0; i < N - 2 * LO; i++) bad += x[i] != (float)(LO + i + 1000);
  CHECK_MSG(bad == 0, "%d values differ from what the parent wrote (x[0] = %g)", bad, (double)x[0]);
  CHECK_OK(rs_t_axpb(a, 2.0, 1.0, s));
  CHECK_OK(rs_event_record(ev, s)); /* a record from this side */
  CHECK_OK(rs_event_synchronize(ev));
  CHECK_OK(rs_array_release(host));
  CHECK_OK(rs_array_release(a)); /* closes the mapping in stream order */
  CHECK_OK(rs_event_destroy(ev));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_context_synchronize(ctx));
}

static void test_two_processes_share_an_array(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  rs_array *full = NULL, *view = NULL, *host = NULL;
  rs_stream *s = NULL;
  rs_event *ev = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_event_create(&ev, ctx, RS_EVENT_INTERPROCESS | RS_EVENT_DISABLE_TIMING));
  CHECK_OK(rs_arange(&full, ctx, RS_MEM_DEVICE, 0, N, 1, RS_FLOAT32, NULL));
  rs_slice mid = {LO, N - LO, 1};
  CHECK_OK(rs_array_slice(&view, full, 1, &mid));
  CHECK_OK(rs_context_synchronize(ctx));
  /* the last write is still queued behind a slow kernel when the child starts: only the
   * shared event orders the child's read after it */
  CHECK_OK(rs_t_sleep(ctx, 1000, s));
  CHECK_OK(rs_t_axpb(full, 1.0, 1000.0, s));
  CHECK_OK(rs_event_record(ev, s));
  rs_ipc_handle h, eh;
  CHECK_OK(rs_ipc_export(&h, view));
  CHECK_OK(rs_ipc_event_export(&eh, ev));
  const rs_ipc_wire *w = (const rs_ipc_wire *)h.bytes;
  CHECK(w->offset >= (uint64_t)LO * 4); /* the view's offset, plus the block's in its segment */
  CHECK_EQ_I64(run_child(ctx, &h, &eh, "write"), 0);
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_copy_to_host(&host, full, NULL));
  const float *x = rs_array_host_data(host);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float v = (float)i + 1000.0f;
    float want = i >= LO && i < N - LO ? 2.0f * v + 1.0f : v;
    bad += x[i] != want;
  }
  CHECK_MSG(bad == 0, "%d values are not what the child wrote (x[%d] = %g)", bad, LO, (double)x[LO]);
  CHECK_OK(rs_array_release(host));
  CHECK_OK(rs_array_release(view));
  CHECK_OK(rs_array_release(full));
  CHECK_OK(rs_event_destroy(ev));
  CHECK_OK(rs_stream_destroy(s));
}

/* A handle of memory freed since: the child's open is refused. */
static void test_stale_handle_is_refused(rs_context *ctx) {
  const int64_t n[1] = {4 << 20}; /* a segment of its own, given back to the device below */
  rs_array *a = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n, RS_FLOAT32, NULL));
  rs_ipc_handle h;
  CHECK_OK(rs_ipc_export(&h, a));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_memory_release(ctx, RS_SPACE_DEVICE));
  CHECK_EQ_I64(run_child(ctx, &h, NULL, "stale"), 0);
}

/* Refused in this process, with a message and no array: garbled bytes, a forged device
 * or backend, the exporting process itself, memory that is not shared. */
static void test_bad_handles(rs_context *ctx) {
  rs_array *a = NULL, *o = NULL;
  const int64_t n[1] = {64};
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n, RS_INT32, NULL));
  rs_ipc_handle h, bad;
  CHECK_OK(rs_ipc_export(&h, a));
  CHECK_FAILS(rs_ipc_open(&o, ctx, &h)); /* this process exported it */
  CHECK(strstr(rs_last_error(), "this process") != NULL);
  for (size_t at = 0; at < sizeof(rs_ipc_wire); at += 37) {
    bad = h;
    bad.bytes[at] ^= 0x40;
    CHECK_FAILS(rs_ipc_open(&o, ctx, &bad));
    CHECK(o == NULL);
  }
  memset(&bad, 0, sizeof bad);
  CHECK_FAILS(rs_ipc_open(&o, ctx, &bad));
  /* well-formed, checksum included, but of another device / backend */
  bad = h;
  rs_ipc_wire *w = (rs_ipc_wire *)bad.bytes;
  w->device += 1;
  w->pid = -1;
  w->checksum = rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum));
  CHECK_FAILS(rs_ipc_open(&o, ctx, &bad));
  CHECK(strstr(rs_last_error(), "device") != NULL);
  w->device -= 1;
  w->backend ^= 1;
  w->checksum = rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum));
  CHECK_FAILS(rs_ipc_open(&o, ctx, &bad));
  CHECK(strstr(rs_last_error(), "backend") != NULL);
  CHECK(o == NULL);
  /* events: one not made interprocess, this process's own, one kind for the other */
  rs_event *plain = NULL, *shared = NULL, *oev = NULL;
  rs_ipc_handle eh;
  CHECK_OK(rs_event_create(&plain, ctx, RS_EVENT_DISABLE_TIMING));
  CHECK_FAILS(rs_ipc_event_export(&eh, plain));
  CHECK(strstr(rs_last_error(), "INTERPROCESS") != NULL);
  CHECK_FAILS(rs_event_create(&shared, ctx, RS_EVENT_INTERPROCESS)); /* timing must be off */
  CHECK_OK(rs_event_create(&shared, ctx, RS_EVENT_INTERPROCESS | RS_EVENT_DISABLE_TIMING));
  CHECK_OK(rs_ipc_event_export(&eh, shared));
  CHECK_FAILS(rs_ipc_event_open(&oev, ctx, &eh));
  CHECK(strstr(rs_last_error(), "this process") != NULL);
  bad = eh;
  w = (rs_ipc_wire *)bad.bytes;
  w->pid = -1;
  w->checksum = rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum));
  CHECK_FAILS(rs_ipc_open(&o, ctx, &bad)); /* an event's handle is not memory */
  CHECK(strstr(rs_last_error(), "event") != NULL);
  bad = h;
  w = (rs_ipc_wire *)bad.bytes;
  w->pid = -1;
  w->checksum = rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum));
  CHECK_FAILS(rs_ipc_event_open(&oev, ctx, &bad)); /* nor memory's an event */
  CHECK(oev == NULL && o == NULL);
  CHECK_OK(rs_event_destroy(plain));
  CHECK_OK(rs_event_destroy(shared));
  /* not device memory, a reversed view */
  rs_array *hst = NULL, *rev = NULL;
  CHECK_OK(rs_zeros(&hst, ctx, RS_MEM_HOST, 1, n, RS_INT32, NULL));
  CHECK_FAILS(rs_ipc_export(&bad, hst));
  rs_slice back = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1};
  CHECK_OK(rs_array_slice(&rev, a, 1, &back));
  CHECK_FAILS(rs_ipc_export(&bad, rev));
  CHECK_OK(rs_array_release(rev));
  CHECK_OK(rs_array_release(hst));
  CHECK_OK(rs_array_release(a));
  /* the stream-ordered allocator's memory cannot be shared (a small block on the simulator
   * is a heap block too) */
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_context_set_allocator(ctx, RS_ALLOCATOR_ASYNC, NULL));
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n, RS_INT32, NULL));
  rs_clear_error();
  CHECK_FAILS(rs_ipc_export(&bad, a));
  printf("    async allocator: %s\n", rs_last_error());
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_context_set_allocator(ctx, RS_ALLOCATOR_POOL, NULL));
}

static const rs_test_case tests[] = {
    RS_TEST(test_ipc_child_side),
    RS_TEST(test_two_processes_share_an_array),
    RS_TEST(test_stale_handle_is_refused),
    RS_TEST(test_bad_handles),
};
RS_TEST_MAIN(tests)
