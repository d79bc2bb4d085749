#ifndef EXACT_INTERNAL_H
#define EXACT_INTERNAL_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "../fake/fake_internal.h"

struct exact_case {
    const char *name;
    int (*run)(void *h);
};
extern const struct exact_case exact_cases[];
extern const unsigned exact_ncases;
int exact_missing(const char *name);
int exact_forced_result(uint32_t id);
int exact_check(const char *name, uint32_t id, const uint64_t *want, unsigned n, int got, int forced);
#endif
