/* Which backends this build has. */
#include "backend/backend.h"

const rs_backend_vtable *rs_backend_for(rs_backend_kind kind) {
  switch (kind) {
    case RS_BACKEND_SIM:
      return &rs_backend_sim;
    case RS_BACKEND_CUDA:
#ifdef RS_HAVE_CUDA
      return &rs_backend_cuda;
#else
      return NULL;
#endif
    default:
      return NULL;
  }
}
