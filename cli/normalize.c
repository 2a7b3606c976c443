#include "cli/normalize.h"

rs_status rs_normalize_exercise(rs_array *x, double *worst_row_error) {
  rs_array *rows = NULL, *sums = NULL, *err = NULL, *worst = NULL;
  int64_t shape[2] = {-1, 5};
  int axis = 1;
  rs_status st = rs_sort_into(x, x, NULL);
  if (st == RS_OK) st = rs_array_reshape(&rows, x, 2, shape);
  if (st == RS_OK) st = rs_sum(&sums, rows, 1, &axis, 1, NULL);
  if (st == RS_OK) st = rs_divide_into(rows, rows, sums, NULL); /* (n/5, 5) / (n/5, 1), in place */
  if (st == RS_OK) st = rs_sum_into(sums, rows, 1, &axis, 1, NULL);
  if (st == RS_OK) st = rs_add_scalar(&err, sums, rs_scalar_float(-1), NULL);
  if (st == RS_OK) st = rs_unary_into(err, RS_OP_ABS, err, NULL);
  if (st == RS_OK) st = rs_max(&worst, err, 0, NULL, 0, NULL);
  if (st == RS_OK) st = rs_array_item_double(worst, NULL, worst_row_error, NULL);
  rs_array_release(rows);
  rs_array_release(sums);
  rs_array_release(err);
  rs_array_release(worst);
  return st;
}
