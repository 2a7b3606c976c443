/* Internal: what the indexing, searching and set ops (src/ops/take.c, mask.c, search.c,
 * sets.c) share: index checks, the one data-dependent read (a count), C-order flat
 * copies, and the gather / scatter runner over the backend's `index` entry. */
#ifndef RS_OPS_INDEX_INTERNAL_H
#define RS_OPS_INDEX_INTERNAL_H

#include "ops/ops_internal.h"

/* An int64 value of a device or host array (element 0 of a 0-d or 1-element view) brought
 * to the host: the implicit copy the ledger records with cause `who`. */
rs_status rs_index_read_count(int64_t *out, const rs_array *a, rs_stream *stream, const char *who);

/* indices of an integer dtype, each in [-n, n) (RS_ERR_DTYPE, RS_ERR_INDEX with the
 * offending extreme): one read of their min and max (rs_index_read_count's kind). */
rs_status rs_index_check(const rs_array *idx, int64_t n, rs_stream *stream, const char *who);

/* A C-contiguous array of dtype with a's values (a itself, retained, when it already is
 * one and `fresh` is 0; else a converted copy where a is). */
rs_status rs_index_dense(rs_array **out, const rs_array *a, rs_dtype dtype, int fresh, rs_stream *stream,
                         const char *who);

/* A 1-d C-ordered copy (or view) of a's elements: a flattened. */
rs_status rs_index_flat(rs_array **out, const rs_array *a, rs_stream *stream, const char *who);

/* The iteration of a gather / scatter (native/plans_index.h): `shape` of ndim dims is
 * vals' shape; data_dim[k] / idx_dim[k] is the dim of data / idx iteration dim k walks (-1:
 * none; a length-1 dim under a longer iteration dim broadcasts); `axis` is data's indexed
 * dim. */
typedef struct rs_index_geom {
  int ndim;
  int64_t shape[RS_MAX_DIMS];
  int data_dim[RS_MAX_DIMS], idx_dim[RS_MAX_DIMS];
  int axis;
} rs_index_geom;

/* gather (scatter 0: vals = data[idx]) or scatter (1: data[idx] = vals; 2: the same with
 * idx known distinct, as a mask's positions) with int64 idx already checked;
 * vals has the geometry's shape and data's dtype; for a gather vals shares no memory with
 * data or idx, for a scatter vals and idx share none with data. */
rs_status rs_index_run(int scatter, const rs_index_geom *g, rs_array *data, const rs_array *idx, rs_array *vals,
                       rs_stream *stream, const char *who);

/* values broadcast to g's shape as data's dtype (cast "same_kind"), in memory apart from
 * data: a broadcast view of values when it already is one, else a copy. */
rs_status rs_index_values(rs_array **out, const rs_array *values, const rs_array *data, const rs_index_geom *g,
                          rs_stream *stream, const char *who);

/* The gather of take / take_along_axis / mask reads into *io (rs_ops_result's io), the
 * indices checked first unless `checked`. */
rs_status rs_index_gather(rs_array **io, rs_array *data, const rs_array *indices, const rs_index_geom *g,
                          int checked, rs_stream *stream, const char *who);

/* take's geometry: a.shape[:axis] + idx.shape + a.shape[axis+1:] (RS_ERR_SHAPE past
 * RS_MAX_DIMS dims). */
rs_status rs_index_take_geom(rs_index_geom *g, const rs_array *data, int axis, const rs_array *idx, const char *who);

/* 1 when two arrays may share memory (the same buffer). */
int rs_index_share(const rs_array *a, const rs_array *b);

/* Finish an op that computed `tmp`: when tmp is not target, target = tmp (cast same_kind). */
rs_status rs_index_deliver(rs_array *target, rs_array *tmp, rs_stream *stream);

/* A bool flag per element of a (a != 0) compacted to positions in C order: positions (int64,
 * where a is, exact length) and their count, read back once (cause `who`). */
rs_status rs_index_nonzero_flat(rs_array **positions, int64_t *count, const rs_array *a, rs_stream *stream,
                                const char *who);

#endif
