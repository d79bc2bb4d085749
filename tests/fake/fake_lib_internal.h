/* The fake runtime and libraries used by the tests (no GPU needed), one
 * shared object per layer: $(BUILD)/fakelibs/<soname>, built from
 * tests/fake/generated/fake_<layer>.c (gen/lib_fake_generator.py), this
 * core (tests/fake/fake_lib_core.c) and the behaviour of a few functions
 * (tests/fake/fake_lib_special.c), compiled with -DFAKE_LIB_<layer>.
 *
 * Each fake has its own copy of the core: its own counts and its own "last
 * call" per thread, indexed by the CUTAP_ID_ values of its functions (ids
 * are unique across layers, so a call that reached the wrong library shows
 * up as a wrong id). Everything but the functions of the layer and
 * fake_lib_api is hidden, and the fakes are linked -Bsymbolic, so a fake
 * never calls another fake's core. Tests reach the core through
 * dlsym(handle, "fake_lib_api"). */
#ifndef FAKE_LIB_INTERNAL_H
#define FAKE_LIB_INTERNAL_H
#include "fake_internal.h"

#define FAKE_HIDDEN __attribute__((visibility("hidden")))
#define FAKE_LIB_MAX_WORDS 40   /* argument words kept per call (cudnnNormalizationBackward has 33) */

/* From the generated file of the layer. */
extern const char *const fake_lib_layer FAKE_HIDDEN;
extern const uint32_t fake_lib_first FAKE_HIDDEN, fake_lib_n FAKE_HIDDEN;
extern const char *const fake_lib_names[] FAKE_HIDDEN;
extern void *const fake_lib_addresses[] FAKE_HIDDEN;

FAKE_HIDDEN uint64_t fake_lib_call(uint32_t id, const uint64_t *a, unsigned n);

/* A function with behaviour: gets the argument words, returns the result
 * word. Registered by fake_lib_special.c for its layer. */
typedef uint64_t (*fake_lib_special_fn)(const uint64_t *a);
struct fake_lib_special {
    uint32_t id;
    fake_lib_special_fn fn;
};
extern const struct fake_lib_special fake_lib_specials[] FAKE_HIDDEN;
extern const unsigned fake_lib_nspecials FAKE_HIDDEN;

/* Test interface of one fake library. */
struct fake_lib_api {
    const char *layer;
    uint32_t first, n;                                /* ids first .. first + n - 1 */
    uint64_t (*count)(uint32_t id);                   /* calls of id so far */
    unsigned (*last)(uint32_t *id, uint64_t *args);   /* this thread's last call: its words */
    void (*set_result)(uint32_t id, int on, uint64_t result);   /* force (on) or unforce the result */
    void *(*real_address)(const char *name);          /* the fake's own function, or NULL */
    int (*last_stack_aligned)(void);
};
FAKE_EXPORT const struct fake_lib_api *fake_lib_api(void);
typedef const struct fake_lib_api *(*fake_lib_api_fn)(void);
#endif
