#ifndef EXACT_LIB_INTERNAL_H
#define EXACT_LIB_INTERNAL_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "../fake/fake_lib_internal.h"

struct exact_case {
    const char *name;
    int (*run)(void *h);
};
struct exact_lib_layer {
    const char *name, *soname;
    const struct exact_case *cases;
    unsigned ncases;
};
extern const struct exact_lib_layer exact_lib_layers[];
extern const unsigned exact_lib_nlayers;

void *exact_lib_ptr(unsigned k);
void *exact_lib_sym(void *h, const char *name);
uint64_t exact_lib_force(uint32_t id, uint64_t result);
int exact_lib_check(const char *name, uint32_t id, const uint64_t *want, unsigned n, uint64_t got, uint64_t forced,
                    int has_result);
#endif
