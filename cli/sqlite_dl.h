/* The part of the SQLite C API that `cutap export --format sqlite` uses,
 * found at run time: the command is built without sqlite3.h and without
 * linking libsqlite3, and loads libsqlite3.so.0 (or $CUTAP_SQLITE_LIB)
 * only when that format is asked for.
 *
 * The types and constants below are SQLite's own, with the values its
 * documentation gives (https://sqlite.org/c3ref/): they are part of its
 * stable ABI. The functions are reached through struct sqlite_dl, whose
 * members are named after them without the "sqlite3_" prefix; nothing
 * here defines a symbol named sqlite3_*. */
#ifndef CUTAP_SQLITE_DL_H
#define CUTAP_SQLITE_DL_H

typedef struct sqlite3 sqlite3;             /* opaque: a database connection */
typedef struct sqlite3_stmt sqlite3_stmt;   /* opaque: a prepared statement */
typedef long long sqlite_dl_int64;          /* sqlite3_int64 */
typedef void (*sqlite_dl_destructor)(void *);
typedef int (*sqlite_dl_callback)(void *, int, char **, char **);

/* Result codes */
#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_NOMEM 7
#define SQLITE_ROW 100
#define SQLITE_DONE 101

/* sqlite3_open_v2 flags */
#define SQLITE_OPEN_READONLY 0x00000001
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_NOMUTEX 0x00008000   /* the connection is one thread's: no lock per call */
#define SQLITE_OPEN_CREATE 0x00000004

/* sqlite3_bind_text destructors: the text outlives the statement, or
 * SQLite copies it at once. */
#define SQLITE_STATIC ((sqlite_dl_destructor)0)
#define SQLITE_TRANSIENT ((sqlite_dl_destructor)-1)

struct sqlite_dl {
    int (*open_v2)(const char *filename, sqlite3 **db, int flags, const char *vfs);
    int (*close)(sqlite3 *db);
    int (*exec)(sqlite3 *db, const char *sql, sqlite_dl_callback cb, void *arg, char **errmsg);
    int (*prepare_v2)(sqlite3 *db, const char *sql, int nbyte, sqlite3_stmt **stmt, const char **tail);
    int (*bind_int)(sqlite3_stmt *st, int i, int v);
    int (*bind_int64)(sqlite3_stmt *st, int i, sqlite_dl_int64 v);
    int (*bind_null)(sqlite3_stmt *st, int i);
    int (*bind_text)(sqlite3_stmt *st, int i, const char *s, int n, sqlite_dl_destructor d);
    int (*step)(sqlite3_stmt *st);
    int (*reset)(sqlite3_stmt *st);
    int (*finalize)(sqlite3_stmt *st);
    const char *(*errmsg)(sqlite3 *db);
    const char *(*errstr)(int rc);
    int (*system_errno)(sqlite3 *db);   /* SQLite 3.16 and later */
};

/* Loads the library and every function above, once per process. Returns
 * the table, or NULL with *why set to a message (no trailing newline)
 * naming the library and what is missing. */
const struct sqlite_dl *sqlite_dl_load(const char **why);

#endif
