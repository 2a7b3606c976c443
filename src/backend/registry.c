/* The one registry: which backends this build has. */
#include <stddef.h>
#include "backend/backend.h"

static const rs_backend_desc *const rs_backends[] = {
    &rs_backend_sim,
#ifdef RS_HAVE_CUDA
    &rs_backend_cuda,
#endif
};

const rs_backend_desc *rs_backend_get(rs_backend_kind kind) {
  for (size_t i = 0; i < sizeof rs_backends / sizeof rs_backends[0]; i++) {
    const rs_backend_desc *d = rs_backends[i];
    if (d->kind == kind) return d->version == RS_BACKEND_DESC_VERSION ? d : NULL;
  }
  return NULL;
}
