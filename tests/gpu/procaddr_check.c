/* Checks cutap's cuGetProcAddress version table (generated from the
 * headers, tests/gpu/generated/procaddr_table.tsv) against a real driver,
 * and reports exports that share one address (aliases). Runs WITHOUT cutap.
 *   procaddr_check TABLE.tsv EXPORTS.txt
 * Prints mismatches and a summary line; exit 0 when all rows match. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*gpa_fn)(const char *, void **, int, uint64_t, int *);

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    gpa_fn gpa = h ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
    if (!gpa) {
        fprintf(stderr, "procaddr_check: no driver: %s\n", dlerror());
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    char line[512];
    int rows = 0, bad = 0;
    while (f && fgets(line, sizeof line, f)) {
        char base[200], fl[16], exp[200];
        int ver;
        if (line[0] == '#' || sscanf(line, "%199s %d %15s %199s", base, &ver, fl, exp) != 4)
            continue;
        rows++;
        void *p = NULL;
        int st = -1;
        int r = gpa(base, &p, ver, strcmp(fl, "-") ? 2 : 0, &st);
        void *want = dlsym(h, exp);
        Dl_info i;
        const char *got = p && dladdr(p, &i) && i.dli_sname ? i.dli_sname : "(null)";
        if (r || !p || p != want) {
            printf("MISMATCH %s v%d %s: driver gives %s (r=%d st=%d), table says %s%s\n", base, ver, fl, got, r, st, exp,
                   want ? "" : " (not exported)");
            bad++;
        }
    }
    /* Aliases: two exported names, one address. */
    FILE *e = fopen(argv[2], "r");
    static char names[1024][128];
    static void *addr[1024];
    int n = 0, aliases = 0;
    while (e && n < 1024 && fgets(line, sizeof line, e))
        if (sscanf(line, "%127s", names[n]) == 1 && strncmp(names[n], "cudbg", 5))
            addr[n] = dlsym(h, names[n]), n++;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (addr[a] && addr[a] == addr[b]) {
                printf("ALIAS %s = %s\n", names[a], names[b]);
                aliases++;
            }
    int drv = 0;
    int (*ver)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    if (ver)
        ver(&drv);
    printf("procaddr_check: driver %d, %d table rows, %d mismatches, %d aliases among %d exports\n", drv, rows, bad,
           aliases, n);
    return bad != 0;
}
