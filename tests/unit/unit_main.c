/* The runner of the C unit tests (unit.h). */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

extern const struct unit_suite unit_suite_filter_expr, unit_suite_trace_text, unit_suite_common, unit_suite_nv_ioctl,
    unit_suite_integrity, unit_suite_textfmt, unit_suite_older_modes, unit_suite_follow, unit_suite_memo, unit_suite_record_check;
static const struct unit_suite *const suites[] = {&unit_suite_filter_expr, &unit_suite_trace_text, &unit_suite_common,
                                                  &unit_suite_nv_ioctl, &unit_suite_integrity, &unit_suite_textfmt,
                                                  &unit_suite_older_modes, &unit_suite_follow, &unit_suite_memo, &unit_suite_record_check};

struct unit_state unit_state;

void unit_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (!unit_state.failed++)
        printf("FAIL %s/%s\n", unit_state.suite, unit_state.test);
    printf("    %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* Whether SUITE/TEST is selected by one of the patterns (SUITE or
 * SUITE/TEST globs); all are when there is none. */
static int selected(int argc, char **argv, const char *suite, const char *test)
{
    char full[256];
    snprintf(full, sizeof full, "%s/%s", suite, test);
    if (argc == 0)
        return 1;
    for (int i = 0; i < argc; i++)
        if (!fnmatch(argv[i], suite, 0) || !fnmatch(argv[i], full, 0))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int list = argc > 1 && !strcmp(argv[1], "--list");
    unsigned run = 0, failed = 0;
    argc -= 1 + list;
    argv += 1 + list;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t s = 0; s < sizeof suites / sizeof *suites; s++)
        for (const struct unit_test *t = suites[s]->tests; t->name; t++) {
            if (!selected(argc, argv, suites[s]->name, t->name))
                continue;
            run++;
            if (list) {
                printf("%s/%s\n", suites[s]->name, t->name);
                continue;
            }
            unit_state = (struct unit_state){suites[s]->name, t->name, 0, 0};
            t->fn();
            if (!unit_state.checks)
                unit_fail(__FILE__, __LINE__, "the test made no check");
            if (unit_state.failed)
                failed++;
            else
                printf("ok   %s/%s (%u checks)\n", suites[s]->name, t->name, unit_state.checks);
        }
    if (list)
        return run ? 0 : 2;
    printf("unit: %u tests, %u failed\n", run, failed);
    return !run ? 2 : failed ? 1 : 0;
}
