/* Where execvp would find a file: the first executable of that name on
 * PATH, for the exec notes of the process registry (the library's exec
 * wrappers, src/front/exec.c, and `cutap trace` for its own command). */
#ifndef CUTAP_PATH_SEARCH_H
#define CUTAP_PATH_SEARCH_H
#include <stddef.h>

/* file itself when it holds a '/', is NULL or is found nowhere; else buf. */
const char *cutap_path_search(const char *file, char *buf, size_t size);

#endif
