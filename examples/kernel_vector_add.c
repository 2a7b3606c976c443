/* examples/kernel_vector_add.c - c = a + b with a user kernel, one element per thread.
 *
 * The arrays are plain host memory wrapped without a copy, so the launch copies them in
 * and out IMPLICITLY (Numba's behaviour, counted by the ledger): a and b are declared
 * `const float *`, so they go in and never come back - 3 copies in, 1 out, not 3 and 3.
 * The grid and block are left at 0: the library sizes them from occupancy to cover n.
 *
 *   cc kernel_vector_add.c $(pkg-config --cflags --libs resident) && ./a.out
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <resident.h>

static const char *vector_add_source =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

/* Adds two vectors of n floats on ctx's device; *max_err is the largest difference from
 * the CPU's result, *copies_in / *copies_out the implicit copies the launch made. */
rs_status example_vector_add(rs_context *ctx, int64_t n, double *max_err, int64_t *copies_in,
                             int64_t *copies_out) {
  float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  float *c = calloc((size_t)n, sizeof *c);
  rs_array *ha = NULL, *hb = NULL, *hc = NULL;
  rs_kernel *k = NULL;
  rs_status st = a && b && c ? RS_OK : RS_ERR_HOST_OUT_OF_MEMORY;
  for (int64_t i = 0; st == RS_OK && i < n; i++) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i % 7) - 3.0f;
  }
  if (st == RS_OK) st = rs_host_array_wrap(&ha, ctx, a, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hb, ctx, b, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hc, ctx, c, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_kernel_create(&k, ctx, vector_add_source, "vector_add", NULL);
  if (st == RS_OK) st = rs_ledger_begin(ctx);
  if (st == RS_OK) {
    rs_launch_config cfg = {.elements = n}; /* grid and block from occupancy */
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ha), rs_arg_array(hb), rs_arg_array(hc), rs_arg_i64(n)));
    rs_ledger_stats s;
    rs_status end = rs_ledger_end(ctx, &s);
    if (st == RS_OK) st = end;
    *copies_in = s.copies[RS_H2D][1];
    *copies_out = s.copies[RS_D2H][1];
  }
  /* The launch returned after the copy back: c holds the result. */
  double err = 0;
  for (int64_t i = 0; st == RS_OK && i < n; i++) err = fmax(err, fabs((double)c[i] - ((double)a[i] + b[i])));
  *max_err = err;
  rs_kernel_destroy(k);
  rs_array_release(ha);
  rs_array_release(hb);
  rs_array_release(hc);
  free(a);
  free(b);
  free(c);
  return st;
}

#ifndef RS_EXAMPLE_NO_MAIN
int main(void) {
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  double err = 0;
  int64_t in = 0, out = 0;
  if (st == RS_OK) st = example_vector_add(ctx, 1 << 20, &err, &in, &out);
  if (st != RS_OK) {
    fprintf(stderr, "vector_add: %s: %s\n", rs_status_name(st), rs_last_error());
    rs_context_destroy(ctx);
    return 1;
  }
  printf("vector_add on %s: max error %g; implicit copies: %lld in, %lld out\n",
         rs_backend_name(rs_context_backend(ctx)), err, (long long)in, (long long)out);
  rs_context_destroy(ctx);
  return err == 0 ? 0 : 1;
}
#endif
