/* The simulator's user-kernel table (see backend/kernel_table.h); the work is in
 * sim_kernel_compile.c, sim_kernel_load.c and sim_kernel_run.c. */
#include "backend/sim/sim_kernel.h"
#include "core/error.h"

/* The simulator has no multiprocessors to fill: it prefers blocks of RS_SIM_PREFERRED_BLOCK
 * threads (and their divisors as equally good), so a computed block is that size. */
static rs_status sim_kernel_occupancy(rs_backend *b, void *fn, int block, size_t shared_bytes, int *blocks) {
  (void)b;
  (void)fn;
  *blocks = 0;
  if (block <= 0 || shared_bytes > RS_SIM_SHARED_BYTES) return RS_OK;
  *blocks = block <= RS_SIM_PREFERRED_BLOCK ? RS_SIM_PREFERRED_BLOCK / block : 0;
  return RS_OK;
}

/* Every block may use all of RS_SIM_SHARED_BYTES: nothing to opt into. */
static rs_status sim_kernel_set_shared_limit(rs_backend *b, void *fn, size_t bytes) {
  (void)b;
  (void)fn;
  if (bytes > RS_SIM_SHARED_BYTES)
    return rs_fail(RS_ERR_LAUNCH, "sim: %zu bytes of dynamic shared memory is over %zu", bytes, RS_SIM_SHARED_BYTES);
  return RS_OK;
}

const rs_kernel_table rs_sim_kernels = {
    .name = "sim",
    .target = sim_kernel_target,
    .compile = sim_kernel_compile,
    .load = sim_kernel_load,
    .get_function = sim_kernel_get_function,
    .launch = sim_kernel_launch,
    .occupancy = sim_kernel_occupancy,
    .set_shared_limit = sim_kernel_set_shared_limit,
    .get_symbol = sim_kernel_get_symbol,
    .take_fault = sim_kernel_take_fault,
    .unload = sim_kernel_unload,
};
