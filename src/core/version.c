/* The running library's version, from the generated header of this build. */
#include "resident/version.h"

const char *rs_version(void) { return RS_VERSION_STRING; }

int rs_version_number(void) { return RS_VERSION_NUMBER; }
