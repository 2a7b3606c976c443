/* examples/data_parallel.c - one array split over every visible device.
 *
 * The seed pipeline (x = x * 1.0001 + 1, three times) runs on each device's part of the
 * array; each device then sums its part, and one all-reduce (resident/collective.h) gives
 * every device the total. Each part crosses the bus twice - in once, out once - and the
 * ledger of each device says so. On a machine without a GPU the simulator's devices stand
 * in (RESIDENT_SIM_DEVICES=4 gives four).
 *
 *   cc data_parallel.c -lresident && RESIDENT_SIM_DEVICES=4 ./a.out [elements]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <resident.h>

#define CHECK(x)                                                                   \
  do {                                                                             \
    rs_status s_ = (x);                                                            \
    if (s_) {                                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, rs_status_name(s_), rs_last_error()); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

#define MAXDEV 64
#define STEPS 3

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
  int ndev = 0;
  CHECK(rs_device_count(RS_BACKEND_AUTO, &ndev));
  if (ndev < 1) ndev = 1; /* the simulator always has one */
  if (ndev > MAXDEV) ndev = MAXDEV;
  if (n < ndev) n = ndev;

  rs_context *ctx[MAXDEV];
  rs_status first = rs_context_create(&ctx[0], RS_BACKEND_AUTO, 0);
  if (first == RS_ERR_NO_DEVICE) { /* RESIDENT_BACKEND=cuda on a machine without a GPU */
    printf("no device: %s\n", rs_last_error());
    return 77; /* CTest's "skipped" */
  }
  CHECK(first);
  for (int d = 1; d < ndev; d++) CHECK(rs_context_create(&ctx[d], RS_BACKEND_AUTO, d));
  printf("%lld float32 over %d device(s) of %s\n", (long long)n, ndev, rs_backend_name(rs_context_backend(ctx[0])));

  /* the data, on the host of device 0's context (host memory is reachable from all) */
  float *data = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) data[i] = (float)(i % 100) / 100.0f;
  rs_array *host;
  CHECK(rs_host_array_wrap(&host, ctx[0], data, 1, &n, RS_FLOAT32, NULL));

  rs_array *part[MAXDEV], *dev[MAXDEV], *sum[MAXDEV];
  for (int d = 0; d < ndev; d++) { /* device d takes [lo, hi) */
    int64_t lo = n * d / ndev, hi = n * (d + 1) / ndev, len = hi - lo;
    rs_slice s = {lo, hi, 1};
    CHECK(rs_array_slice(&part[d], host, 1, &s));
    CHECK(rs_device_array(&dev[d], ctx[d], 1, &len, RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK(rs_array_copy(dev[d], part[d], NULL)); /* one H2D copy, in device d's ledger */
  }
  for (int d = 0; d < ndev; d++) /* queued on each device: they run side by side */
    for (int k = 0; k < STEPS; k++) {
      CHECK(rs_multiply_scalar_into(dev[d], dev[d], rs_scalar_float(1.0001), NULL));
      CHECK(rs_add_scalar_into(dev[d], dev[d], rs_scalar_float(1.0), NULL));
    }
  for (int d = 0; d < ndev; d++) CHECK(rs_sum(&sum[d], dev[d], 0, NULL, 0, NULL)); /* stays on device d */

  rs_comm *comm;
  CHECK(rs_comm_create(&comm, ctx, ndev));
  CHECK(rs_comm_all_reduce(comm, (const rs_array *const *)sum, sum, RS_REDUCE_SUM, NULL));
  for (int d = 0; d < ndev; d++) CHECK(rs_array_copy(part[d], dev[d], NULL)); /* one D2H copy each */

  double total = 0;
  CHECK(rs_array_item_double(sum[0], NULL, &total, NULL)); /* the one scalar brought back */
  double want = 0;
  for (int64_t i = 0; i < n; i++) {
    double x = (double)data[i];
    want += x; /* data now holds the results: the sum of them is what the devices agreed on */
  }
  int ok = fabs(total - want) <= 1e-4 * fabs(want);
  printf("all-reduced sum %.8g, host loop over the results %.8g: %s\n", total, want, ok ? "OK" : "WRONG");

  for (int d = 0; d < ndev; d++) {
    rs_ledger_stats st;
    CHECK(rs_ledger_get_stats(ctx[d], &st));
    printf("device %d: %lld copies (%lld H2D, %lld D2H), %lld bytes; %lld kernels; %lld collective(s)\n", d,
           (long long)rs_ledger_copies(&st, -1), (long long)(st.copies[RS_H2D][0] + st.copies[RS_H2D][1]),
           (long long)(st.copies[RS_D2H][0] + st.copies[RS_D2H][1]), (long long)rs_ledger_bytes(&st, -1),
           (long long)st.kernels, (long long)st.collectives);
    if (st.collectives != 1 || st.copies[RS_H2D][0] != 1) ok = 0;
  }

  CHECK(rs_comm_destroy(comm));
  for (int d = 0; d < ndev; d++) {
    rs_array_release(sum[d]);
    rs_array_release(dev[d]);
    rs_array_release(part[d]);
  }
  rs_array_release(host);
  for (int d = 0; d < ndev; d++) rs_context_destroy(ctx[d]);
  free(data);
  return ok ? 0 : 1;
}
