/* The pieces of CUDA C generation shared by the elementwise generator (cuda_ops_codegen.c)
 * and the reduction generator (cuda_ops_codegen_reduce.c). */
#ifndef RS_CUDA_CODEGEN_H
#define RS_CUDA_CODEGEN_H
#include "core/dtype_rules.h"
#include "core/textbuf.h"
#include "native/native.h"

/* The generated text to *out (the caller frees it), or the buffer's sticky failure. */
rs_status rs_cuda_cg_finish(rs_textbuf *b, char **out);
/* The prelude's type and function-suffix names of a value class: rs_d / d, ... */
const char *rs_cuda_cg_cls_type(rs_cls c);
const char *rs_cuda_cg_cls_letter(rs_cls c);
/* dtypes narrower than their class: values are wrapped / rounded after each step */
int rs_cuda_cg_narrow(rs_dtype d);
/* The expression converting x as the cast instruction in says (NumPy's rules). */
void rs_cuda_cg_cast_expr(rs_textbuf *b, const rs_ew_instr *in, const char *x);

#endif
