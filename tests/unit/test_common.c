/* src/common's lookups shared by the library and the command: known
 * export tables by UUID (export_tables.c) and the PATH search of the exec
 * notes (path_search.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_tables.h"
#include "path_search.h"
#include "unit.h"

TESTCASE(known_tables_by_uuid)
{
    static const unsigned char cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                             0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
    static const unsigned char cls[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                          0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
    const struct cutap_known_table *t = cutap_known_table(cudart);
    CHECK(t != NULL);
    CHECK_STR(t ? t->name : NULL, "CUDART_INTERFACE");
    CHECK_INT(t ? t->nslots_nosize : -1, 0);
    t = cutap_known_table(cls);
    CHECK_STR(t ? t->name : NULL, "CONTEXT_LOCAL_STORAGE");
    CHECK_INT(t ? t->nslots_nosize : -1, 3);              /* no size word: its slots counted */
    CHECK_MEM(t ? t->uuid : cudart, cls, 16);
}

TESTCASE(fake_driver_tables_known)
{
    /* the fake driver's tables (gen/specs/hidden.py): one with a size word,
     * one with two slots and none */
    static const unsigned char sized[16] = {0xfa, 0x4e, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const unsigned char nosize[16] = {0xfa, 0x4e, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    const struct cutap_known_table *t = cutap_known_table(sized);
    CHECK_STR(t ? t->name : NULL, "FAKE_SIZED");
    CHECK_INT(t ? t->nslots_nosize : -1, 0);
    t = cutap_known_table(nosize);
    CHECK_STR(t ? t->name : NULL, "FAKE_NOSIZE");
    CHECK_INT(t ? t->nslots_nosize : -1, 2);
}

TESTCASE(unknown_table)
{
    unsigned char u[16] = {0};
    CHECK(cutap_known_table(u) == NULL);
    static const unsigned char near[16] = {0xfa, 0x4e, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    CHECK(cutap_known_table(near) == NULL);              /* every byte counts */
}

/* A directory with an executable "prog" and a non-executable "data". */
static char dir[64];
static int make_dir(void)
{
    char p[128];
    FILE *f;
    strcpy(dir, "/tmp/cutap-unit.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(p, sizeof p, "%s/prog", dir);
    if (!(f = fopen(p, "w")) || fclose(f) || chmod(p, 0755))
        return -1;
    snprintf(p, sizeof p, "%s/data", dir);
    if (!(f = fopen(p, "w")) || fclose(f) || chmod(p, 0644))
        return -1;
    return 0;
}
static void remove_dir(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/prog", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/data", dir);
    unlink(p);
    rmdir(dir);
}

TESTCASE(path_search)
{
    char buf[256], want[128], path[256];
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    CHECK_INT(make_dir(), 0);
    snprintf(path, sizeof path, "/nonexistent:%s:/bin", dir);
    setenv("PATH", path, 1);
    snprintf(want, sizeof want, "%s/prog", dir);
    CHECK_STR(cutap_path_search("prog", buf, sizeof buf), want);      /* the first executable */
    CHECK_STR(cutap_path_search("data", buf, sizeof buf), "data");    /* not executable: itself */
    CHECK_STR(cutap_path_search("nosuch", buf, sizeof buf), "nosuch");
    CHECK_STR(cutap_path_search("./prog", buf, sizeof buf), "./prog"); /* a '/': itself */
    CHECK(cutap_path_search(NULL, buf, sizeof buf) == NULL);
    CHECK_STR(cutap_path_search("prog", buf, 8), "prog");              /* no room for the path */
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    } else
        unsetenv("PATH");
    remove_dir();
}

TESTLIST_BEGIN(common)
    TESTENTRY(known_tables_by_uuid)
    TESTENTRY(fake_driver_tables_known)
    TESTENTRY(unknown_table)
    TESTENTRY(path_search)
TESTLIST_END()
