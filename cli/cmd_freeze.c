/* cutap freeze DIR: freeze every traced process of a trace directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char freeze_usage[] =
    "usage: cutap freeze DIR\n"
    "Freezes every process still tracing into DIR (cutap trace, usually with --ring): each stops\n"
    "recording at the next chunk it needs, so nothing it recorded is overwritten any more; later\n"
    "calls are counted. Processes that start afterwards start frozen. The same as SIGUSR2 to the\n"
    "cutap trace command.\n"
    "  -h, --help          this help\n";

int cmd_freeze(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(freeze_usage, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
        return cli_usage_error(freeze_usage, argc < 2 ? "no trace directory given" : argc > 2 ? "one trace directory" : "unknown option '%s'",
                               argv[1]);
    struct stat st;
    if (stat(argv[1], &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cutap: %s: not a trace directory\n", argv[1]);
        return 1;
    }
    int n = cli_freeze_dir(argv[1], CUTAP_FREEZE_REQUEST);
    if (n < 0) {
        fprintf(stderr, "cutap: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    printf("cutap: %d process%s asked to freeze\n", n, n == 1 ? "" : "es");
    return 0;
}
