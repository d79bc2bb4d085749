/* The SQLite export's calls table and its insert (cli/export/sqlite.c),
 * shared with bench/sqlite_floor.c, which times SQLite alone on the same
 * table: the floor under the export stays the export's table. */
#ifndef CUTAP_SQLITE_CALLS_H
#define CUTAP_SQLITE_CALLS_H

#define SQLITE_CALLS_TABLE                                                                                         \
    "CREATE TABLE calls(id INTEGER PRIMARY KEY, thread_id INTEGER REFERENCES threads(id), start_ns INTEGER,"      \
    " dur_ns INTEGER, layer TEXT, name_id INTEGER REFERENCES strings(id), depth INTEGER, result INTEGER,"          \
    " args TEXT, kernel_id INTEGER REFERENCES strings(id), parent_id INTEGER REFERENCES calls(id), status TEXT,"   \
    " decoded TEXT, object_id INTEGER REFERENCES strings(id), injected TEXT, params TEXT);"

#define SQLITE_CALLS_INSERT                                                                                        \
    "INSERT INTO calls(id, thread_id, start_ns, dur_ns, layer, name_id, depth, result, args,"                     \
    " kernel_id, parent_id, status, decoded, object_id, injected, params) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7,"      \
    " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"

#endif
