/* Private to the CUDA backend: its entries for indexing, searching and sets
 * (cuda_ops_index.cu: gather / scatter, compaction, binary search; cuda_ops_sets.cu:
 * runs of a sorted array). C and C++ clean. */
#ifndef RS_BACKEND_CUDA_OPS_INDEX_H
#define RS_BACKEND_CUDA_OPS_INDEX_H

#include "backend/backend.h"
#include "native/plans_index.h"

#ifdef __cplusplus
extern "C" {
#endif

rs_status rs_cuda_ops_index(rs_backend *b, const rs_index_plan *p, void *stream);
rs_status rs_cuda_ops_select(rs_backend *b, const rs_select_plan *p, void *stream);
rs_status rs_cuda_ops_unique(rs_backend *b, const rs_unique_plan *p, void *stream);
rs_status rs_cuda_ops_search(rs_backend *b, const rs_search_plan *p, void *stream);

#ifdef __cplusplus
}
#endif
#endif
