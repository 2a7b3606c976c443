/* Which thread-locals of a kernel object are not shared memory. The shim makes __shared__
 * variables thread-local storage of the object, so the race check watches the object's
 * TLS block; but the block also holds what the compiler and the shim keep per host thread
 * - the guard of a thread-local initialized at run time (the reference of an extern
 * __shared__ declaration) and the current-thread pointer - which every simulated thread
 * of the block touches, unordered, by design. Their offsets come from the object's symbol
 * table (ELF64; elsewhere none are skipped). */
#include <elf.h>
#include <string.h>
#include "backend/sim/sim_kernel.h"

static int skipped(const char *name) {
  return !strncmp(name, "_ZGV", 4) || !strncmp(name, "_ZTH", 4) || !strncmp(name, "_ZTW", 4) ||
         !strcmp(name, "__tls_guard") || !strcmp(name, "_ZN9rs_sim_rt7currentE");
}

void sim_check_tls_skips(sim_kmodule *m, const void *image, size_t bytes) {
  m->ntls_skip = 0;
  const unsigned char *b = image;
  if (bytes < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64) return;
  Elf64_Ehdr eh;
  memcpy(&eh, b, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > bytes || eh.e_shnum > (bytes - eh.e_shoff) / sizeof(Elf64_Shdr))
    return;
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh, st;
    memcpy(&sh, b + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh.e_shnum || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    memcpy(&st, b + eh.e_shoff + sh.sh_link * sizeof st, sizeof st);
    if (sh.sh_offset > bytes || sh.sh_size > bytes - sh.sh_offset || st.sh_offset > bytes ||
        st.sh_size > bytes - st.sh_offset)
      return;
    const char *names = (const char *)b + st.sh_offset;
    for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym) && m->ntls_skip < 16; k++) {
      Elf64_Sym sym;
      memcpy(&sym, b + sh.sh_offset + k * sizeof sym, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_name >= st.sh_size) continue;
      const char *name = names + sym.st_name;
      if (!memchr(name, '\0', st.sh_size - sym.st_name) || !skipped(name)) continue;
      m->tls_skip[m->ntls_skip].off = (uint32_t)sym.st_value;
      m->tls_skip[m->ntls_skip].len = (uint32_t)(sym.st_size ? sym.st_size : 1);
      m->ntls_skip++;
    }
  }
}
