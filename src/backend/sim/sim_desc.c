/* The simulator's descriptor: what the registry (src/backend/registry.c) hands out. */
#include "backend/sim/sim_internal.h"

const rs_backend_desc rs_backend_sim = {
    .version = RS_BACKEND_DESC_VERSION,
    .name = "sim",
    .kind = RS_BACKEND_SIM,
    .runtime = &rs_sim_vtable,
    .kernels = &rs_sim_kernels,
    .ops = &rs_sim_ops,
};
