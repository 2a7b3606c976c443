/* A program outside the resident tree: it finds the installed library through CMake
 * (CMakeLists.txt) or pkg-config (Makefile), doubles an array on the device and checks
 * the answer and the ledger's two copies. */
#include <stdio.h>
#include <resident.h>

static int failed(rs_status s, const char *what) {
  if (s == RS_OK) return 0;
  fprintf(stderr, "%s: %s: %s\n", what, rs_status_name(s), rs_last_error());
  return 1;
}

int main(void) {
  printf("resident %s\n", rs_version());
  rs_context *ctx;
  if (failed(rs_context_create(&ctx, RS_BACKEND_AUTO, 0), "context")) return 1;
  float data[256];
  for (int i = 0; i < 256; i++) data[i] = (float)i;
  int64_t n = 256;
  rs_array *host = NULL, *dev = NULL, *y = NULL, *back = NULL;
  int bad = failed(rs_host_array_wrap(&host, ctx, data, 1, &n, RS_FLOAT32, NULL), "wrap") ||
            failed(rs_to_device(&dev, host, 0, NULL), "to_device") ||
            failed(rs_multiply_scalar(&y, dev, rs_scalar_float(2), NULL), "multiply") ||
            failed(rs_copy_to_host(&back, y, NULL), "copy_to_host");
  rs_ledger_stats st;
  if (!bad) bad = failed(rs_ledger_get_stats(ctx, &st), "ledger");
  if (!bad) {
    const float *r = rs_array_host_data(back);
    long long copies = (long long)rs_ledger_copies(&st, -1);
    bad = r[255] != 510.0f || copies != 2;
    printf("r[255] = %g, %lld copies: %s\n", r[255], copies, bad ? "WRONG" : "ok");
  }
  rs_array_release(back);
  rs_array_release(y);
  rs_array_release(dev);
  rs_array_release(host);
  rs_context_destroy(ctx);
  return bad;
}
