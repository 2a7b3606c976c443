/* examples/kernel_grid_stride.c - y = y + a * x with a grid-stride loop on device arrays.
 *
 * A grid-stride kernel is correct for any grid: each thread walks the array in steps of
 * the whole grid's width. The data go to the device once (explicit copies), the kernel
 * runs several times on it, and only the result comes back.
 *
 *   cc kernel_grid_stride.c $(pkg-config --cflags --libs resident) && ./a.out
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <resident.h>

static const char *grid_stride_source =
    "#include <resident_device.h>\n"
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, long long n) {\n"
    "  for (long long i = RS_GLOBAL_ID(); i < n; i += RS_GRID_STRIDE())\n"
    "    y[i] += a * x[i];\n"
    "}\n";

/* Runs `repeats` launches of y += 2x with a fixed grid that fills the device - 4 blocks
 * of 256 threads per multiprocessor, far fewer threads than elements: each handles many. */
rs_status example_grid_stride(rs_context *ctx, int64_t n, int repeats, double *max_err) {
  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  rs_array *hx = NULL, *hy = NULL, *dx = NULL, *dy = NULL, *back = NULL;
  rs_kernel *k = NULL;
  rs_status st = x && y ? RS_OK : RS_ERR_HOST_OUT_OF_MEMORY;
  for (int64_t i = 0; st == RS_OK && i < n; i++) {
    x[i] = (float)(i % 17);
    y[i] = 1.0f;
  }
  if (st == RS_OK) st = rs_host_array_wrap(&hx, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hy, ctx, y, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_to_device(&dx, hx, 0, NULL);
  if (st == RS_OK) st = rs_to_device(&dy, hy, 0, NULL);
  if (st == RS_OK) st = rs_kernel_create(&k, ctx, grid_stride_source, "axpy", NULL);
  rs_device_props props;
  if (st == RS_OK) st = rs_context_get_props(ctx, &props);
  for (int r = 0; st == RS_OK && r < repeats; r++) {
    rs_launch_config cfg = {.grid = {4 * (unsigned)props.multiprocessors}, .block = {256}};
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_f32(2.0f), rs_arg_array(dx), rs_arg_array(dy), rs_arg_i64(n)));
  }
  if (st == RS_OK) st = rs_copy_to_host(&back, dy, NULL);
  double err = 0;
  const float *r = st == RS_OK ? rs_array_host_data(back) : NULL;
  for (int64_t i = 0; r && i < n; i++) err = fmax(err, fabs((double)r[i] - (1.0 + 2.0 * repeats * x[i])));
  *max_err = err;
  rs_kernel_destroy(k);
  rs_array_release(back);
  rs_array_release(dx);
  rs_array_release(dy);
  rs_array_release(hx);
  rs_array_release(hy);
  free(x);
  free(y);
  return st;
}

#ifndef RS_EXAMPLE_NO_MAIN
int main(void) {
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  double err = 0;
  if (st == RS_OK) st = example_grid_stride(ctx, 1000003, 3, &err);
  if (st != RS_OK) {
    fprintf(stderr, "grid_stride: %s: %s\n", rs_status_name(st), rs_last_error());
    rs_context_destroy(ctx);
    return 1;
  }
  printf("grid-stride axpy on %s: max error %g\n", rs_backend_name(rs_context_backend(ctx)), err);
  rs_context_destroy(ctx);
  return err == 0 ? 0 : 1;
}
#endif
