/* Issue 19, item 3: collectives over a communicator of one process driving several
 * devices (resident/collective.h). The simulator is given 3 devices; on CUDA the comm has
 * as many ranks as there are GPUs (one on a one-GPU machine: NCCL with a single rank, still
 * every call of the API). Values are checked against plain loops over what each rank
 * sent; every collective is one ledger entry per rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "resident/collective.h"
#include "resident/graph.h"
#include "resident/ops.h"
#include "resident/trace.h"

#define MAXR 4

typedef struct ranks {
  int n;
  rs_context *ctx[MAXR];
  rs_comm *comm;
  int unavailable; /* CUDA without NCCL: the status was checked, nothing more to do */
  int ok;
} ranks;

static void close_ranks(ranks *r) {
  CHECK_OK(rs_comm_destroy(r->comm));
  for (int i = 0; i < r->n; i++) rs_context_destroy(r->ctx[i]);
  memset(r, 0, sizeof *r);
}

/* Contexts on up to 3 devices (the simulator has 3) and a comm over them. */
static void open_ranks_(rs_context *ctx, ranks *r) {
  memset(r, 0, sizeof *r);
  rs_backend_kind kind = rs_context_backend(ctx);
  setenv("RESIDENT_SIM_DEVICES", "3", 1);
  int count = 0;
  if (rs_device_count(kind, &count) != RS_OK || count < 1) count = 1;
  r->n = count < 3 ? count : 3;
  for (int i = 0; i < r->n; i++)
    if (rs_context_create(&r->ctx[i], kind, i) != RS_OK) r->ctx[i] = NULL;
  unsetenv("RESIDENT_SIM_DEVICES");
  for (int i = 0; i < r->n; i++) CHECK(r->ctx[i] != NULL);
  rs_status st = rs_comm_create(&r->comm, r->ctx, r->n);
  if (st == RS_ERR_UNSUPPORTED && kind == RS_BACKEND_CUDA) {
    CHECK_MSG(strstr(rs_last_error(), "libnccl") || strstr(rs_last_error(), "nccl.h"), "message: %s", rs_last_error());
    printf("    NCCL unavailable, as the status says: %s\n", rs_last_error());
    r->unavailable = 1;
    return;
  }
  CHECK_OK(st);
  printf("    comm of %d rank(s) on %s\n", r->n, rs_backend_name(kind));
  r->ok = st == RS_OK;
}

static int open_ranks(rs_context *ctx, ranks *r) {
  open_ranks_(ctx, r);
  return r->ok;
}

/* A device array of rank i's context from host values. */
static rs_array *dev_from(rs_context *ctx, rs_dtype dt, const void *data, int64_t n) {
  rs_array *h = NULL, *d = NULL;
  if (rs_host_array_wrap(&h, ctx, (void *)(uintptr_t)data, 1, &n, dt, NULL) != RS_OK) return NULL;
  if (rs_to_device(&d, h, 0, NULL) != RS_OK) d = NULL;
  rs_array_release(h);
  return d;
}

/* The values of a device array, in out (its byte size). */
static int read_back(rs_array *d, void *out) {
  rs_array *h = NULL;
  if (rs_copy_to_host(&h, d, NULL) != RS_OK) return -1;
  memcpy(out, rs_array_host_data(h), rs_array_nbytes(d));
  rs_array_release(h);
  return 0;
}

static void release_all(rs_array **a, int n) {
  for (int i = 0; i < n; i++) rs_array_release(a[i]);
}

/* float32 of rank r, element i: small integers so every reduction is exact. */
static float val(int r, int64_t i) { return (float)((i * 7 + r * 3) % 11) - 4.0f; }

static void test_all_reduce_ops(rs_context *ctx) {
  ranks R;
  if (!open_ranks(ctx, &R)) {
    close_ranks(&R);
    return;
  }
  const int64_t n = 600000; /* 2.4 MB: several rounds of the simulator's 1 MiB slots */
  float *host = malloc((size_t)n * sizeof(float)), *got = malloc((size_t)n * sizeof(float));
  rs_array *send[MAXR] = {0}, *recv[MAXR] = {0};
  for (int r = 0; r < R.n; r++) {
    for (int64_t i = 0; i < n; i++) host[i] = val(r, i);
    send[r] = dev_from(R.ctx[r], RS_FLOAT32, host, n);
    CHECK_OK(rs_device_array(&recv[r], R.ctx[r], 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_ledger_reset(R.ctx[r]));
  }
  const rs_reduce_op ops[] = {RS_REDUCE_SUM, RS_REDUCE_PROD, RS_REDUCE_MIN, RS_REDUCE_MAX, RS_REDUCE_MEAN};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)send, recv, ops[k], NULL));
    for (int r = 0; r < R.n; r++) {
      CHECK(read_back(recv[r], got) == 0);
      int64_t bad = 0;
      for (int64_t i = 0; i < n; i++) {
        float want = val(0, i);
        for (int q = 1; q < R.n; q++) {
          float v = val(q, i);
          if (ops[k] == RS_REDUCE_PROD) want *= v;
          else if (ops[k] == RS_REDUCE_MIN) want = v < want ? v : want;
          else if (ops[k] == RS_REDUCE_MAX) want = v > want ? v : want;
          else want += v;
        }
        if (ops[k] == RS_REDUCE_MEAN) want /= (float)R.n;
        bad += got[i] != want && !(ops[k] == RS_REDUCE_MEAN && fabsf(got[i] - want) <= 1e-6f * fabsf(want) + 1e-6f);
      }
      CHECK_MSG(bad == 0, "%s on rank %d: %lld elements differ", rs_reduce_op_name(ops[k]), r, (long long)bad);
    }
  }
  /* in place: send == recv */
  CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)send, send, RS_REDUCE_SUM, NULL));
  CHECK(read_back(send[0], got) == 0);
  float want = 0;
  for (int q = 0; q < R.n; q++) want += val(q, 12345);
  CHECK_NEAR(got[12345], want, 0);
  for (int r = 0; r < R.n; r++) {
    rs_ledger_stats s;
    CHECK_OK(rs_ledger_get_stats(R.ctx[r], &s));
    CHECK_EQ_I64(s.collectives, 6);
    CHECK_EQ_I64(s.collective_bytes, 6 * n * 4);
    int64_t cnt = 0;
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_count(R.ctx[r], &cnt, NULL));
    int found = 0;
    for (int64_t i = 0; i < cnt; i++)
      if (rs_ledger_entry_at(R.ctx[r], i, &e) == RS_OK && e.kind == RS_ENTRY_COLLECTIVE &&
          strcmp(e.cause, "rs_comm_all_reduce") == 0 && e.bytes == (size_t)n * 4)
        found++;
    CHECK_EQ_I64(found, 6);
  }
  /* the trace shows them: a slice of category "collective" per call */
  char path[64];
  snprintf(path, sizeof path, "/tmp/rs-test-collective-%d.json", (int)getpid());
  CHECK_OK(rs_trace_write(R.ctx[0], path));
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (f) {
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    int slices = 0;
    for (const char *p = text; (p = strstr(p, "\"cat\":\"collective\"")) != NULL; p++) slices++;
    CHECK_EQ_I64(slices, 6);
  }
  remove(path);
  release_all(send, R.n);
  release_all(recv, R.n);
  free(host);
  free(got);
  close_ranks(&R);
}

static void test_integer_all_reduce(rs_context *ctx) {
  ranks R;
  if (!open_ranks(ctx, &R)) {
    close_ranks(&R);
    return;
  }
  const int64_t n = 1000;
  int64_t host[1000], got[1000];
  rs_array *a[MAXR] = {0};
  for (int r = 0; r < R.n; r++) {
    for (int64_t i = 0; i < n; i++) host[i] = (int64_t)1 << 40 | (i * (r + 1));
    a[r] = dev_from(R.ctx[r], RS_INT64, host, n);
  }
  CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)a, a, RS_REDUCE_MAX, NULL));
  CHECK(read_back(a[R.n - 1], got) == 0);
  for (int64_t i = 0; i < n; i++)
    if (got[i] != ((int64_t)1 << 40 | (i * R.n))) {
      FAIL("int64 max at %lld: %lld", (long long)i, (long long)got[i]);
      break;
    }
  /* float16 and uint8: small integers, exact in both; the sum and the mean */
  const int64_t m = 4099;
  rs_array *h[MAXR] = {0}, *u[MAXR] = {0};
  for (int r = 0; r < R.n; r++) {
    rs_array *f = NULL;
    CHECK_OK(rs_full(&f, R.ctx[r], RS_MEM_DEVICE, 1, &m, RS_FLOAT32, rs_scalar_float(2.0 * (r + 1)), NULL));
    CHECK_OK(rs_astype(&h[r], f, RS_FLOAT16, NULL));
    CHECK_OK(rs_astype(&u[r], f, RS_UINT8, NULL));
    rs_array_release(f);
  }
  CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)h, h, RS_REDUCE_SUM, NULL));
  CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)u, u, RS_REDUCE_MEAN, NULL));
  double hv = 0, uv = 0;
  CHECK_OK(rs_array_item_double(h[0], (int64_t[]){m - 1}, &hv, NULL));
  CHECK_OK(rs_array_item_double(u[R.n - 1], (int64_t[]){m - 1}, &uv, NULL));
  CHECK_NEAR(hv, (double)(R.n * (R.n + 1)), 0);  /* 2 + 4 + ... */
  CHECK_NEAR(uv, (double)(R.n + 1), 0);           /* (2 + 4 + ...) / n */
  release_all(h, R.n);
  release_all(u, R.n);
  release_all(a, R.n);
  close_ranks(&R);
}

static void test_scatter_gather_broadcast(rs_context *ctx) {
  ranks R;
  if (!open_ranks(ctx, &R)) {
    close_ranks(&R);
    return;
  }
  const int64_t per = 5000, all = per * R.n;
  double *host = malloc((size_t)all * sizeof(double)), *got = malloc((size_t)all * sizeof(double));
  rs_array *big[MAXR] = {0}, *part[MAXR] = {0}, *gathered[MAXR] = {0};
  for (int r = 0; r < R.n; r++) {
    for (int64_t i = 0; i < all; i++) host[i] = (double)(r * 1000000 + i);
    big[r] = dev_from(R.ctx[r], RS_FLOAT64, host, all);
    CHECK_OK(rs_device_array(&part[r], R.ctx[r], 1, &per, RS_FLOAT64, NULL, RS_ORDER_C));
    CHECK_OK(rs_device_array(&gathered[r], R.ctx[r], 1, &all, RS_FLOAT64, NULL, RS_ORDER_C));
  }
  /* reduce-scatter: rank r gets the sum over ranks of block r */
  CHECK_OK(rs_comm_reduce_scatter(R.comm, (const rs_array *const *)big, part, RS_REDUCE_SUM, NULL));
  for (int r = 0; r < R.n; r++) {
    CHECK(read_back(part[r], got) == 0);
    for (int64_t i = 0; i < per; i++) {
      double want = 0;
      for (int q = 0; q < R.n; q++) want += (double)(q * 1000000 + r * per + i);
      if (got[i] != want) {
        FAIL("reduce-scatter rank %d element %lld: %g, want %g", r, (long long)i, got[i], want);
        break;
      }
    }
  }
  /* all-gather of those parts: every rank gets all blocks in rank order */
  CHECK_OK(rs_comm_all_gather(R.comm, (const rs_array *const *)part, gathered, NULL));
  for (int r = 0; r < R.n; r++) {
    CHECK(read_back(gathered[r], got) == 0);
    for (int64_t i = 0; i < all; i++) {
      double want = 0;
      for (int q = 0; q < R.n; q++) want += (double)(q * 1000000 + i);
      if (got[i] != want) {
        FAIL("all-gather rank %d element %lld: %g, want %g", r, (long long)i, got[i], want);
        break;
      }
    }
  }
  /* broadcast from the last rank, in place */
  int root = R.n - 1;
  CHECK_OK(rs_comm_broadcast(R.comm, big, root, NULL));
  for (int r = 0; r < R.n; r++) {
    CHECK(read_back(big[r], got) == 0);
    CHECK_NEAR(got[all - 1], (double)(root * 1000000 + all - 1), 0);
    CHECK_NEAR(got[0], (double)(root * 1000000), 0);
  }
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(R.ctx[0], &s));
  CHECK_EQ_I64(s.collectives, 3);
  /* rank 0 sent its whole big array, its part, and (when it is not the root) nothing */
  CHECK_EQ_I64(s.collective_bytes, all * 8 + per * 8 + (root == 0 ? all * 8 : 0));
  release_all(big, R.n);
  release_all(part, R.n);
  release_all(gathered, R.n);
  free(host);
  free(got);
  close_ranks(&R);
}

/* A ring: rank r sends to r+1 and receives from r-1 (itself with one rank). */
static void test_send_recv_ring(rs_context *ctx) {
  ranks R;
  if (!open_ranks(ctx, &R)) {
    close_ranks(&R);
    return;
  }
  const int64_t n = 300000;
  int32_t *host = malloc((size_t)n * sizeof(int32_t));
  rs_array *send[MAXR] = {0}, *recv[MAXR] = {0};
  int to[MAXR], from[MAXR];
  rs_stream *streams[MAXR] = {0};
  for (int r = 0; r < R.n; r++) {
    for (int64_t i = 0; i < n; i++) host[i] = (int32_t)(r * 100000 + i);
    send[r] = dev_from(R.ctx[r], RS_INT32, host, n);
    CHECK_OK(rs_device_array(&recv[r], R.ctx[r], 1, &n, RS_INT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_stream_create(&streams[r], R.ctx[r], RS_STREAM_NON_BLOCKING));
    to[r] = (r + 1) % R.n;
    from[r] = (r + R.n - 1) % R.n;
  }
  CHECK_OK(rs_comm_send_recv(R.comm, (const rs_array *const *)send, to, recv, from, streams));
  for (int r = 0; r < R.n; r++) {
    CHECK_OK(rs_stream_synchronize(streams[r]));
    CHECK(read_back(recv[r], host) == 0);
    CHECK_EQ_I64(host[0], from[r] * 100000);
    CHECK_EQ_I64(host[n - 1], from[r] * 100000 + n - 1);
  }
  for (int r = 0; r < R.n; r++) rs_stream_destroy(streams[r]);
  release_all(send, R.n);
  release_all(recv, R.n);
  free(host);
  close_ranks(&R);
}

/* Refused with a status and a message, nothing moved, the comm still usable. */
static void test_collective_bad_input(rs_context *ctx) {
  ranks R;
  if (!open_ranks(ctx, &R)) {
    close_ranks(&R);
    return;
  }
  const int64_t n = 64, half = 32;
  rs_array *a[MAXR] = {0}, *b[MAXR] = {0}, *small = NULL, *ints = NULL, *cplx = NULL, *host = NULL;
  for (int r = 0; r < R.n; r++) {
    CHECK_OK(rs_zeros(&a[r], R.ctx[r], RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
    CHECK_OK(rs_zeros(&b[r], R.ctx[r], RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  }
  CHECK_OK(rs_zeros(&small, R.ctx[0], RS_MEM_DEVICE, 1, &half, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&ints, R.ctx[0], RS_MEM_DEVICE, 1, &n, RS_INT32, NULL));
  CHECK_OK(rs_zeros(&cplx, R.ctx[0], RS_MEM_DEVICE, 1, &n, RS_COMPLEX64, NULL));
  CHECK_OK(rs_host_array(&host, R.ctx[0], 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  const rs_array *send[MAXR];
  rs_array *recv[MAXR];
  for (int r = 0; r < R.n; r++) send[r] = a[r], recv[r] = b[r];
  if (R.n > 1) { /* an array of rank 1's context in rank 0's place: both devices named */
    send[0] = a[1];
    CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_SUM, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_ERRMSG("array of device 1");
    CHECK_ERRMSG("is on device 0");
    send[0] = a[0];
  }
  recv[0] = small;
  CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_SUM, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("recv[0] has 32 elements");
  recv[0] = b[0];
  send[0] = ints;
  CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_SUM, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("send[0] is float32 but recv[0] is int32", "int32");
  send[0] = cplx;
  CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_SUM, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("complex64");
  send[0] = host;
  CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_SUM, NULL), RS_ERR_MEMORY_KIND);
  send[0] = a[0];
  CHECK_STATUS(rs_comm_all_reduce(R.comm, send, recv, RS_REDUCE_ARGMAX, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("argmax");
  CHECK_STATUS(rs_comm_broadcast(R.comm, recv, R.n, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("the root is rank");
  CHECK_STATUS(rs_comm_broadcast(R.comm, recv, -1, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_comm_reduce_scatter(R.comm, send, recv, RS_REDUCE_SUM, NULL), R.n > 1 ? RS_ERR_SHAPE : RS_OK);
  int to[MAXR], from[MAXR];
  for (int r = 0; r < R.n; r++) to[r] = from[r] = R.n + 5;
  CHECK_STATUS(rs_comm_send_recv(R.comm, send, to, recv, from, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("send_to[0] is rank");
  for (int r = 0; r < R.n; r++) to[r] = r, from[r] = (r + 1) % R.n;
  if (R.n > 1) { /* rank 0 sends to itself but receives from rank 1 */
    CHECK_STATUS(rs_comm_send_recv(R.comm, send, to, recv, from, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_ERRMSG("rank 0");
  }
  /* a stream being captured into a graph: refused, the capture intact */
  rs_stream *cs[MAXR] = {0};
  for (int r = 0; r < R.n; r++) CHECK_OK(rs_stream_create(&cs[r], R.ctx[r], RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_graph_begin_capture(cs[0]));
  CHECK_STATUS(rs_comm_all_reduce(R.comm, (const rs_array *const *)a, b, RS_REDUCE_SUM, cs), RS_ERR_STATE);
  CHECK_ERRMSG("captured");
  rs_graph *g = NULL;
  CHECK_OK(rs_graph_end_capture(&g, cs[0]));
  CHECK_OK(rs_graph_destroy(g));
  for (int r = 0; r < R.n; r++) CHECK_OK(rs_stream_destroy(cs[r]));
  /* RESIDENT_COMM_TIMEOUT is parsed strictly, at context creation */
  rs_context *badctx = NULL;
  setenv("RESIDENT_COMM_TIMEOUT", "0", 1);
  CHECK_STATUS(rs_context_create(&badctx, rs_context_backend(ctx), 0), RS_ERR_PARSE);
  CHECK_ERRMSG("RESIDENT_COMM_TIMEOUT");
  setenv("RESIDENT_COMM_TIMEOUT", "5s", 1);
  CHECK_STATUS(rs_context_create(&badctx, rs_context_backend(ctx), 0), RS_ERR_PARSE);
  unsetenv("RESIDENT_COMM_TIMEOUT");
  CHECK(badctx == NULL);
  rs_comm *c2 = NULL;
  rs_context *twice[2] = {R.ctx[0], R.ctx[0]};
  CHECK_STATUS(rs_comm_create(&c2, twice, 2), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("both on device 0");
  CHECK(c2 == NULL);
  rs_comm_id id;
  memset(&id, 0x5a, sizeof id);
  CHECK_STATUS(rs_comm_init_rank(&c2, R.ctx[0], 2, 2, &id), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("rank 2 is out of range: a comm of 2 ranks has ranks 0 to 1");
  CHECK_STATUS(rs_comm_init_rank(&c2, R.ctx[0], 2, 0, &id), RS_ERR_INVALID_ARGUMENT); /* garbled id */
  CHECK_ERRMSG("communicator id");
  /* the comm still works after all that, and nothing was recorded for the refusals */
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(R.ctx[0], &s));
  CHECK_EQ_I64(s.collectives, R.n > 1 ? 0 : 1); /* with one rank the reduce-scatter above is valid */
  CHECK_OK(rs_comm_all_reduce(R.comm, (const rs_array *const *)a, b, RS_REDUCE_SUM, NULL));
  int nranks = 0, first = -1, local = 0;
  CHECK_OK(rs_comm_get_info(R.comm, &nranks, &first, &local));
  CHECK(nranks == R.n && first == 0 && local == R.n);
  release_all(a, R.n);
  release_all(b, R.n);
  rs_array_release(small);
  rs_array_release(ints);
  rs_array_release(cplx);
  rs_array_release(host);
  rs_comm *dead = R.comm;
  close_ranks(&R);
  CHECK_STATUS(rs_comm_destroy(dead), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_comm_get_info(dead, NULL, NULL, NULL), RS_ERR_DESTROYED);
}

static const rs_test_case tests[] = {
    RS_TEST(test_all_reduce_ops),
    RS_TEST(test_integer_all_reduce),
    RS_TEST(test_scatter_gather_broadcast),
    RS_TEST(test_send_recv_ring),
    RS_TEST(test_collective_bad_input),
};

RS_TEST_MAIN(tests)
