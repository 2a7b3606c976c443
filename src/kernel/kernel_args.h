/* Internal to src/kernel: checking and packing one launch's arguments. */
#ifndef RS_KERNEL_ARGS_H
#define RS_KERNEL_ARGS_H

#include "kernel/kernel_internal.h"
#include "kernel/launch.h"
#include "resident_device.h"

/* One launch's argument storage, on the launching thread's stack. */
typedef struct rs_kargs {
  void *argv[RS_KERNEL_MAX_PARAMS];            /* argv[i] points at parameter i's value */
  void *ptrs[RS_KERNEL_MAX_PARAMS];            /* pointer parameters' values */
  rs_array_desc descs[RS_KERNEL_MAX_PARAMS]; /* descriptor parameters' values */
  int slot[RS_KERNEL_MAX_PARAMS];              /* parameter -> launch-path array slot, -1 */
  int arg_index[RS_MAX_KERNEL_ARRAYS];         /* array slot -> parameter */
  int64_t largest;                             /* elements of the largest array argument */
} rs_kargs;

/* Check args against k's parameters (RS_ERR_LAUNCH, RS_ERR_DTYPE, RS_ERR_NOT_CONTIGUOUS,
 * ...) and put the arrays into la's slots (la->count, given, read_only, write_only, arg_index). */
rs_status rs_kargs_bind(const rs_kernel *k, int nargs, const rs_arg *args, rs_launch_args *la,
                        rs_kargs *out);

/* After rs_launch_stage_in: fill argv with the device addresses and descriptors. */
void rs_kargs_pack(const rs_kernel *k, const rs_arg *args, const rs_launch_args *la, rs_kargs *out);

#endif
