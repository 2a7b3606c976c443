/* The C++ translation unit the simulator compiles for a user kernel: the shim header,
 * a #line directive so messages and __FILE__ / __LINE__ point into the user's text, the
 * user's source with its `extern __shared__` declarations rewritten, and the entry stub.
 *
 * `extern __shared__ T name[];` (dynamic shared memory, which every such declaration
 * aliases) cannot be done by the shim's macros alone: it becomes a thread-local reference
 * to the block's dynamic shared buffer, on the same line. */
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_kernel.h"
#include "core/error.h"

/* ---- rewriting the source -------------------------------------------------------------- */

static int rs_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *rs_find_token(const char *s, const char *from, const char *word) {
  size_t w = strlen(word);
  for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
    if ((p == s || !rs_ident(p[-1])) && !rs_ident(p[w])) return p;
  return NULL;
}

/* Append `decl` (blanked text of one declaration, without its ';') minus the words and
 * groups that are not part of the element type. Returns the declared name in name. */
static rs_status rs_dynamic_shared_type(const char *decl, size_t len, rs_textbuf *type, char *name, size_t name_len) {
  const char *bracket = memchr(decl, '[', len);
  if (!bracket) return RS_ERR_NOT_FOUND;
  const char *e = bracket;
  while (e > decl && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n')) e--;
  const char *n0 = e;
  while (n0 > decl && rs_ident(n0[-1])) n0--;
  if (n0 == e || (size_t)(e - n0) >= name_len) return RS_ERR_NOT_FOUND;
  memcpy(name, n0, (size_t)(e - n0));
  name[e - n0] = '\0';
  const char *p = decl;
  while (p < n0) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
      continue;
    }
    const char *w = p;
    while (p < n0 && rs_ident(*p)) p++;
    if (p == w) p++; /* punctuation: '*', '::', ... */
    size_t wl = (size_t)(p - w);
    if ((wl == 6 && !strncmp(w, "extern", 6)) || (wl == 10 && !strncmp(w, "__shared__", 10))) continue;
    if ((wl == 9 && !strncmp(w, "__align__", 9)) || (wl == 7 && !strncmp(w, "alignas", 7)) ||
        (wl == 13 && !strncmp(w, "__attribute__", 13))) {
      /* skip the parenthesized group: the reference carries no alignment of its own */
      while (p < n0 && *p != '(') p++;
      int depth = 0;
      for (; p < n0; p++) {
        if (*p == '(') depth++;
        if (*p == ')' && --depth == 0) {
          p++;
          break;
        }
      }
      continue;
    }
    RS_TRY(rs_textbuf_add(type, " ", 1));
    RS_TRY(rs_textbuf_add(type, w, wl));
  }
  return RS_OK;
}

/* The user's source with each `extern __shared__ T name[];` turned into a thread-local
 * reference to the block's dynamic shared memory, on the same line. */
static rs_status rs_rewrite(const rs_kernel_source *src, rs_textbuf *out, int *refs) {
  const char *s = src->blanked, *text = src->text;
  size_t copied = 0;
  for (const char *at = rs_find_token(s, s, "__shared__"); at; at = rs_find_token(s, at + 1, "__shared__")) {
    const char *d0 = at;
    while (d0 > s && d0[-1] != ';' && d0[-1] != '{' && d0[-1] != '}') d0--;
    while (*d0 == ' ' || *d0 == '\t' || *d0 == '\n' || *d0 == '\r') d0++;
    const char *d1 = strchr(at, ';');
    if (!d1 || (size_t)(d0 - s) < copied) continue;
    if (!rs_find_token(s, d0, "extern") || rs_find_token(s, d0, "extern") > at) continue;
    rs_textbuf type = {0};
    char name[128];
    rs_status st = rs_dynamic_shared_type(d0, (size_t)(d1 - d0), &type, name, sizeof name);
    if (st == RS_ERR_NOT_FOUND) {
      rs_textbuf_free(&type);
      continue; /* not an array: the compiler will complain in its own words */
    }
    if (st == RS_OK) st = rs_textbuf_add(out, text + copied, (size_t)(d0 - s) - copied);
    if (st == RS_OK)
      st = rs_textbuf_addf(out,
                        "static thread_local%s (&%s)[] = *reinterpret_cast<%s (*)[]>(::rs_sim_rt::rt->dynamic_shared());",
                        type.data, name, type.data);
    for (const char *p = d0; st == RS_OK && p < d1; p++)
      if (*p == '\n') st = rs_textbuf_add(out, "\n", 1);
    rs_textbuf_free(&type);
    RS_TRY(st);
    (*refs)++;
    copied = (size_t)(d1 - s) + 1;
  }
  return rs_textbuf_add(out, text + copied, strlen(text) - copied);
}

/* The stub with @NAME@, @BARRIER@ and @DYNREFS@ filled in. */
static rs_status rs_entry(const rs_kernel_source *src, int refs, rs_textbuf *out) {
  for (const char *p = rs_sim_entry_text; *p;) {
    if (!strncmp(p, "@NAME@", 6)) {
      RS_TRY(rs_textbuf_add(out, src->name, strlen(src->name)));
      p += 6;
    } else if (!strncmp(p, "@DYNREFS@", 9)) {
      RS_TRY(rs_textbuf_addf(out, "%d", refs));
      p += 9;
    } else if (!strncmp(p, "@BARRIER@", 9)) {
      RS_TRY(rs_textbuf_add(out, src->uses_barrier ? "1" : "0", 1));
      p += 9;
    } else {
      RS_TRY(rs_textbuf_add(out, p, 1));
      p++;
    }
  }
  return RS_OK;
}

rs_status sim_kernel_translation_unit(const rs_kernel_source *src, rs_textbuf *out) {
  RS_TRY(rs_textbuf_addf(out, "#include \"rs_sim_shim.h\"\n#line 1 \"%s\"\n", src->file));
  int refs = 0;
  RS_TRY(rs_rewrite(src, out, &refs));
  RS_TRY(rs_textbuf_add(out, "\n", 1));
  return rs_entry(src, refs, out);
}
