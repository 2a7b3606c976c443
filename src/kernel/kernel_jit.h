/* Internal: the kernel layer's jit service (src/backend/jit.h), which the ops layer hands
 * to backends in its plans. */
#ifndef RS_KERNEL_JIT_H
#define RS_KERNEL_JIT_H

#include "backend/jit.h"

extern const rs_jit_service rs_kernel_jit;

#endif
