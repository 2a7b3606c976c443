/* Names of the public enums (backend, memory kind, allocator, elementwise op) and their
 * parsing: plain tables that every layer and the configuration use. */
#include <string.h>
#include "core/error.h"
#include "resident/allocator.h"
#include "resident/context.h"
#include "resident/memory.h"
#include "resident/ops.h"

const char *rs_backend_name(rs_backend_kind kind) {
  switch (kind) {
    case RS_BACKEND_AUTO:
      return "auto";
    case RS_BACKEND_CUDA:
      return "cuda";
    case RS_BACKEND_SIM:
      return "sim";
  }
  return "invalid";
}

rs_status rs_backend_from_name(const char *name, rs_backend_kind *out) {
  if (!out || !name) return rs_fail(RS_ERR_NULL_POINTER, "rs_backend_from_name: NULL argument");
  static const rs_backend_kind kinds[] = {RS_BACKEND_AUTO, RS_BACKEND_CUDA, RS_BACKEND_SIM};
  for (size_t i = 0; i < 3; i++)
    if (strcmp(name, rs_backend_name(kinds[i])) == 0) {
      *out = kinds[i];
      return RS_OK;
    }
  return rs_fail(RS_ERR_PARSE, "unknown backend '%s' (expected auto, cuda or sim)", name);
}

const char *rs_mem_kind_name(rs_mem_kind kind) {
  switch (kind) {
    case RS_MEM_DEVICE:
      return "device";
    case RS_MEM_HOST:
      return "host";
    case RS_MEM_PINNED:
      return "pinned";
    case RS_MEM_MAPPED:
      return "mapped";
    case RS_MEM_MANAGED:
      return "managed";
  }
  return "invalid";
}

const char *rs_allocator_name(rs_allocator_kind kind) {
  switch (kind) {
    case RS_ALLOCATOR_POOL:
      return "pool";
    case RS_ALLOCATOR_DIRECT:
      return "direct";
    case RS_ALLOCATOR_ASYNC:
      return "async";
    case RS_ALLOCATOR_USER:
      return "user";
  }
  return "invalid";
}

rs_status rs_allocator_from_name(const char *name, rs_allocator_kind *out) {
  if (!out || !name) return rs_fail(RS_ERR_NULL_POINTER, "rs_allocator_from_name: NULL argument");
  /* "user" needs functions, so it is not a value the environment can give. */
  static const rs_allocator_kind kinds[] = {RS_ALLOCATOR_POOL, RS_ALLOCATOR_DIRECT,
                                            RS_ALLOCATOR_ASYNC};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(name, rs_allocator_name(kinds[i])) == 0) {
      *out = kinds[i];
      return RS_OK;
    }
  return rs_fail(RS_ERR_PARSE, "unknown allocator '%s' (expected pool, direct or async)", name);
}

static const struct {
  const char *name;
  int arity;
} rs_op_table[] = {
#define RS_OP_ROW_(e, name, arity) {name, arity},
    RS_OP_LIST(RS_OP_ROW_)
#undef RS_OP_ROW_
};

const char *rs_op_name(rs_op op) { return (unsigned)op < RS_OP_COUNT ? rs_op_table[op].name : "invalid"; }
int rs_op_arity(rs_op op) { return (unsigned)op < RS_OP_COUNT ? rs_op_table[op].arity : 0; }
