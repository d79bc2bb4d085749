/* What SQLite itself takes per call row on this machine: the floor under
 * `cutap export --format sqlite` (issue #27 asks every export for 10 M
 * calls/s "through prepared batched inserts in one transaction").
 *
 *   build/bench/sqlite_floor N DB
 *
 * Makes DB with the export's calls table (cli/export/sqlite_calls.h: the
 * same statement, its references unenforced as in the export), the same
 * pragmas (no journal, no syncs, 64 MiB cache), one transaction, one
 * prepared statement, and inserts N rows of a typical traced call (a
 * cuCtxGetCurrent: its argument word, decoded text and status), bound as
 * the export binds them; nothing is read or formatted. Prints the seconds
 * and rows per second. SQLite is loaded at run time as the command loads
 * it (cli/sqlite_dl.c, $CUTAP_SQLITE_LIB); exit 77 where it is missing. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "export/sqlite_calls.h"
#include "sqlite_dl.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N DB\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    const char *why = NULL;
    const struct sqlite_dl *sq = sqlite_dl_load(&why);
    if (!sq) {
        fprintf(stderr, "sqlite_floor: %s\n", why);
        return 77;
    }
    unlink(argv[2]);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    double t0 = now();
    int rc = sq->open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sq->exec(db,
                      "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;" SQLITE_CALLS_TABLE
                      "BEGIN",
                      NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sq->prepare_v2(db, SQLITE_CALLS_INSERT, -1, &st, NULL);
    static const char args[] = "0x7fff578a01c0", dec[] = "pctx=0x7fff578a01c0\xe2\x86\x92" "0xc0ffee00";
    for (long i = 0; i < n && rc == SQLITE_OK; i++) {
        sq->bind_int64(st, 1, i + 1);
        sq->bind_int64(st, 2, 1);
        sq->bind_int64(st, 3, 437932 + 83 * i);
        sq->bind_int64(st, 4, 45);
        sq->bind_text(st, 5, "driver", -1, SQLITE_STATIC);
        sq->bind_int64(st, 6, 1);
        sq->bind_int(st, 7, 0);
        sq->bind_int64(st, 8, 0);
        sq->bind_text(st, 9, args, (int)sizeof args - 1, SQLITE_STATIC);
        sq->bind_null(st, 10);
        sq->bind_null(st, 11);
        sq->bind_text(st, 12, "CUDA_SUCCESS", -1, SQLITE_STATIC);
        sq->bind_text(st, 13, dec, -1, SQLITE_STATIC);
        sq->bind_null(st, 14);
        sq->bind_null(st, 15);
        rc = sq->step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sq->reset(st);
    }
    if (rc == SQLITE_OK)
        rc = sq->exec(db, "COMMIT", NULL, NULL, NULL);
    if (st)
        sq->finalize(st);
    if (rc != SQLITE_OK)
        fprintf(stderr, "sqlite_floor: %s\n", db ? sq->errmsg(db) : "cannot open");
    if (db)
        sq->close(db);
    double t = now() - t0;
    if (rc == SQLITE_OK)
        printf("%.3f s %.2f M rows/s\n", t, (double)n / t / 1e6);
    return rc == SQLITE_OK ? 0 : 1;
}
