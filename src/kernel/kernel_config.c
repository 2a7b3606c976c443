/* Launch configuration: grids and blocks computed from occupancy where the caller left
 * them at 0 (never a silent 1x1), every limit checked before anything is queued, and
 * launches that leave the device idle over a large array flagged. */
#include <stdio.h>
#include "core/checked.h"
#include "core/error.h"
#include "kernel/kernel_internal.h"
#include "ledger/ledger_hooks.h"

/* Below this many elements an idle device costs too little to be worth a warning. */
#define RS_IDLE_MIN_ELEMENTS 65536

#define RS_WARP 32

/* The best block size for shared_bytes (largest with the best occupancy) and the smallest
 * with that same occupancy, cached per kernel for the last shared_bytes asked. */
static rs_status rs_best_blocks(rs_kernel *k, size_t shared_bytes, int *best, int *smallest) {
  uint64_t packed = atomic_load_explicit(&k->occupancy_cache, memory_order_relaxed);
  if (packed != 0 && shared_bytes < ((uint64_t)1 << 32) && (packed >> 32) == shared_bytes) {
    *best = (int)((packed >> 16) & 0xffff);
    *smallest = (int)(packed & 0xffff);
    return RS_OK;
  }
  int top = k->attrs.max_threads_per_block;
  if (top > RS_WARP) top -= top % RS_WARP;
  int best_bs = 0, small_bs = 0;
  long best_threads = 0;
  for (int bs = top; bs >= 1; bs = bs > RS_WARP ? bs - RS_WARP : 0) {
    int blocks = 0;
    RS_TRY(k->kb->occupancy(k->ctx->be, k->fn, bs, shared_bytes, &blocks));
    long threads = (long)blocks * bs;
    if (threads > best_threads) {
      best_threads = threads;
      best_bs = small_bs = bs;
    } else if (threads == best_threads && threads > 0) {
      small_bs = bs;
    }
    if (bs <= RS_WARP) break;
  }
  if (best_threads == 0)
    return rs_fail(RS_ERR_LAUNCH,
                   "kernel '%s': no block size fits on a multiprocessor with %zu bytes of dynamic shared "
                   "memory per block",
                   k->name, shared_bytes);
  if (shared_bytes < ((uint64_t)1 << 32))
    atomic_store_explicit(&k->occupancy_cache,
                          ((uint64_t)shared_bytes << 32) | ((uint64_t)best_bs << 16) | (uint64_t)small_bs,
                          memory_order_relaxed);
  *best = best_bs;
  *smallest = small_bs;
  return RS_OK;
}

/* A computed dimension is 1-D: the others must be left at 0 or 1. */
static rs_status rs_check_rest(const unsigned *v, const char *what, const rs_kernel *k) {
  if (v[1] > 1 || v[2] > 1)
    return rs_fail(RS_ERR_LAUNCH,
                   "kernel '%s': %s[0] = 0 asks for a computed 1-D %s, but %s[1] = %u and %s[2] = %u",
                   k->name, what, what, what, v[1], what, v[2]);
  return RS_OK;
}

rs_status rs_kconfig_resolve(rs_kernel *k, const rs_launch_config *cfg, rs_kernel_dims *d) {
  const rs_kernel_attrs *a = &k->attrs;
  d->shared_bytes = cfg->shared_bytes;
  if (cfg->shared_bytes > a->dynamic_shared_optin)
    return rs_fail(RS_ERR_LAUNCH,
                   "kernel '%s': %zu bytes of dynamic shared memory is over the limit of %zu bytes per "
                   "block (the device allows %zu in all; the kernel's static __shared__ variables take %zu)",
                   k->name, cfg->shared_bytes, a->dynamic_shared_optin,
                   a->dynamic_shared_optin + a->static_shared_bytes, a->static_shared_bytes);
  if (cfg->elements < 0)
    return rs_fail(RS_ERR_LAUNCH, "kernel '%s': elements = %lld is negative", k->name,
                   (long long)cfg->elements);
  if (cfg->block[0] == 0) {
    RS_TRY(rs_check_rest(cfg->block, "block", k));
    int best = 0, smallest = 0;
    RS_TRY(rs_best_blocks(k, cfg->shared_bytes, &best, &smallest));
    int bs = best;
    /* Fewer blocks than multiprocessors leaves some idle: use smaller blocks (down to the
     * smallest as good) so every multiprocessor gets one. */
    int64_t mps = a->multiprocessors > 0 ? a->multiprocessors : 1;
    if (cfg->elements > 0 && rs_ceil_div_i64(cfg->elements, best) < mps) {
      int64_t per = rs_ceil_div_i64(cfg->elements, mps);
      per = (per + RS_WARP - 1) / RS_WARP * RS_WARP;
      bs = per < smallest ? smallest : per > best ? best : (int)per;
    }
    d->block[0] = (unsigned)bs;
    d->block[1] = d->block[2] = 1;
  } else {
    for (int i = 0; i < 3; i++) d->block[i] = cfg->block[i] ? cfg->block[i] : 1;
  }
  uint64_t threads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
  for (int i = 0; i < 3; i++)
    if (d->block[i] > a->max_block[i])
      return rs_fail(RS_ERR_LAUNCH, "kernel '%s': block %ux%ux%u: dimension %d is over the device's limit of %u",
                     k->name, d->block[0], d->block[1], d->block[2], i, a->max_block[i]);
  if (threads > (uint64_t)a->max_threads_per_block)
    return rs_fail(RS_ERR_LAUNCH,
                   "kernel '%s': block %ux%ux%u = %llu threads is over the kernel's limit of %d threads per "
                   "block on this device",
                   k->name, d->block[0], d->block[1], d->block[2], (unsigned long long)threads,
                   a->max_threads_per_block);
  if (cfg->grid[0] == 0) {
    RS_TRY(rs_check_rest(cfg->grid, "grid", k));
    if (cfg->elements <= 0)
      return rs_fail(RS_ERR_LAUNCH,
                     "kernel '%s': grid[0] = 0 asks for a grid that covers cfg.elements, but elements is 0 "
                     "(give the element count, or a grid)",
                     k->name);
    uint64_t blocks = (uint64_t)rs_ceil_div_i64(cfg->elements, (int64_t)threads);
    if (blocks > a->max_grid[0])
      return rs_fail(RS_ERR_LAUNCH, "kernel '%s': %lld elements need %llu blocks of %llu threads, over the limit of %u",
                     k->name, (long long)cfg->elements, (unsigned long long)blocks, (unsigned long long)threads,
                     a->max_grid[0]);
    d->grid[0] = (unsigned)blocks;
    d->grid[1] = d->grid[2] = 1;
  } else {
    for (int i = 0; i < 3; i++) d->grid[i] = cfg->grid[i] ? cfg->grid[i] : 1;
    for (int i = 0; i < 3; i++)
      if (d->grid[i] > a->max_grid[i])
        return rs_fail(RS_ERR_LAUNCH, "kernel '%s': grid %ux%ux%u: dimension %d is over the device's limit of %u",
                       k->name, d->grid[0], d->grid[1], d->grid[2], i, a->max_grid[i]);
  }
  return RS_OK;
}

/* Dynamic shared memory over the kernel's default limit needs the backend's opt-in
 * (before the occupancy question, whose answer depends on it); it is asked once per new
 * maximum. Over the opt-in limit, rs_kconfig_resolve reports the error. */
rs_status rs_kconfig_grant_shared(rs_kernel *k, size_t bytes) {
  if (bytes <= k->attrs.dynamic_shared_limit || bytes > k->attrs.dynamic_shared_optin) return RS_OK;
  size_t granted = atomic_load_explicit(&k->shared_granted, memory_order_acquire);
  if (bytes <= granted) return RS_OK;
  rs_status st = k->kb->set_shared_limit(k->ctx->be, k->fn, bytes);
  if (st != RS_OK) return rs_fail_prefix(RS_ERR_LAUNCH, "kernel '%s': ", k->name);
  while (granted < bytes &&
         !atomic_compare_exchange_weak_explicit(&k->shared_granted, &granted, bytes, memory_order_release,
                                                memory_order_acquire)) {
  }
  return RS_OK;
}

void rs_kconfig_check_idle(rs_kernel *k, const rs_kernel_dims *d, int64_t elements) {
  if (elements < RS_IDLE_MIN_ELEMENTS) return;
  uint64_t threads = (uint64_t)d->grid[0] * d->grid[1] * d->grid[2] * d->block[0] * d->block[1] * d->block[2];
  uint64_t capacity = (uint64_t)(k->attrs.multiprocessors > 0 ? k->attrs.multiprocessors : 1) *
                      (uint64_t)(k->attrs.max_threads_per_multiprocessor > 0 ? k->attrs.max_threads_per_multiprocessor
                                                                               : 1);
  uint64_t wanted = (uint64_t)elements < capacity ? (uint64_t)elements : capacity;
  if (threads >= (uint64_t)elements || threads * 2 >= wanted) return;
  atomic_fetch_add_explicit(&k->idle_launches, 1, memory_order_relaxed);
  int expected = 0;
  if (!atomic_compare_exchange_strong(&k->idle_logged, &expected, 1)) return;
  rs_log_line("kernel '%s': grid %ux%ux%u x block %ux%ux%u = %llu threads over %lld elements keeps at most %.1f%% of "
         "the device's %llu resident threads busy; leave grid[0] and block[0] at 0 to size the launch from "
         "occupancy (reported once per kernel)",
         k->name, d->grid[0], d->grid[1], d->grid[2], d->block[0], d->block[1], d->block[2],
         (unsigned long long)threads, (long long)elements, 100.0 * (double)threads / (double)capacity,
         (unsigned long long)capacity);
}

rs_status rs_kernel_resolve_config(const rs_kernel *k, const rs_launch_config *cfg, rs_launch_config *out) {
  RS_TRY(rs_kernel_check(k, "rs_kernel_resolve_config"));
  if (!cfg || !out) return rs_fail(RS_ERR_NULL_POINTER, "rs_kernel_resolve_config: NULL argument");
  rs_kernel_dims d;
  /* Only the occupancy cache and the shared memory grant change, both idempotent. */
  RS_TRY(rs_kconfig_grant_shared((rs_kernel *)k, cfg->shared_bytes));
  RS_TRY(rs_kconfig_resolve((rs_kernel *)k, cfg, &d));
  *out = *cfg;
  for (int i = 0; i < 3; i++) {
    out->grid[i] = d.grid[i];
    out->block[i] = d.block[i];
  }
  return RS_OK;
}
