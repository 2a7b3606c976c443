/* The parameter list of a __global__ function, read from the source, so a launch can be
 * checked before it runs (count and kind of each argument) and `const T *` parameters
 * are known never to need a copy back.
 *
 * The parser works on blanked text (no comments, literals or preprocessor lines) and
 * knows only what it needs: where a __global__ function's name and parentheses are, the
 * top-level commas of the list, `*`/`[]` for pointers, `const` left of the last `*`, the
 * descriptor types, and the sizes of the usual scalar types. The compiled kernel's own
 * parameter count and sizes are checked against this afterwards. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

#define RS_MAX_TOKENS_PER_PARAM 64

typedef struct rs_tok {
  const char *p;
  int len;
} rs_tok;

static int rs_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The token at or after *pos; len 0 at the end of the text. */
static rs_tok rs_next_tok(const char *s, size_t *pos) {
  size_t i = *pos;
  while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') i++;
  rs_tok t = {s + i, 0};
  if (!s[i]) {
    *pos = i;
    return t;
  }
  if (rs_ident_char(s[i])) {
    size_t j = i;
    while (rs_ident_char(s[j])) j++;
    t.len = (int)(j - i);
  } else if (s[i] == ':' && s[i + 1] == ':') {
    t.len = 2;
  } else {
    t.len = 1;
  }
  *pos = i + (size_t)t.len;
  return t;
}

static int rs_tok_is(rs_tok t, const char *word) {
  return t.len == (int)strlen(word) && strncmp(t.p, word, (size_t)t.len) == 0;
}

static int rs_tok_ident(rs_tok t) { return t.len > 0 && rs_ident_char(t.p[0]) && !(t.p[0] >= '0' && t.p[0] <= '9'); }

/* Skip a balanced group that starts at the open token just read; 0 if unbalanced. */
static int rs_skip_group(const char *s, size_t *pos, char open, char close) {
  int depth = 1;
  for (;;) {
    rs_tok t = rs_next_tok(s, pos);
    if (t.len == 0) return 0;
    if (t.len == 1 && t.p[0] == open) depth++;
    if (t.len == 1 && t.p[0] == close && --depth == 0) return 1;
  }
}

/* Attribute-like words followed by a parenthesized group that is not the parameter list. */
static int rs_is_attribute(rs_tok t) {
  static const char *const words[] = {"__launch_bounds__", "__attribute__", "__maxnreg__",
                                      "__cluster_dims__",  "__declspec",    "alignas",
                                      "__align__",         "__noinline__",  "__forceinline__"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (rs_tok_is(t, words[i])) return 1;
  return 0;
}

static int rs_is_qualifier(rs_tok t) {
  return rs_tok_is(t, "const") || rs_tok_is(t, "volatile") || rs_tok_is(t, "__restrict__") ||
         rs_tok_is(t, "__restrict") || rs_tok_is(t, "restrict") || rs_tok_is(t, "struct") ||
         rs_tok_is(t, "class") || rs_tok_is(t, "typename") || rs_tok_is(t, "std") || rs_tok_is(t, "::") ||
         rs_tok_is(t, "__grid_constant__");
}

/* Words that are part of a type, never a parameter's name. */
static int rs_is_type_word(rs_tok t) {
  static const char *const words[] = {"unsigned", "signed", "short", "long", "int",  "char",
                                      "bool",     "float",  "double", "void", "auto", "__half"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (rs_tok_is(t, words[i])) return 1;
  return rs_is_qualifier(t);
}

typedef struct rs_known_type {
  const char *name;
  rs_scalar_family family;
  size_t size;
} rs_known_type;

static const rs_known_type rs_named_types[] = {
    {"int8_t", RS_FAMILY_INT, 1},        {"int16_t", RS_FAMILY_INT, 2},
    {"int32_t", RS_FAMILY_INT, 4},       {"int64_t", RS_FAMILY_INT, 8},
    {"uint8_t", RS_FAMILY_UINT, 1},      {"uint16_t", RS_FAMILY_UINT, 2},
    {"uint32_t", RS_FAMILY_UINT, 4},     {"uint64_t", RS_FAMILY_UINT, 8},
    {"size_t", RS_FAMILY_UINT, 8},       {"ptrdiff_t", RS_FAMILY_INT, 8},
    {"ssize_t", RS_FAMILY_INT, 8},       {"intptr_t", RS_FAMILY_INT, 8},
    {"uintptr_t", RS_FAMILY_UINT, 8},    {"__half", RS_FAMILY_FLOAT, 2},
    {"half", RS_FAMILY_FLOAT, 2},        {"float2", RS_FAMILY_COMPLEX, 8},
    {"cuFloatComplex", RS_FAMILY_COMPLEX, 8}, {"cuComplex", RS_FAMILY_COMPLEX, 8},
    {"double2", RS_FAMILY_COMPLEX, 16},  {"cuDoubleComplex", RS_FAMILY_COMPLEX, 16},
};

/* CUDA's vector types: name, lanes, and each lane's family and size. A pointer to one
 * takes an array of the lane's dtype whose last axis has that many elements (float4 *:
 * float32 (..., 4)), or, for two floating lanes, a complex array. */
static const struct {
  const char *name;
  int lanes;
  rs_scalar_family family;
  size_t size;
} rs_vector_types[] = {
    {"float2", 2, RS_FAMILY_FLOAT, 4},    {"float3", 3, RS_FAMILY_FLOAT, 4},  {"float4", 4, RS_FAMILY_FLOAT, 4},
    {"double2", 2, RS_FAMILY_FLOAT, 8},   {"double3", 3, RS_FAMILY_FLOAT, 8}, {"double4", 4, RS_FAMILY_FLOAT, 8},
    {"int2", 2, RS_FAMILY_INT, 4},        {"int3", 3, RS_FAMILY_INT, 4},      {"int4", 4, RS_FAMILY_INT, 4},
    {"uint2", 2, RS_FAMILY_UINT, 4},      {"uint3", 3, RS_FAMILY_UINT, 4},    {"uint4", 4, RS_FAMILY_UINT, 4},
    {"short2", 2, RS_FAMILY_INT, 2},      {"ushort2", 2, RS_FAMILY_UINT, 2},  {"char4", 4, RS_FAMILY_INT, 1},
    {"uchar4", 4, RS_FAMILY_UINT, 1},     {"longlong2", 2, RS_FAMILY_INT, 8}, {"ulonglong2", 2, RS_FAMILY_UINT, 8},
};

/* The family and size of a scalar type from its words (qualifiers already removed). */
static void rs_scalar_type(const rs_tok *w, int n, rs_kparam *p) {
  p->family = RS_FAMILY_UNKNOWN;
  p->declared_size = 0;
  p->lanes = 0;
  if (n == 1)
    for (size_t i = 0; i < sizeof rs_vector_types / sizeof rs_vector_types[0]; i++)
      if (rs_tok_is(w[0], rs_vector_types[i].name)) {
        p->lanes = rs_vector_types[i].lanes;
        p->lane_family = rs_vector_types[i].family;
        p->lane_size = rs_vector_types[i].size;
      }
  if (n == 1) {
    for (size_t i = 0; i < sizeof rs_named_types / sizeof rs_named_types[0]; i++) {
      if (rs_tok_is(w[0], rs_named_types[i].name)) {
        p->family = rs_named_types[i].family;
        p->declared_size = rs_named_types[i].size;
        return;
      }
    }
  }
  int is_unsigned = 0, is_signed = 0, shorts = 0, longs = 0, ints = 0, chars = 0, bools = 0, floats = 0,
      doubles = 0;
  for (int i = 0; i < n; i++) {
    if (rs_tok_is(w[i], "unsigned")) is_unsigned++;
    else if (rs_tok_is(w[i], "signed")) is_signed++;
    else if (rs_tok_is(w[i], "short")) shorts++;
    else if (rs_tok_is(w[i], "long")) longs++;
    else if (rs_tok_is(w[i], "int")) ints++;
    else if (rs_tok_is(w[i], "char")) chars++;
    else if (rs_tok_is(w[i], "bool")) bools++;
    else if (rs_tok_is(w[i], "float")) floats++;
    else if (rs_tok_is(w[i], "double")) doubles++;
    else return; /* some other name: unknown */
  }
  if (bools == 1 && n == 1) {
    p->family = RS_FAMILY_BOOL;
    p->declared_size = 1;
  } else if (floats == 1 && n == 1) {
    p->family = RS_FAMILY_FLOAT;
    p->declared_size = 4;
  } else if (doubles == 1 && n == 1) {
    p->family = RS_FAMILY_FLOAT;
    p->declared_size = 8;
  } else if (bools + floats + doubles == 0 && is_unsigned + is_signed <= 1) {
    p->family = is_unsigned ? RS_FAMILY_UINT : RS_FAMILY_INT;
    /* LP64 on the host, and NVRTC follows the host: long is 8 bytes. */
    p->declared_size = chars ? 1 : shorts ? 2 : longs ? 8 : 4;
    if (chars + shorts + (longs > 0) > 1 || longs > 2 || ints > 1) p->family = RS_FAMILY_UNKNOWN;
    if (p->family == RS_FAMILY_UNKNOWN) p->declared_size = 0;
  }
}

static void rs_join(char *out, size_t len, const rs_tok *t, int n, int skip) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (i == skip) continue;
    int w = snprintf(out + used, len - used, "%s%.*s", used ? " " : "", t[i].len, t[i].p);
    if (w < 0 || (size_t)w >= len - used) break;
    used += (size_t)w;
  }
}

/* One parameter from its tokens. */
static rs_status rs_parse_param(const rs_tok *t, int n, rs_kparam *p, int index, const char *fname) {
  memset(p, 0, sizeof *p);
  /* A default argument is not part of the declaration's type. */
  int depth = 0;
  for (int i = 0; i < n; i++) {
    if (t[i].len == 1 && (t[i].p[0] == '(' || t[i].p[0] == '<' || t[i].p[0] == '[')) depth++;
    if (t[i].len == 1 && (t[i].p[0] == ')' || t[i].p[0] == '>' || t[i].p[0] == ']')) depth--;
    if (depth == 0 && t[i].len == 1 && t[i].p[0] == '=') {
      rs_join(p->defval, sizeof p->defval, t + i + 1, n - i - 1, -1);
      n = i;
      break;
    }
  }
  if (n == 0)
    return rs_fail(RS_ERR_COMPILE, "kernel '%s': parameter %d is empty in the source", fname, index);
  /* The name: the identifier before a '[', else the last token when something that is
   * not a qualifier comes before it. */
  int name_at = -1, bracket = -1, last_star = -1;
  depth = 0;
  for (int i = 0; i < n; i++) {
    char c = t[i].len == 1 ? t[i].p[0] : 0;
    if (c == '<' || c == '(') depth++;
    if (c == '>' || c == ')') depth--;
    if (depth == 0 && c == '*') last_star = i;
    if (depth == 0 && c == '[' && bracket < 0) bracket = i;
  }
  if (bracket > 0 && rs_tok_ident(t[bracket - 1]) && !rs_is_type_word(t[bracket - 1])) {
    name_at = bracket - 1;
  } else if (bracket < 0 && n >= 2 && rs_tok_ident(t[n - 1]) && !rs_is_type_word(t[n - 1])) {
    for (int i = 0; i < n - 1; i++)
      if (!rs_is_qualifier(t[i])) name_at = n - 1;
  }
  if (name_at >= 0) snprintf(p->name, sizeof p->name, "%.*s", t[name_at].len, t[name_at].p);
  int type_end = bracket >= 0 ? bracket : n;
  rs_join(p->type, sizeof p->type, t, type_end, name_at);
  if (bracket >= 0 && strlen(p->type) + 3 < sizeof p->type) strcat(p->type, " []");

  if (last_star >= 0 || bracket >= 0) {
    p->kind = RS_PARAM_POINTER;
    /* The pointee is what the last '*' (or the []) points at: const between the previous
     * '*' and it makes the data read-only; a const right of it only fixes the pointer. */
    int end = bracket >= 0 ? bracket : last_star; /* T *x[] points at T *, not at T */
    int begin = 0;
    for (int i = end - 1; i >= 0; i--) {
      if (t[i].len == 1 && t[i].p[0] == '*') {
        begin = i + 1;
        break;
      }
    }
    rs_tok words[RS_MAX_TOKENS_PER_PARAM];
    int nwords = 0;
    for (int i = begin; i < end; i++) {
      if (rs_tok_is(t[i], "const")) p->read_only = 1;
      if (i != name_at && !rs_is_qualifier(t[i]) && nwords < RS_MAX_TOKENS_PER_PARAM) words[nwords++] = t[i];
    }
    /* What it points at, to check an array's dtype - unless it is a pointer itself. */
    if (begin == 0) rs_scalar_type(words, nwords, p);
    return RS_OK;
  }
  rs_tok words[RS_MAX_TOKENS_PER_PARAM];
  int nwords = 0;
  for (int i = 0; i < type_end; i++) {
    if (i == name_at || rs_is_qualifier(t[i])) continue;
    if (rs_tok_is(t[i], "rs_array_desc")) {
      p->kind = RS_PARAM_DESCRIPTOR;
      return RS_OK;
    }
    if (rs_tok_is(t[i], "rs_array_const_desc")) {
      p->kind = RS_PARAM_DESCRIPTOR;
      p->read_only = 1;
      return RS_OK;
    }
    if (nwords < RS_MAX_TOKENS_PER_PARAM) words[nwords++] = t[i];
  }
  p->kind = RS_PARAM_SCALAR;
  rs_scalar_type(words, nwords, p);
  return RS_OK;
}

/* Parse the list after the '(' just read. */
static rs_status rs_parse_list(const char *s, size_t *pos, rs_kparam *params, int *nparams,
                               const char *fname) {
  rs_tok toks[RS_MAX_TOKENS_PER_PARAM];
  int n = 0, count = 0, depth = 0;
  for (;;) {
    rs_tok t = rs_next_tok(s, pos);
    if (t.len == 0)
      return rs_fail(RS_ERR_COMPILE, "kernel '%s': the parameter list is not closed in the source", fname);
    char c = t.len == 1 ? t.p[0] : 0;
    int closing = depth == 0 && c == ')';
    if ((depth == 0 && c == ',') || closing) {
      if (closing && count == 0 && (n == 0 || (n == 1 && rs_tok_is(toks[0], "void")))) break;
      if (count == RS_KERNEL_MAX_PARAMS)
        return rs_fail(RS_ERR_COMPILE, "kernel '%s' has more than %d parameters", fname, RS_KERNEL_MAX_PARAMS);
      RS_TRY(rs_parse_param(toks, n, &params[count], count, fname));
      count++;
      n = 0;
      if (closing) break;
      continue;
    }
    if (c == '(' || c == '<' || c == '[' || c == '{') depth++;
    if (c == ')' || c == '>' || c == ']' || c == '}') depth--;
    if (n == RS_MAX_TOKENS_PER_PARAM)
      return rs_fail(RS_ERR_COMPILE, "kernel '%s': parameter %d is too long to read", fname, count);
    toks[n++] = t;
  }
  *nparams = count;
  return RS_OK;
}

rs_status rs_kparse_params(const char *s, const char *name, rs_kparam *params, int *nparams) {
  /* The name without template arguments or namespaces ("ns::scale<float>" is found as
   * the first __global__ function named scale; the compiler resolves the qualified name). */
  char full[128];
  while (*name == ':') name++;
  snprintf(full, sizeof full, "%s", name);
  char *lt = strchr(full, '<');
  if (lt) *lt = '\0';
  for (size_t n = strlen(full); n > 0 && (full[n - 1] == ' ' || full[n - 1] == '\t'); n--) full[n - 1] = '\0';
  const char *colon = strrchr(full, ':');
  const char *base = colon ? colon + 1 : full;
  while (*base == ' ') base++;

  char seen[512] = "";
  size_t pos = 0;
  for (;;) {
    rs_tok t = rs_next_tok(s, &pos);
    if (t.len == 0) break;
    if (!rs_tok_is(t, "__global__")) continue;
    /* Walk to the function's name: the identifier right before the first '(' that is not
     * an attribute's. */
    rs_tok prev = {0};
    for (;;) {
      rs_tok u = rs_next_tok(s, &pos);
      if (u.len == 0 || (u.len == 1 && (u.p[0] == ';' || u.p[0] == '{'))) break;
      if (u.len == 1 && u.p[0] == '(') {
        if (rs_tok_ident(prev) && rs_is_attribute(prev)) {
          if (!rs_skip_group(s, &pos, '(', ')')) break;
          prev = (rs_tok){0};
          continue;
        }
        if (!rs_tok_ident(prev)) break;
        if (rs_tok_is(prev, base)) return rs_parse_list(s, &pos, params, nparams, name);
        size_t used = strlen(seen);
        if (used + (size_t)prev.len + 3 < sizeof seen)
          snprintf(seen + used, sizeof seen - used, "%s%.*s", used ? ", " : "", prev.len, prev.p);
        break;
      }
      if (u.len == 1 && u.p[0] == '<' && rs_tok_ident(prev)) {
        /* explicit template arguments after the name: k<float>(...) */
        size_t save = pos;
        if (rs_skip_group(s, &pos, '<', '>')) {
          size_t look = pos;
          rs_tok after = rs_next_tok(s, &look);
          if (after.len == 1 && after.p[0] == '(') continue; /* prev stays the name */
        }
        pos = save;
      }
      prev = u;
    }
  }
  if (seen[0])
    return rs_fail(RS_ERR_NOT_FOUND, "the source has no __global__ function '%s' (it has: %s)", name, seen);
  return rs_fail(RS_ERR_NOT_FOUND, "the source has no __global__ function '%s' (it has none)", name);
}
