#!/usr/bin/env python3
"""duckdb_sql.py [--json] SQL...: runs each SQL statement in an in-memory
DuckDB and prints the rows of the last (every value as VARCHAR), tab-separated (NULL as \\N), or as
a JSON list of lists with --json. DuckDB is reached through its C API with
ctypes, from $CUTAP_DUCKDB_LIB (else libduckdb.so): the tests need no
duckdb Python package. Exit status 1 (message on stderr) when a statement
fails; 77 when the library cannot be loaded."""
import ctypes, json, os, sys


class Result(ctypes.Structure):   # duckdb_result (duckdb.h v1.x): 48 bytes
    _fields_ = [("cc", ctypes.c_uint64), ("rc", ctypes.c_uint64), ("rch", ctypes.c_uint64),
                ("cols", ctypes.c_void_p), ("err", ctypes.c_char_p), ("internal", ctypes.c_void_p)]


def main():
    args = sys.argv[1:]
    as_json = args[:1] == ["--json"]
    if as_json:
        args = args[1:]
    try:
        lib = ctypes.CDLL(os.environ.get("CUTAP_DUCKDB_LIB") or "libduckdb.so")
    except OSError as e:
        sys.stderr.write("duckdb_sql.py: %s\n" % e)
        sys.exit(77)
    P = ctypes.c_void_p
    lib.duckdb_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(P)]
    lib.duckdb_connect.argtypes = [P, ctypes.POINTER(P)]
    lib.duckdb_query.argtypes = [P, ctypes.c_char_p, ctypes.POINTER(Result)]
    lib.duckdb_result_error.argtypes = [ctypes.POINTER(Result)]
    lib.duckdb_result_error.restype = ctypes.c_char_p
    lib.duckdb_column_count.argtypes = lib.duckdb_row_count.argtypes = [ctypes.POINTER(Result)]
    lib.duckdb_column_count.restype = lib.duckdb_row_count.restype = ctypes.c_uint64
    lib.duckdb_value_is_null.argtypes = [ctypes.POINTER(Result), ctypes.c_uint64, ctypes.c_uint64]
    lib.duckdb_value_is_null.restype = ctypes.c_bool
    lib.duckdb_value_varchar.argtypes = [ctypes.POINTER(Result), ctypes.c_uint64, ctypes.c_uint64]
    lib.duckdb_value_varchar.restype = P
    lib.duckdb_free.argtypes = [P]
    lib.duckdb_destroy_result.argtypes = [ctypes.POINTER(Result)]
    db, con = P(), P()
    if lib.duckdb_open(None, ctypes.byref(db)) or lib.duckdb_connect(db, ctypes.byref(con)):
        sys.exit("duckdb_sql.py: cannot open a database")
    rows = []
    for k, sql in enumerate(args):
        if k == len(args) - 1 and sql.lstrip().upper().startswith(("SELECT", "WITH", "FROM")):
            # every value as text (duckdb_value_varchar takes no LIST)
            sql = "SELECT COLUMNS(*)::VARCHAR FROM (%s)" % sql.strip().rstrip(";")
        r = Result()
        if lib.duckdb_query(con, sql.encode(), ctypes.byref(r)):
            sys.stderr.write("duckdb_sql.py: %s\n  in: %s\n" % (lib.duckdb_result_error(ctypes.byref(r)).decode(), sql))
            sys.exit(1)
        rows = []
        for i in range(lib.duckdb_row_count(ctypes.byref(r))):
            row = []
            for c in range(lib.duckdb_column_count(ctypes.byref(r))):
                if lib.duckdb_value_is_null(ctypes.byref(r), c, i):
                    row.append(None)
                    continue
                p = lib.duckdb_value_varchar(ctypes.byref(r), c, i)
                row.append(ctypes.string_at(p).decode("utf-8", "surrogateescape"))
                lib.duckdb_free(p)
            rows.append(row)
        lib.duckdb_destroy_result(ctypes.byref(r))
    if as_json:
        json.dump(rows, sys.stdout)
    else:
        for row in rows:
            print("\t".join("\\N" if v is None else v for v in row))


main()
