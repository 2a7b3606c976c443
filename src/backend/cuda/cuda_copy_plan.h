// Internal to the CUDA backend: the strided copy's planner (cuda_copy_plan.cu) and the
// kernels that run a plan (cuda_copy.cu: any layout; cuda_copy_rows.cu: a destination
// that is contiguous along its inner axis, written in aligned 16-byte words).
#ifndef RS_BACKEND_CUDA_COPY_PLAN_H
#define RS_BACKEND_CUDA_COPY_PLAN_H

#include <cstdint>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_internal.h"

// Splitting a misaligned item into smaller pieces can add one dimension.
constexpr int kRsCopyPlanDims = RS_MAX_DIMS + 1;

// The copy after normalisation; dims run outermost first, dst strides positive and
// descending, items as wide as the pointers and strides allow.
struct RsCopyPlan {
  char *dst;
  const char *src;
  size_t itemsize;
  int ndim;
  int64_t count;
  int64_t shape[kRsCopyPlanDims];
  int64_t ds[kRsCopyPlanDims];
  int64_t ss[kRsCopyPlanDims];
};

// Build the smallest equivalent copy of c; count 0 means nothing to do.
rs_status rs_cuda_copy_plan(const rs_strided_copy *c, RsCopyPlan &p);

// Byte reach of one view of the plan: sum of (shape-1)*|stride|; false on overflow.
bool rs_cuda_copy_span(const RsCopyPlan &p, const int64_t *strides, int64_t *out);

// Queue the plan on the row kernel when its destination is contiguous along the inner
// axis (*used = true), else leave it (*used = false) for the general kernel.
cudaError_t rs_cuda_copy_rows(const RsCopyPlan &p, int multiprocessors, cudaStream_t stream, bool *used,
                              unsigned *blocks);

#endif
