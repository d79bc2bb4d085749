/* Small helpers shared by the subcommands. */
#include <string.h>

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

const char *filter_check(const char *expr)
{
    if (!*expr)
        return "empty filter";
    const char *p = expr;
    while (1) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && *p == '!') {
            p++;
            n--;
        }
        if (!n)
            return "empty term";
        if (n >= 255)
            return "term longer than 254 characters";
        if (n >= 6 && !strncmp(p, "layer=", 6) &&
            !((n == 12 && !strncmp(p + 6, "driver", 6)) || (n == 12 && !strncmp(p + 6, "hidden", 6))))
            return "layer= takes driver or hidden";
        if (!e)
            return NULL;
        p = e + 1;
    }
}
