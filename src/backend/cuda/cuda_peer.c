/* Copies between devices. Peer access is enabled once per ordered pair where the devices
 * allow it (cudaDeviceCanAccessPeer), from the destination's side so the copy engine
 * there reads the source directly; where they do not, cudaMemcpyPeerAsync still works and
 * the driver stages the bytes through the host. *direct tells the caller which. */
#include <pthread.h>
#include "backend/cuda/cuda_internal.h"

#define RS_PEER_MAX 64 /* devices whose pairs are remembered; more are asked each time */

static pthread_mutex_t rs_peer_lock = PTHREAD_MUTEX_INITIALIZER;
/* 0 not yet asked, 1 enabled, 2 not possible */
static unsigned char rs_peer_state[RS_PEER_MAX][RS_PEER_MAX];

static rs_status rs_peer_enable(int dst_dev, int src_dev, int *direct) {
  *direct = 0;
  if (dst_dev == src_dev) {
    *direct = 1;
    return RS_OK;
  }
  int remembered = dst_dev < RS_PEER_MAX && src_dev < RS_PEER_MAX;
  pthread_mutex_lock(&rs_peer_lock);
  unsigned char known = remembered ? rs_peer_state[dst_dev][src_dev] : 0;
  rs_status st = RS_OK;
  if (known == 0) {
    int can = 0;
    cudaError_t err = cudaDeviceCanAccessPeer(&can, dst_dev, src_dev);
    if (err != cudaSuccess) {
      st = rs_cuda_fail(err, "cudaDeviceCanAccessPeer(%d, %d)", dst_dev, src_dev);
    } else if (can) {
      /* enabled from dst_dev: the current device is dst_dev (rs_cuda_enter) */
      err = cudaDeviceEnablePeerAccess(src_dev, 0);
      if (err == cudaErrorPeerAccessAlreadyEnabled) { /* another library did it: fine */
        (void)cudaGetLastError();
        err = cudaSuccess;
      }
      if (err != cudaSuccess) st = rs_cuda_fail(err, "cudaDeviceEnablePeerAccess(%d from %d)", src_dev, dst_dev);
    }
    known = st == RS_OK ? (can ? 1 : 2) : 0;
    if (remembered && known) rs_peer_state[dst_dev][src_dev] = known;
  }
  pthread_mutex_unlock(&rs_peer_lock);
  *direct = known == 1;
  return st;
}

rs_status rs_cuda_copy_peer_async(rs_backend *dst_b, void *dst, rs_backend *src_b, const void *src, size_t bytes,
                                  void *stream, int *direct) {
  int d = 0;
  if (direct) *direct = 0;
  if (bytes == 0) return RS_OK;
  RS_CUDA_ENTER(dst_b);
  RS_TRY(rs_peer_enable(dst_b->device, src_b->device, &d));
  RS_CUDA_CALL(cudaMemcpyPeerAsync(dst, dst_b->device, src, src_b->device, bytes, (cudaStream_t)stream),
               "cudaMemcpyPeerAsync(%p on device %d <- %p on device %d, %zu bytes, stream %p)", dst, dst_b->device,
               src, src_b->device, bytes, stream);
  if (direct) *direct = d;
  return RS_OK;
}
