/* Internal: the layout of an rs_ipc_handle (resident/ipc.h), and its checksum. Tests
 * include it to forge handles of other devices and to garble fields. */
#ifndef RS_MEMORY_IPC_WIRE_H
#define RS_MEMORY_IPC_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "backend/backend.h"
#include "resident/ipc.h"

#define RS_IPC_MAGIC 0x50495352u /* "RSIP" */
#define RS_IPC_VERSION 1
#define RS_IPC_MEMORY 1u
#define RS_IPC_EVENT 2u

typedef struct rs_ipc_wire {
  uint32_t magic;
  uint16_t version, backend; /* rs_backend_kind */
  int32_t device, pid, ndim, dtype;
  uint32_t what, pad; /* RS_IPC_MEMORY or RS_IPC_EVENT */
  uint64_t offset;      /* of element 0 from the allocation's base */
  uint64_t alloc_bytes; /* the allocation's size */
  unsigned char mem[RS_BE_IPC_BYTES];
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  uint64_t checksum; /* FNV-1a of every byte before it */
} rs_ipc_wire;
_Static_assert(sizeof(rs_ipc_wire) <= RS_IPC_HANDLE_BYTES, "the wire format fits in the handle");

/* Fill the fields every handle has, with what's kind (backend handle, layout: the caller). */
void rs_ipc_wire_begin(rs_ipc_wire *w, const rs_context *ctx, uint32_t what);
/* Seal w into out (the checksum). */
void rs_ipc_wire_seal(rs_ipc_handle *out, rs_ipc_wire *w);
/* Read h into w and check it (magic, version, checksum, kind, backend, device, exporter). */
rs_status rs_ipc_wire_check(rs_ipc_wire *w, const rs_ipc_handle *h, const rs_context *ctx, uint32_t what,
                            const char *who);

static inline uint64_t rs_ipc_checksum(const void *p, size_t n) {
  const unsigned char *c = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

#endif
