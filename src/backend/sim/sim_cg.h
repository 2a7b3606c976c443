// cooperative_groups.h of the resident simulator: written as cooperative_groups.h (and
// cooperative_groups/reduce.h) next to every user kernel the simulator compiles, in place
// of the CUDA toolkit's. Thread blocks, tiles of up to 32 threads made by tiled_partition
// (both forms) and coalesced_threads(), with the members real code uses; cg::reduce with
// cg::plus, less, greater, bit_and, bit_or, bit_xor. A tile's shuffles and votes are the
// warp intrinsics of rs_sim_shim.h over the tile's lanes. What is missing is a compile
// error naming it (grid and cluster groups need a cooperative launch).
#ifndef RS_SIM_CG_H
#define RS_SIM_CG_H
#include "rs_sim_shim.h"

namespace cooperative_groups {
namespace rs_detail {
inline unsigned rank() {
  const ::rs_sim_thread *t = ::rs_sim_rt::current;
  return t->thread_idx.x + t->block_dim.x * (t->thread_idx.y + t->block_dim.y * t->thread_idx.z);
}
inline unsigned threads() {
  const ::rs_sim_thread *t = ::rs_sim_rt::current;
  return t->block_dim.x * t->block_dim.y * t->block_dim.z;
}
// A call site of a member function: its caller's file, line and column (where the host
// compiler tells it: GCC before 13 does not).
#if defined(__has_builtin)
#if __has_builtin(__builtin_COLUMN)
#define RS_CG_COLUMN __builtin_COLUMN()
#endif
#endif
#ifndef RS_CG_COLUMN
#define RS_CG_COLUMN 0
#endif
#define RS_CG_AT const char *rs_file = __builtin_FILE(), int rs_line = __builtin_LINE(), int rs_col = RS_CG_COLUMN
#define RS_CG_SITE (::rs_sim_rt::at{rs_file, rs_line, -1 - rs_col})
// The lanes of the tile of `size` lanes that holds the calling thread.
inline unsigned tile_mask(unsigned size) {
  unsigned lane = rank() % 32u, base = lane / size * size;
  return size >= 32 ? 0xffffffffu : ((1u << size) - 1u) << base;
}
}  // namespace rs_detail

class thread_block {
 public:
  void sync(RS_CG_AT) const { RS_CG_SITE.syncthreads(); }
  unsigned thread_rank() const { return rs_detail::rank(); }
  unsigned long long size() const { return rs_detail::threads(); }
  unsigned long long num_threads() const { return rs_detail::threads(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  dim3 dim_threads() const { return group_dim(); }
};
inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block &g, RS_CG_AT) { RS_CG_SITE.syncthreads(); (void)g; }

// A group of `size` consecutive lanes of a warp (a power of two up to 32); the members
// shared by tiles of a size fixed at compile time or chosen at run time.
class rs_tile {
 protected:
  unsigned n_;
  explicit rs_tile(unsigned n) : n_(n) {}
  unsigned mask() const { return rs_detail::tile_mask(n_); }
  unsigned base() const { return rs_detail::rank() % 32u / n_ * n_; }

 public:
  void sync(RS_CG_AT) const { RS_CG_SITE.syncwarp(mask()); }
  unsigned thread_rank() const { return rs_detail::rank() % n_; }
  unsigned long long size() const { return n_; }
  unsigned long long num_threads() const { return n_; }
  unsigned meta_group_rank() const { return rs_detail::rank() / n_; }
  unsigned meta_group_size() const { return (rs_detail::threads() + n_ - 1) / n_; }
  template <class T> T shfl(T v, int src, RS_CG_AT) const { return RS_CG_SITE.shfl_sync(mask(), v, src, (int)n_); }
  template <class T> T shfl_up(T v, unsigned d, RS_CG_AT) const { return RS_CG_SITE.shfl_up_sync(mask(), v, d, (int)n_); }
  template <class T> T shfl_down(T v, unsigned d, RS_CG_AT) const {
    return RS_CG_SITE.shfl_down_sync(mask(), v, d, (int)n_);
  }
  template <class T> T shfl_xor(T v, int m, RS_CG_AT) const { return RS_CG_SITE.shfl_xor_sync(mask(), v, m, (int)n_); }
  int any(int p, RS_CG_AT) const { return RS_CG_SITE.any_sync(mask(), p); }
  int all(int p, RS_CG_AT) const { return RS_CG_SITE.all_sync(mask(), p); }
  // bits by rank in the tile, as CUDA's tiles answer
  unsigned ballot(int p, RS_CG_AT) const { return RS_CG_SITE.ballot_sync(mask(), p) >> base(); }
  template <class T> unsigned match_any(T v, RS_CG_AT) const { return RS_CG_SITE.match_any_sync(mask(), v) >> base(); }
  template <class T> unsigned match_all(T v, int &pred, RS_CG_AT) const {
    return RS_CG_SITE.match_all_sync(mask(), v, &pred) >> base();
  }
};

// tiled_partition(group, n): a tile whose size is known at run time.
class thread_group : public rs_tile {
 public:
  explicit thread_group(unsigned n) : rs_tile(n) {}
};

template <unsigned N, class Parent = void> class thread_block_tile : public rs_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "cooperative_groups::thread_block_tile of more than 32 threads is not supported by the resident "
                "simulator (sizes are powers of two up to 32)");

 public:
  thread_block_tile() : rs_tile(N) {}
  template <class P> thread_block_tile(const thread_block_tile<N, P> &) : rs_tile(N) {}
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
};

template <unsigned N, class P> inline thread_block_tile<N, P> tiled_partition(const P &) {
  return thread_block_tile<N, P>();
}
template <class P> inline thread_group tiled_partition(const P &, unsigned n, RS_CG_AT) {
  if (n < 1 || n > 32 || (n & (n - 1)) != 0)
    ::rs_sim_rt::rt->trap("cooperative_groups::tiled_partition(group, n) with n not a power of two up to 32",
                          rs_file, rs_line);
  return thread_group(n);
}

// The threads of a warp that call it together (__activemask()).
class coalesced_group {
  unsigned m_;
  unsigned lane() const { return rs_detail::rank() % 32u; }
  // the lane of rank r in the group
  unsigned lane_of(unsigned r) const {
    unsigned m = m_;
    for (unsigned i = 0; i < r && m; i++) m &= m - 1;
    return m ? (unsigned)__builtin_ctz(m) : lane();
  }

 public:
  explicit coalesced_group(unsigned m) : m_(m) {}
  void sync(RS_CG_AT) const { RS_CG_SITE.syncwarp(m_); }
  unsigned thread_rank() const { return (unsigned)__builtin_popcount(m_ & ((1u << lane()) - 1u)); }
  unsigned long long size() const { return (unsigned)__builtin_popcount(m_); }
  unsigned long long num_threads() const { return size(); }
  template <class T> T shfl(T v, unsigned src, RS_CG_AT) const { return RS_CG_SITE.shfl_sync(m_, v, (int)lane_of(src)); }
  int any(int p, RS_CG_AT) const { return RS_CG_SITE.any_sync(m_, p); }
  int all(int p, RS_CG_AT) const { return RS_CG_SITE.all_sync(m_, p); }
  unsigned ballot(int p, RS_CG_AT) const {
    unsigned b = RS_CG_SITE.ballot_sync(m_, p), r = 0, k = 0;
    for (unsigned l = 0; l < 32; l++)
      if (m_ >> l & 1u) r |= (b >> l & 1u) << k++;
    return r;
  }
};
inline coalesced_group coalesced_threads(RS_CG_AT) { return coalesced_group(RS_CG_SITE.activemask()); }

// ---- cg::reduce ----
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };
// A tile: a butterfly of shfl_xor, every lane ends with the whole tile's value.
template <class T, class Op> inline T reduce(const rs_tile &g, T v, Op op, RS_CG_AT) {
  for (unsigned long long o = 1; o < g.size(); o <<= 1) v = op(v, g.shfl_xor(v, (int)o, rs_file, rs_line, rs_col));
  return v;
}
// A coalesced group: every rank's value in rank order.
template <class T, class Op> inline T reduce(const coalesced_group &g, T v, Op op, RS_CG_AT) {
  T r = g.shfl(v, 0, rs_file, rs_line, rs_col);
  for (unsigned i = 1; i < g.size(); i++) r = op(r, g.shfl(v, i, rs_file, rs_line, rs_col));
  return r;
}

// ---- what needs a cooperative launch: named when used ----
template <class... A> inline thread_block this_grid(A...) {
  static_assert(::rs_sim_rt::always_false<A...>::value,
                "cooperative_groups::this_grid is not supported by the resident simulator");
  return thread_block();
}
template <class... A> inline thread_block this_cluster(A...) {
  static_assert(::rs_sim_rt::always_false<A...>::value,
                "cooperative_groups::this_cluster is not supported by the resident simulator");
  return thread_block();
}
#undef RS_CG_AT
#undef RS_CG_SITE
}  // namespace cooperative_groups
#endif
