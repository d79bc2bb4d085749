/* A small in-process test harness (after frida-gum's TESTLIST/TESTCASE):
 * a suite is a file of TESTCASE(name) functions and one list of them,
 *
 *     TESTCASE(empty_filter) { CHECK_INT(cutap_filter_eval("", "x", 0, NULL), -1); }
 *     TESTLIST_BEGIN(filter_expr)
 *         TESTENTRY(empty_filter)
 *     TESTLIST_END()
 *
 * named in unit_main.c's list of suites. A failed CHECK prints where and
 * what, and the test goes on (its other checks still run); a test that
 * made no check fails too. `unit [SUITE[/TEST]]...` runs the tests named
 * (shell globs; all of them when none), `unit --list` lists them; exit
 * status 1 when a test failed, 2 when none matched. The cases of
 * tests/cases/unit run one suite each. */
#ifndef CUTAP_UNIT_H
#define CUTAP_UNIT_H

#include <stdio.h>
#include <string.h>

struct unit_test {
    const char *name;
    void (*fn)(void);
};
struct unit_suite {
    const char *name;
    const struct unit_test *tests;
};

/* The state of the test that runs: checks made and failed. */
extern struct unit_state {
    const char *suite, *test;
    unsigned checks, failed;
} unit_state;

void unit_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TESTCASE(name) static void test_##name(void)
#define TESTENTRY(name) {#name, test_##name},
#define TESTLIST_BEGIN(suite) \
    const struct unit_suite unit_suite_##suite = {#suite, (const struct unit_test[]){
#define TESTLIST_END() {NULL, NULL}}};

/* CHECK(cond); CHECK_INT(got, want); CHECK_STR(got, want) (NULL allowed);
 * CHECK_MEM(got, want, n). */
#define CHECK(cond) \
    (unit_state.checks++, (cond) ? (void)0 : unit_fail(__FILE__, __LINE__, "%s", #cond))
#define CHECK_INT(got, want)                                                                           \
    do {                                                                                               \
        long long g_ = (long long)(got), w_ = (long long)(want);                                       \
        unit_state.checks++;                                                                           \
        if (g_ != w_)                                                                                  \
            unit_fail(__FILE__, __LINE__, "%s is %lld, want %s (%lld)", #got, g_, #want, w_);          \
    } while (0)
#define CHECK_STR(got, want)                                                                           \
    do {                                                                                               \
        const char *g_ = (got), *w_ = (want);                                                          \
        unit_state.checks++;                                                                           \
        if (g_ != w_ && (!g_ || !w_ || strcmp(g_, w_)))                                                \
            unit_fail(__FILE__, __LINE__, "%s is \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)",        \
                      w_ ? w_ : "(null)");                                                             \
    } while (0)
#define CHECK_MEM(got, want, n)                                                                        \
    do {                                                                                               \
        unit_state.checks++;                                                                           \
        if (memcmp((got), (want), (n)))                                                                \
            unit_fail(__FILE__, __LINE__, "%s differs from %s in its first %zu bytes", #got, #want,    \
                      (size_t)(n));                                                                    \
    } while (0)

#endif
