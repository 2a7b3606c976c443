/* Internal: advice on large host allocations (host_pages.c). */
#ifndef RS_CORE_HOST_PAGES_H
#define RS_CORE_HOST_PAGES_H

#include <stddef.h>

/* Ask for transparent huge pages on the 2 MiB-aligned part of [p, p + bytes) when it is
 * 4 MiB or more. Advice only: a refusal changes nothing. */
void rs_host_advise_huge(void *p, size_t bytes);

#endif
