// examples/kernel_reduce.cu - two ways to sum an array on the GPU (the seeds' lesson).
#include <resident_device.h>

// 1. A tree in shared memory: each block of 256 threads sums its 256 elements, 256 -> 128
//    -> ... -> 1, and writes one partial sum. The barrier is OUTSIDE the `if`: every
//    thread of the block must reach every __syncthreads(), also those with nothing to add.
extern "C" __global__ void block_sum(const float *a, float *partial, long long n) {
  __shared__ float sm[256];
  unsigned tid = threadIdx.x;
  long long i = RS_GLOBAL_ID();
  sm[tid] = i < n ? a[i] : 0.0f;  // tail threads put a zero
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) sm[tid] += sm[tid + stride];
    __syncthreads();  // outside the if
  }
  if (tid == 0) partial[blockIdx.x] = sm[0];
}

// 2. One atomic addition per thread: short, correct, and slow - every thread queues on the
//    same address (176 ms for 100M floats on an H200, against 0.7 ms for the tree).
extern "C" __global__ void total_atomic(const float *a, float *out, long long n) {
  long long i = RS_GLOBAL_ID();
  if (i < n) atomicAdd(out, a[i]);
}

// The seeds' bug, kept for the simulator to catch: the barrier inside the `if` is reached
// only by the threads below `stride`, so the others leave the block while those wait - a
// hang on a GPU, a named error in the simulator.
extern "C" __global__ void block_sum_divergent(const float *a, float *partial, long long n) {
  __shared__ float sm[256];
  unsigned tid = threadIdx.x;
  long long i = RS_GLOBAL_ID();
  sm[tid] = i < n ? a[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      sm[tid] += sm[tid + stride];
      __syncthreads();  // WRONG: inside the if
    }
  }
  if (tid == 0) partial[blockIdx.x] = sm[0];
}
