/* The worked example at the top of include/resident.h, as a program the tests build and run:
 * data moves to the device once, array operations run there, the result comes back once, and the
 * ledger shows exactly those two copies. */
#include <stdio.h>
#include <stdlib.h>
#include <resident.h>

#define CHECK(x)                                                          \
  do {                                                                    \
    rs_status s_ = (x);                                                   \
    if (s_) {                                                             \
      fprintf(stderr, "%s: %s\n", rs_status_name(s_), rs_last_error());  \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

int main(void) {
  rs_context *ctx;
  rs_status made = rs_context_create(&ctx, RS_BACKEND_AUTO, 0); /* GPU if one answers, else sim */
  if (made == RS_ERR_NO_DEVICE) { /* RESIDENT_BACKEND=cuda on a machine without a GPU */
    fprintf(stderr, "%s\n", rs_last_error());
    return 77; /* CTest's "skipped" */
  }
  CHECK(made);
  float data[1000];
  for (int i = 0; i < 1000; i++) data[i] = (float)i;
  int64_t n = 1000;
  rs_array *host, *dev, *y, *back;
  CHECK(rs_host_array_wrap(&host, ctx, data, 1, &n, RS_FLOAT32, NULL)); /* no copy */
  CHECK(rs_to_device(&dev, host, 0, NULL));                              /* 1 explicit H2D copy */
  CHECK(rs_multiply_scalar(&y, dev, rs_scalar_float(2), NULL));         /* y = 2*dev, a new device array */
  CHECK(rs_add_scalar_into(y, y, rs_scalar_float(1), NULL));            /* y += 1, in place on the device */
  CHECK(rs_copy_to_host(&back, y, NULL));                                /* 1 explicit D2H copy */
  const float *r = rs_array_host_data(back);
  rs_ledger_stats st;
  CHECK(rs_ledger_get_stats(ctx, &st)); /* 2 copies, 8000 bytes */
  rs_ledger_print(&st, 0, RS_DEFAULT_PCIE_GBS, stdout);
  int ok = r[3] == 7.0f && rs_ledger_copies(&st, -1) == 2 && rs_ledger_bytes(&st, -1) == 8000;
  printf("r[3] = %g, %lld copies, %lld bytes: %s\n", r[3], (long long)rs_ledger_copies(&st, -1),
         (long long)rs_ledger_bytes(&st, -1), ok ? "as the manual says" : "NOT as the manual says");
  rs_array_release(back);
  rs_array_release(y);
  rs_array_release(dev);
  rs_array_release(host);
  rs_context_destroy(ctx);
  return ok ? 0 : 1;
}
