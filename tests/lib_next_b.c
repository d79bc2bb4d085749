#define _GNU_SOURCE
#include <dlfcn.h>
int tap_probe(void);
void *next_probe(void);
void *next_cuinit(void);
void *next_missing(void);
int tap_probe(void) { return 2; }
void *next_probe(void) { return dlsym(RTLD_NEXT, "tap_probe"); }
/* A shim's classic: the "real" cuInit after itself. */
void *next_cuinit(void) { return dlsym(RTLD_NEXT, "cuInit"); }
void *next_missing(void) { return dlsym(RTLD_NEXT, "tap_no_such_symbol"); }
