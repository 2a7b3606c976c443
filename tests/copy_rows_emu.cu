// The CUDA row copy kernel (src/backend/cuda/cuda_copy_rows.cu) without a GPU: its
// per-thread code, run by a host loop over the grid the launcher would start, on random
// layouts (itemsizes 1-16, axes permuted, reversed, broadcast, padded, base pointers
// misaligned by 0-15 bytes, 1, 2 or 132 SMs so that broadcast axes get looped in the
// thread, grids smaller than the tiles so that blocks loop) planned by the real planner,
// against a plain loop over the whole destination buffer. The tests of
// tests/test_copy_layouts.c check the same on the GPU; this one runs in every build with
// the CUDA backend, sanitizers included (a misaligned 16-byte access is undefined
// behaviour that UBSan reports).
// usage: copy_rows_emu [seed] [cases]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <cstdarg>
#include "core/error.h"
// the planner's messages go nowhere here: only its plans are under test
rs_status rs_fail(rs_status status, const char *fmt, ...) {
  (void)fmt;
  return status;
}
#include "backend/cuda/cuda_copy_plan.cu"
#include "backend/cuda/cuda_copy_rows.cu"

// the launcher's dispatch, each instance run as a host loop over its grid
struct Emulate {
  unsigned blocks;
  template <typename T>
  void spread(const RowGeometry &g) {
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned lane = 0; lane < (unsigned)kBlock; ++lane) spread_block<T>(g, b, blocks, lane);
  }
  template <typename T, int NI, int NR>
  void rows(const RowGeometry &g) {
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned lane = 0; lane < (unsigned)kBlock; ++lane) row_copy_block<T, NI, NR>(g, b, blocks, lane);
  }
};

int main(int argc, char **argv) {
  std::mt19937_64 rng(argc > 1 ? atoi(argv[1]) : 1);
  int ncases = argc > 2 ? atoi(argv[2]) : 20000;
  auto rnd = [&](int64_t lo, int64_t hi) { return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1)); };
  // the GPU's multiply-high division of rows (host code takes the plain one): the same
  // quotients for random divisors and indices below 2^32
  for (int i = 0; i < 200000; ++i) {
    const long long n = rnd(0, 3) == 0 ? rnd(1, 40) : rnd(1, 0xffffffffLL);
    const RsRowOf r = RsRowOf::make(n, 0xffffffffLL);
    const unsigned x = (unsigned)rng(), t = (unsigned)(((unsigned long long)r.m * x) >> 32);
    const long long q = (long long)((t + ((x - t) >> r.s1)) >> r.s2);
    if (!r.fast || q != (long long)x / n) {
      printf("RsRowOf: %u / %lld gives %lld\n", x, n, q);
      return 1;
    }
  }
  int emulated = 0, hoisted = 0, spread = 0, capped = 0, fails = 0;
  for (int cs = 0; cs < ncases; ++cs) {
    rs_strided_copy c;
    memset(&c, 0, sizeof c);
    const size_t sizes[] = {1, 2, 4, 8, 16};
    c.itemsize = sizes[rnd(0, 4)];
    c.ndim = (int)rnd(0, 4);
    int64_t total = 1;
    for (int k = 0; k < c.ndim; ++k) {
      int64_t r = rnd(0, 99);
      c.shape[k] = r < 3 ? rnd(0, 1) : r < 80 ? rnd(1, 9) : r < 95 ? rnd(10, 70) : rnd(100, 3000);
      total *= c.shape[k];
    }
    int bdim = -1;
    if (c.ndim >= 2 && rnd(0, 3) == 0) {  // a long row and a short broadcast axis: tile's shape,
      c.shape[c.ndim - 1] = rnd(2000, 9000);  // looped in the thread where 1 or 2 SMs are
      bdim = (int)rnd(0, c.ndim - 2);
      c.shape[bdim] = rnd(2, 5);
      total = 1;
      for (int k = 0; k < c.ndim; ++k) total *= c.shape[k];
    }
    // repeat's shape: an inner axis of one word (or two) of one source item, dst in order
    const bool repeat = c.ndim >= 2 && bdim < 0 && c.itemsize < 16 && rnd(0, 5) == 0;
    if (repeat) {
      c.shape[c.ndim - 1] = (int64_t)(16 / c.itemsize) * (rnd(0, 3) == 0 ? 2 : 1);
      total = 1;
      for (int k = 0; k < c.ndim; ++k) total *= c.shape[k];
    }
    if (total > 300000) continue;
    // dst: C-contiguous in a random permutation of axes, maybe reversed, maybe a step
    int perm[8];
    for (int k = 0; k < c.ndim; ++k) perm[k] = k;
    if (!repeat) std::shuffle(perm, perm + c.ndim, rng);
    int64_t dstep = rnd(0, 9) == 0 ? 2 : 1;
    int64_t st = (int64_t)c.itemsize * dstep;
    for (int q = c.ndim - 1; q >= 0; --q) {
      int k = perm[q];
      c.dst_strides[k] = st * (rnd(0, 4) == 0 ? -1 : 1);
      st *= c.shape[k] > 0 ? c.shape[k] : 1;
    }
    // src: its own permutation, signs, broadcasts, padding
    std::shuffle(perm, perm + c.ndim, rng);
    st = (int64_t)c.itemsize * (rnd(0, 9) == 0 ? 3 : 1);
    for (int q = c.ndim - 1; q >= 0; --q) {
      int k = perm[q];
      int64_t r = rnd(0, 9);
      c.src_strides[k] = r < 2 ? 0 : st * (r < 4 ? -1 : 1);
      st *= (c.shape[k] > 0 ? c.shape[k] : 1) + (rnd(0, 5) == 0 ? 1 : 0);
    }
    if (bdim >= 0) c.src_strides[bdim] = 0;
    if (repeat) c.src_strides[c.ndim - 1] = 0;
    // reach of each view
    auto reach = [&](const int64_t *s, int64_t &lo, int64_t &hi) {
      lo = 0; hi = 0;
      for (int k = 0; k < c.ndim; ++k) {
        if (c.shape[k] == 0) continue;
        int64_t e = (c.shape[k] - 1) * s[k];
        if (e < 0) lo += e; else hi += e;
      }
    };
    int64_t dlo, dhi, slo, shi;
    reach(c.dst_strides, dlo, dhi);
    reach(c.src_strides, slo, shi);
    int md = (int)rnd(0, 15), ms = (int)rnd(0, 15);
    if (rnd(0, 2) == 0) md = ms = 0;
    size_t dbytes = (size_t)(dhi - dlo) + c.itemsize + 64, sbytes = (size_t)(shi - slo) + c.itemsize + 64;
    // 16-aligned allocations, offsets on top
    std::vector<uint4> dv(dbytes / 16 + 2), sv(sbytes / 16 + 2);
    char *dbuf = (char *)dv.data(), *sbuf = (char *)sv.data();
    for (size_t i = 0; i < sv.size() * 16; ++i) sbuf[i] = (char)rng();
    for (size_t i = 0; i < dv.size() * 16; ++i) dbuf[i] = (char)rng();
    std::vector<char> want(dbuf, dbuf + dv.size() * 16);
    c.dst = dbuf + 16 + md - dlo;
    c.src = sbuf + 16 + ms - slo;
    // reference
    if (total > 0) {
      int64_t idx[8] = {0};
      for (;;) {
        int64_t dp = 0, sp = 0;
        for (int k = 0; k < c.ndim; ++k) dp += idx[k] * c.dst_strides[k], sp += idx[k] * c.src_strides[k];
        memcpy(want.data() + ((char *)c.dst - dbuf) + dp, (const char *)c.src + sp, c.itemsize);
        int k = c.ndim - 1;
        for (; k >= 0; --k) { if (++idx[k] < c.shape[k]) break; idx[k] = 0; }
        if (k < 0) break;
      }
    }
    RsCopyPlan p;
    if (rs_cuda_copy_plan(&c, p) != RS_OK) { printf("plan failed case %d\n", cs); return 1; }
    if (p.count == 0) continue;
    int sms = rnd(0, 2) == 0 ? 1 : rnd(0, 1) ? 2 : 132;
    RowGeometry g;
    unsigned blocks = 0;
    const uintptr_t rel = reinterpret_cast<uintptr_t>(p.dst) ^ reinterpret_cast<uintptr_t>(p.src);
    if (p.ndim == 1 && p.ds[0] == (int64_t)p.itemsize && p.ss[0] == p.ds[0] && (rel & 15) == 0) {
      memcpy(p.dst, p.src, p.count * p.itemsize);
    } else if (row_geometry(p, sms, g, &blocks)) {
      emulated++;
      // a grid smaller than the launcher's: blocks loop over several tiles, as a grid
      // capped for a copy of terabytes would
      if (blocks > 1 && rnd(0, 3) == 0) blocks = (unsigned)rnd(1, blocks - 1), capped++;
      hoisted += g.nrep > 0;
      spread += g.spread;
      Emulate run{blocks};
      dispatch_items(g, p.itemsize, run);
    } else {
      continue;  // general kernel
    }
    if (memcmp(want.data(), dbuf, want.size()) != 0) {
      size_t i = 0;
      while (want[i] == dbuf[i]) ++i;
      printf("MISMATCH case %d: itemsize %zu ndim %d md %d ms %d sms %d byte %zd; plan ndim %d item %zu nidx %d nrep %d words %lld\n",
             cs, c.itemsize, c.ndim, md, ms, sms, (ssize_t)i - ((char *)c.dst - dbuf), p.ndim, p.itemsize, g.nidx, g.nrep, g.words);
      for (int k = 0; k < c.ndim; ++k) printf("  shape %lld ds %lld ss %lld\n", (long long)c.shape[k], (long long)c.dst_strides[k], (long long)c.src_strides[k]);
      if (++fails > 5) return 1;
    }
  }
  printf("emulated %d (hoisted %d, spread %d, capped grid %d), fails %d\n", emulated, hoisted, spread, capped,
         fails);
  if (hoisted == 0 || spread == 0 || capped == 0) {
    printf("a path of the kernel was never taken: more cases\n");
    return 1;
  }
  return fails != 0;
}
