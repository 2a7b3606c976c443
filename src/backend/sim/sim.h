/* Internal: what the CPU simulator exports to the rest of the library (built-in ops and
 * user kernels that run on the simulator).
 *
 * Device memory of the simulator is real host storage handed out under a tag that makes
 * the address non-canonical, so host code that dereferences a device pointer faults as
 * it would on a GPU. Code that runs "on the device" (stream tasks, kernels) turns such a
 * pointer into a usable address with rs_sim_translate. Pointer arithmetic on tagged
 * pointers is fine: the tag lives in bits no offset reaches.
 */
#ifndef RS_BACKEND_SIM_H
#define RS_BACKEND_SIM_H

#include <stdint.h>
#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The usable host address behind a device pointer. Untagged pointers (mapped, managed
 * or plain host memory, which both sides reach) come back unchanged; NULL stays NULL.
 * Thread-safe, no lookup. */
void *rs_sim_translate(const void *device_ptr);

/* 1 if p carries the simulator's device tag (device memory, possibly offset). */
int rs_sim_is_device_ptr(const void *p);

/* Queue run(arg) on a stream (NULL = the legacy default stream) with the ordering rules
 * of every other piece of stream work. cleanup(arg), if not NULL, runs on the worker
 * right after run and before the work counts as complete, so a synchronize that
 * returns has seen it. On failure nothing was queued and neither function is called:
 * the caller still owns arg. Thread-safe. */
rs_status rs_sim_enqueue(rs_backend *b, void *stream, void (*run)(void *arg), void *arg,
                         void (*cleanup)(void *arg));

#ifdef __cplusplus
}
#endif
#endif
