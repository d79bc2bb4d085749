/* Small helpers shared by the subcommands. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *layer_str(int layer)
{
    return layer == 1 ? "hidden" : "driver";
}

void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\u%04x", *p);   /* bytes, not UTF-8: traces hold raw C strings */
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}


int load_operand(int argc, char **argv, const char *usage, struct trace *tr)
{
    if (optind != argc - 1) {
        fputs(usage, stderr);
        return 2;
    }
    return tr_load(tr, argv[optind]) ? 1 : 0;
}

/* calloc that never returns NULL: out of memory ends the command. */
void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    return p;
}
