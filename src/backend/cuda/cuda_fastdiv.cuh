// Internal to the CUDA backend's library kernels: the row of element i (i / n) for
// functors that CUB calls once per element (the by-key scan's keys, the segmented
// reductions' deviations). A 64-bit division per element costs more than reading the
// element; a divisor fixed for a launch divides a 32-bit index in a multiply-high and two
// shifts (Granlund and Montgomery, "Division by invariant integers using
// multiplication", PLDI 1994: the round-up method, exact for every 32-bit divisor and
// dividend). Indices past 32 bits fall back to the plain division.
#ifndef RS_BACKEND_CUDA_FASTDIV_CUH
#define RS_BACKEND_CUDA_FASTDIV_CUH

struct RsRowOf {
  long long n;
  unsigned m, s1, s2;
  bool fast;  // every index < 2^32

  __host__ static RsRowOf make(long long n, long long total) {
    RsRowOf r{n, 0u, 0u, 0u, n > 0 && total <= 0xffffffffLL && n <= 0xffffffffLL};
    if (r.fast) {
      unsigned l = 0;
      while (l < 32 && (1ull << l) < (unsigned long long)n) l++;
      r.m = (unsigned)(((1ull << 32) * ((1ull << l) - (unsigned long long)n)) / (unsigned long long)n + 1);
      r.s1 = l < 1 ? l : 1;
      r.s2 = l > 0 ? l - 1 : 0;
    }
    return r;
  }
  __host__ __device__ __forceinline__ long long operator()(long long i) const {
#ifdef __CUDA_ARCH__
    if (fast) {
      const unsigned x = (unsigned)i, t = __umulhi(m, x);
      return (long long)((t + ((x - t) >> s1)) >> s2);
    }
#endif
    return i / n;
  }
};

#endif
