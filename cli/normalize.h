/* The seeds' normalize exercise, written once for `resident bench` and bench/ops. */
#ifndef RS_CLI_NORMALIZE_H
#define RS_CLI_NORMALIZE_H

#include <resident.h>

/* x: 1-d float64 random numbers, a multiple of 5 long, on the host or the device. Sorts x
 * in place, views it as rows of 5, divides each row by its sum in place, and brings back
 * one scalar (an explicit, counted copy): the worst |row sum - 1|. */
rs_status rs_normalize_exercise(rs_array *x, double *worst_row_error);

#endif
