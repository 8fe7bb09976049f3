/*
 * func_int: what the function library's files share (func.c, the registry
 * and shared helpers; func_<family>.c, the functions and their rows).
 * Engine-internal: included by expr/func*.c only.
 */
#ifndef SL_FUNC_INT_H
#define SL_FUNC_INT_H

#include "expr/func.h"

/* The most functions the registry holds ("did you mean" scans them all). */
#define SL_FUNC_MAX 256

/* Each family's rows (func_<family>.c), and how many. */
extern const sl_func sl_func_agg_rows[];
extern const int sl_func_agg_nrows;
extern const sl_func sl_func_string_rows[];
extern const int sl_func_string_nrows;
extern const sl_func sl_func_null_rows[];
extern const int sl_func_null_nrows;
extern const sl_func sl_func_json_rows[];
/* from_json's schema (argument 1) is read at resolve time, never as a
 * column (sl_func_const_arg). */
bool sl_func_json_const_arg(const sl_expr *call, int i);
extern const int sl_func_json_nrows;
extern const sl_func sl_func_time_rows[];
extern const int sl_func_time_nrows;
extern const sl_func sl_func_window_rows[];
extern const int sl_func_window_nrows;
extern const sl_func sl_func_math_rows[];
extern const int sl_func_math_nrows;
extern const sl_func sl_func_session_rows[];
extern const int sl_func_session_nrows;
extern const sl_func sl_func_array_rows[];
extern const sl_func sl_func_struct_rows[];
extern const int sl_func_struct_nrows;
extern const int sl_func_array_nrows;

/* All args from `from` to a common type (a STRUCT or an ARRAY only when
 * nested: for the functions whose evaluation takes any type); result that
 * type (func_null.c; the math functions use it too). */
int sl_func_res_common(sl_expr *call, int from, bool nested, sl_err *err);

#endif
