/* The CUDA backend's op table (src/backend/ops_table.h). */
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_ops_index.h"

const rs_ops_table rs_cuda_ops = {
    .name = "cuda",
    .ew = rs_cuda_ops_ew,
    .reduce = rs_cuda_ops_reduce,
    .sort = rs_cuda_ops_sort,
    .random = rs_cuda_ops_random,
    .matmul = rs_cuda_ops_matmul,
    .svd = rs_cuda_ops_svd,
    .solve = rs_cuda_ops_solve,
    /* indexing, searching, sets (cuda_ops_index.cu, cuda_ops_sets.cu) */
    .index = rs_cuda_ops_index,
    .select = rs_cuda_ops_select,
    .unique = rs_cuda_ops_unique,
    .search = rs_cuda_ops_search,
    /* stats */
    .scan = rs_cuda_ops_scan,
    .moments = rs_cuda_ops_moments,
    .factor = rs_cuda_ops_factor, /* linalg extension */
};
