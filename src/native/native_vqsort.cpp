// The one C++ file of src/native: Highway's vectorized quicksort (vqsort) has a C++ API
// only. Built where cmake/host_sort.cmake finds it (RS_HOST_VQSORT); native_sort.c calls
// these through native_radix.h. The keys are native_sort.c's unsigned keys (NaN already
// the largest), so the order is NumPy's; vqsort is not stable, which a sort of values
// does not need (argsort keeps the stable radix sort).
#include <hwy/contrib/sort/vqsort.h>
#include <cstdint>

// Declared for C in native/native_radix.h (not included here: native.h is C only).
extern "C" void rs_vqsort_u64(uint64_t *keys, int64_t n);
extern "C" void rs_vqsort_u32(uint32_t *keys, int64_t n);

extern "C" void rs_vqsort_u64(uint64_t *keys, int64_t n) {
  hwy::Sorter sorter;
  sorter(keys, static_cast<size_t>(n), hwy::SortAscending());
}

extern "C" void rs_vqsort_u32(uint32_t *keys, int64_t n) {
  hwy::Sorter sorter;
  sorter(keys, static_cast<size_t>(n), hwy::SortAscending());
}
