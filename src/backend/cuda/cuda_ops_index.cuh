// Private to cuda_ops_index.cu and cuda_ops_sets.cu: the order NumPy sorts in (NaN last)
// and its equality (NaN equals nothing), for every dtype the two files instantiate, and
// the dispatch of a dtype to its C++ type.
#ifndef RS_BACKEND_CUDA_OPS_INDEX_CUH
#define RS_BACKEND_CUDA_OPS_INDEX_CUH

#include <cstdint>
#include <cuda_fp16.h>
#include "resident/dtype.h"

namespace rs_index {

template <typename T>
__device__ __forceinline__ float widen(T v) { return (float)v; }

// a < b, NaN after everything (integers: plain <)
template <typename T>
__device__ __forceinline__ bool less(T a, T b) { return a < b || (b != b && a == a); }
template <>
__device__ __forceinline__ bool less<__half>(__half a, __half b) {
  return less(__half2float(a), __half2float(b));
}

// Call f(T()) with the C++ type of a sortable dtype; false for complex and invalid ones.
template <typename F>
bool dispatch(rs_dtype dt, F f) {
  switch (dt) {
    case RS_BOOL: f(uint8_t()); return true;
    case RS_INT8: f(int8_t()); return true;
    case RS_INT16: f(int16_t()); return true;
    case RS_INT32: f(int32_t()); return true;
    case RS_INT64: f(int64_t()); return true;
    case RS_UINT8: f(uint8_t()); return true;
    case RS_UINT16: f(uint16_t()); return true;
    case RS_UINT32: f(uint32_t()); return true;
    case RS_UINT64: f(uint64_t()); return true;
    case RS_FLOAT16: f(__half()); return true;
    case RS_FLOAT32: f(float()); return true;
    case RS_FLOAT64: f(double()); return true;
    default: return false;
  }
}

}  // namespace rs_index

#endif
