/* examples/kernel_reduce.c - sum an array two ways with kernels from kernel_reduce.cu:
 * a shared-memory tree per block (barriers outside the if) and one atomic per thread,
 * both compared with the CPU's sum.
 *
 *   cc kernel_reduce.c $(pkg-config --cflags --libs resident)
 *   ./a.out [examples/kernel_reduce.cu [elements, default 10000000]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <resident.h>

/* Sums n floats on the device: *tree from block_sum's partial sums (added on the host, one
 * per block), *atomic from total_atomic, *cpu on the host in double precision. cu_path is
 * kernel_reduce.cu. The values are 0, 1 and 2: while the total stays below 2^24 every
 * partial sum is exact in float, so a difference means a lost or doubled element; with
 * fractions, float additions in another order differ by rounding (hence a tolerance). */
rs_status example_reduce(rs_context *ctx, const char *cu_path, int64_t n, double *tree, double *atomic,
                         double *cpu) {
  const unsigned block = 256; /* block_sum's shared array holds 256 */
  int64_t nblocks = (n + block - 1) / block, one = 1;
  float *a = malloc((size_t)n * sizeof *a);
  rs_array *ha = NULL, *da = NULL, *partial = NULL, *total = NULL, *hp = NULL, *ht = NULL;
  rs_kernel *ksum = NULL, *katomic = NULL;
  rs_status st = a ? RS_OK : RS_ERR_HOST_OUT_OF_MEMORY;
  double ref = 0;
  for (int64_t i = 0; st == RS_OK && i < n; i++) {
    a[i] = (float)(i % 3);
    ref += a[i];
  }
  *cpu = ref;
  if (st == RS_OK) st = rs_host_array_wrap(&ha, ctx, a, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_to_device(&da, ha, 0, NULL); /* the data go up once */
  if (st == RS_OK) st = rs_device_array(&partial, ctx, 1, &nblocks, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_device_array(&total, ctx, 1, &one, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_kernel_create_from_file(&ksum, ctx, cu_path, "block_sum", NULL);
  if (st == RS_OK) st = rs_kernel_create_from_file(&katomic, ctx, cu_path, "total_atomic", NULL);
  if (st == RS_OK) {
    rs_launch_config cfg = {.grid = {(unsigned)nblocks}, .block = {block}};
    st = rs_kernel_launch(ksum, &cfg, RS_ARGS(rs_arg_array(da), rs_arg_array(partial), rs_arg_i64(n)));
  }
  if (st == RS_OK) {
    float zero = 0;
    rs_array *hz = NULL;
    st = rs_host_array_wrap(&hz, ctx, &zero, 1, &one, RS_FLOAT32, NULL);
    if (st == RS_OK) st = rs_array_copy(total, hz, NULL);
    rs_array_release(hz);
  }
  if (st == RS_OK) {
    rs_launch_config cfg = {.elements = n}; /* one thread per element, sized by occupancy */
    st = rs_kernel_launch(katomic, &cfg, RS_ARGS(rs_arg_array(da), rs_arg_array(total), rs_arg_i64(n)));
  }
  if (st == RS_OK) st = rs_copy_to_host(&hp, partial, NULL);
  if (st == RS_OK) st = rs_copy_to_host(&ht, total, NULL);
  if (st == RS_OK) {
    const float *p = rs_array_host_data(hp);
    double s = 0;
    for (int64_t i = 0; i < nblocks; i++) s += p[i];
    *tree = s;
    *atomic = *(const float *)rs_array_host_data(ht);
  }
  rs_kernel_destroy(ksum);
  rs_kernel_destroy(katomic);
  rs_array_release(ha);
  rs_array_release(da);
  rs_array_release(partial);
  rs_array_release(total);
  rs_array_release(hp);
  rs_array_release(ht);
  free(a);
  return st;
}

#ifndef RS_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "examples/kernel_reduce.cu";
  int64_t n = argc > 2 ? atoll(argv[2]) : 10000000;
  if (n <= 0 || n > (1 << 24)) n = 10000000; /* totals of 0,1,2 stay exact in float below 2^24 */
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  double tree = 0, atomic = 0, cpu = 0;
  if (st == RS_OK) st = example_reduce(ctx, path, n, &tree, &atomic, &cpu);
  if (st != RS_OK) {
    fprintf(stderr, "reduce: %s: %s\n", rs_status_name(st), rs_last_error());
    rs_context_destroy(ctx);
    return 1;
  }
  printf("sum on %s: tree %.3f, one atomic per thread %.3f, CPU %.3f\n",
         rs_backend_name(rs_context_backend(ctx)), tree, atomic, cpu);
  rs_context_destroy(ctx);
  /* float additions in a different order: equal within a tolerance, not bit for bit */
  return fabs(tree - cpu) <= 1e-5 * cpu && fabs(atomic - cpu) <= 1e-3 * cpu ? 0 : 1;
}
#endif
