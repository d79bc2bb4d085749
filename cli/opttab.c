/* Every option of every command, in one table: the commands parse their
 * arguments from it (cli_getopt), `cutap help --options` prints it, the
 * bash completion (contrib/cutap.bash) asks it, and the test
 * cli_options_everywhere checks that each option is in its command's
 * --help, in the man page's section of that command and in the docs page
 * of that command. An option is added here, or no command takes it. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SEL "report dump export"   /* the read-time selection (CLI_SELECT_HELP) */
#define RUN "trace stat"

const struct cli_opt cli_opts[] = {
    /* trace, stat, run */
    {"trace", "output", 'o', required_argument, "DIR"},
    {"stat", "output", 'o', required_argument, "FILE"},
    {RUN, "filter", 'e', required_argument, "FILTER"},
    {RUN, "runtime", 'R', required_argument, "all|symbols|cupti"},
    {"stat", "time-all", 'T', no_argument, NULL},
    {"stat", "force", 'F', no_argument, NULL},
    {"trace", "no-nvtx", 'N', no_argument, NULL},
    {"trace", "stuck", 'K', required_argument, "S"},
    {"trace", "ring", 'g', required_argument, "SIZE"},
    {"trace", "delay", 'y', required_argument, "S"},
    {"trace", "duration", 'u', required_argument, "S"},
    {"trace", "capture-range", 'c', required_argument, "WHAT"},
    {"trace", "until-error", 'E', required_argument, "FILTER"},
    {"trace stat run", "inject", 'J', required_argument, "SPEC"},
    {"trace", "stack", 'S', required_argument, "FILTER"},
    {"trace", "sync-launches", 'Y', required_argument, "FILTER"},
    {"trace", "print", 'P', optional_argument, "FILE"},
    {"trace report", "gpu", 'G', no_argument, NULL},
    {"trace", "no-gpu", CLI_OPT_NO_GPU, no_argument, NULL},
    {"trace", "ioctl-params", CLI_OPT_IOCTL_PARAMS, no_argument, NULL},
    /* report */
    {"report", "format", 'f', required_argument, "text|csv|json"},
    {"report", "by", 'b', required_argument, "process|thread|rank|object|layer"},
    {"report", "tree", 't', no_argument, NULL},
    {"report", "sort", 'Q', required_argument, "self|total|calls|avg|max|med|errors|name"},
    {"report", "top", 'n', required_argument, "N"},
    {"report dump", "failed", 'F', no_argument, NULL},
    {"report", "errors", 'E', no_argument, NULL},
    {"report", "requests", 'R', no_argument, NULL},
    {"report", "env", 'V', no_argument, NULL},
    /* dump */
    {"dump", "pid", 'p', required_argument, "P"},
    {"dump", "tid", 'I', required_argument, "T"},
    {"dump", "min-duration", 'D', required_argument, "D"},
    {"dump", "absolute", 't', no_argument, NULL},
    {"dump", "no-demangle", 'n', no_argument, NULL},
    /* export */
    {"export", "format", 'f', required_argument, "perfetto|perfetto-proto|sqlite|jsonl|parquet"},
    {"export", "output", 'o', required_argument, "FILE"},
    {"export", "force", 'F', no_argument, NULL},
    {"export", "text", CLI_OPT_TEXT, no_argument, NULL},
    /* the read-time selection */
    {SEL, "filter", 'e', required_argument, "FILTER"},
    {SEL, "from", CLI_OPT_FROM, required_argument, "S"},
    {SEL, "to", CLI_OPT_TO, required_argument, "S"},
    /* ps */
    {"ps", "format", 'f', required_argument, "text|json"},
    {"ps", "stuck", 's', required_argument, "S"},
    {"ps", "watch", 'w', no_argument, NULL},
    {"ps", "interval", 'i', required_argument, "S"},
    {"ps", "pid", 'p', required_argument, "PID"},
    /* every command */
    {"trace stat run report dump export ps freeze", "help", 'h', no_argument, NULL},
    {NULL, NULL, 0, 0, NULL},
};

/* The one-letter forms: an option whose value is one of these letters
 * also answers to -LETTER in the commands listed. */
static const struct {
    char c;
    const char *cmds;
} shorts[] = {{'o', RUN " export"}, {'e', RUN " " SEL}, {'t', "report dump"}, {'f', "report export"},
               {'b', "report"}, {'p', "dump"}, {'n', "dump"}, {'h', NULL}};

const char *const cli_commands[] = {"trace", "stat", "report", "dump", "export", "ps", "freeze", "run", NULL};

/* Whether word is one of the space-separated words of list. */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

int cli_opt_short(const struct cli_opt *o, const char *cmd)
{
    for (size_t i = 0; i < sizeof shorts / sizeof *shorts; i++)
        if (o->val == shorts[i].c && (!shorts[i].cmds || in_list(shorts[i].cmds, cmd)))
            return o->val;
    return 0;
}

int cli_opt_of(const struct cli_opt *o, const char *cmd)
{
    return in_list(o->cmds, cmd);
}

/* The long options and the short string of cmd, built once. */
static const char *built_for;
static struct option built_long[64];
static char built_short[64];

static void build(const char *cmd, const char *lead)
{
    if (built_for && !strcmp(built_for, cmd))
        return;
    size_t nl = 0, ns = 0;
    ns += (size_t)snprintf(built_short, sizeof built_short, "%s", lead);
    for (const struct cli_opt *o = cli_opts; o->name; o++) {
        if (!cli_opt_of(o, cmd))
            continue;
        if (nl + 1 >= sizeof built_long / sizeof *built_long || ns + 4 >= sizeof built_short) {
            fprintf(stderr, "cutap: internal error: the option table of %s is too long\n", cmd);
            exit(2);
        }
        built_long[nl++] = (struct option){o->name, o->has_arg, NULL, o->val};
        if (cli_opt_short(o, cmd)) {
            built_short[ns++] = (char)o->val;
            if (o->has_arg == required_argument)
                built_short[ns++] = ':';
            else if (o->has_arg == optional_argument)
                built_short[ns++] = ':', built_short[ns++] = ':';
        }
    }
    built_long[nl] = (struct option){NULL, 0, NULL, 0};
    built_short[ns] = 0;
    built_for = cmd;
}

int cli_getopt(int argc, char **argv, const char *cmd, const char *lead)
{
    build(cmd, lead);
    /* an option of another command: said as such, not as unknown (where
     * getopt would parse argv[optind] next: not inside a cluster of short
     * options, whose element does not start with "--") */
    if (optind > 0 && optind < argc && !strncmp(argv[optind], "--", 2) && argv[optind][2]) {
        const char *a = argv[optind] + 2;
        size_t n = strcspn(a, "=");
        int ours = 0;
        const struct cli_opt *other = NULL;
        for (const struct cli_opt *o = cli_opts; o->name; o++)
            if (strlen(o->name) == n && !strncmp(o->name, a, n)) {
                if (cli_opt_of(o, cmd))
                    ours = 1;
                else if (!other)
                    other = o;
            }
        if (!ours && other) {
            char first[32];
            snprintf(first, sizeof first, "%.*s", (int)strcspn(other->cmds, " "), other->cmds);
            fprintf(stderr, "cutap %s: --%.*s is an option of cutap %s%s\n", cmd, (int)n, a, first,
                    strchr(other->cmds, ' ') ? " (and others)" : "");
            optind++;
            return '?';
        }
    }
    return getopt_long(argc, argv, built_short, built_long, NULL);
}

/* cutap help --options [CMD]: "CMD -o, --output=DIR" per line, every
 * command's or one's. */
int cli_print_options(const char *only)
{
    int found = 0;
    for (const char *const *c = cli_commands; *c; c++) {
        if (only && strcmp(only, *c))
            continue;
        found = 1;
        for (const struct cli_opt *o = cli_opts; o->name; o++) {
            if (!cli_opt_of(o, *c))
                continue;
            printf("%s ", *c);
            if (cli_opt_short(o, *c))
                printf("-%c, ", o->val);
            printf("--%s", o->name);
            if (o->has_arg == required_argument)
                printf("=%s", o->arg);
            else if (o->has_arg == optional_argument)
                printf("[=%s]", o->arg);
            putchar('\n');
        }
    }
    if (!found) {
        fprintf(stderr, "cutap help: unknown command '%s'\n", only);
        return 2;
    }
    return 0;
}
