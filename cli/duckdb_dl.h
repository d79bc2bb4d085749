/* The part of DuckDB's C API that `cutap export --format parquet` uses,
 * found at run time: the command is built without duckdb.h and without
 * linking libduckdb, and loads libduckdb.so (or $CUTAP_DUCKDB_LIB) only
 * when that format is asked for.
 *
 * The types and constants below are declared here as duckdb.h (v1.x, the
 * stable C API: https://duckdb.org/docs/stable/clients/c/api) declares
 * them: opaque handles are pointers to one-pointer structs, duckdb_result
 * is 48 bytes, enum values as listed. The functions are reached through
 * struct duckdb_dl, whose members are named after them without the
 * "duckdb_" prefix; nothing here defines a symbol named duckdb_*. */
#ifndef CUTAP_DUCKDB_DL_H
#define CUTAP_DUCKDB_DL_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t idx_t;
typedef enum { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;
#define DUCKDB_HANDLE(n)                                                                                           \
    typedef struct _##n {                                                                                          \
        void *internal_ptr;                                                                                        \
    } * n
DUCKDB_HANDLE(duckdb_database);
DUCKDB_HANDLE(duckdb_connection);
DUCKDB_HANDLE(duckdb_config);
DUCKDB_HANDLE(duckdb_data_chunk);
DUCKDB_HANDLE(duckdb_vector);
DUCKDB_HANDLE(duckdb_logical_type);
DUCKDB_HANDLE(duckdb_value);
DUCKDB_HANDLE(duckdb_table_function);
DUCKDB_HANDLE(duckdb_bind_info);
DUCKDB_HANDLE(duckdb_init_info);
DUCKDB_HANDLE(duckdb_function_info);
#undef DUCKDB_HANDLE
typedef struct {
    idx_t deprecated_column_count, deprecated_row_count, deprecated_rows_changed;
    void *deprecated_columns;
    char *deprecated_error_message;
    void *internal_data;
} duckdb_result;
typedef struct {
    uint64_t offset, length;
} duckdb_list_entry;
typedef void (*duckdb_delete_callback_t)(void *);

/* duckdb_type */
enum {
    DUCKDB_TYPE_BOOLEAN = 1,
    DUCKDB_TYPE_UTINYINT = 6,
    DUCKDB_TYPE_USMALLINT = 7,
    DUCKDB_TYPE_UINTEGER = 8,
    DUCKDB_TYPE_INTEGER = 4,
    DUCKDB_TYPE_BIGINT = 5,
    DUCKDB_TYPE_UBIGINT = 9,
    DUCKDB_TYPE_VARCHAR = 17,
};

#define DUCKDB_DL_FUNCTIONS(X)                                                                                    \
    X(const char *, library_version, (void))                                                                      \
    X(duckdb_state, create_config, (duckdb_config *))                                                             \
    X(duckdb_state, set_config, (duckdb_config, const char *, const char *))                                      \
    X(void, destroy_config, (duckdb_config *))                                                                    \
    X(duckdb_state, open_ext, (const char *, duckdb_database *, duckdb_config, char **))                          \
    X(void, close, (duckdb_database *))                                                                           \
    X(duckdb_state, connect, (duckdb_database, duckdb_connection *))                                              \
    X(void, disconnect, (duckdb_connection *))                                                                    \
    X(duckdb_state, query, (duckdb_connection, const char *, duckdb_result *))                                    \
    X(void, destroy_result, (duckdb_result *))                                                                    \
    X(const char *, result_error, (duckdb_result *))                                                              \
    X(void, free, (void *))                                                                                       \
    X(idx_t, vector_size, (void))                                                                                 \
    X(duckdb_logical_type, create_logical_type, (int))                                                            \
    X(duckdb_logical_type, create_list_type, (duckdb_logical_type))                                               \
    X(duckdb_logical_type, create_enum_type, (const char **, idx_t))                                              \
    X(int, enum_internal_type, (duckdb_logical_type))                                                             \
    X(void, destroy_logical_type, (duckdb_logical_type *))                                                        \
    X(duckdb_vector, data_chunk_get_vector, (duckdb_data_chunk, idx_t))                                           \
    X(void, data_chunk_set_size, (duckdb_data_chunk, idx_t))                                                      \
    X(void *, vector_get_data, (duckdb_vector))                                                                   \
    X(uint64_t *, vector_get_validity, (duckdb_vector))                                                           \
    X(void, vector_ensure_validity_writable, (duckdb_vector))                                                     \
    X(void, vector_assign_string_element_len, (duckdb_vector, idx_t, const char *, idx_t))                        \
    X(duckdb_vector, list_vector_get_child, (duckdb_vector))                                                      \
    X(duckdb_state, list_vector_set_size, (duckdb_vector, idx_t))                                                 \
    X(duckdb_state, list_vector_reserve, (duckdb_vector, idx_t))                                                  \
    X(duckdb_table_function, create_table_function, (void))                                                       \
    X(void, destroy_table_function, (duckdb_table_function *))                                                    \
    X(void, table_function_set_name, (duckdb_table_function, const char *))                                       \
    X(void, table_function_add_parameter, (duckdb_table_function, duckdb_logical_type))                           \
    X(void, table_function_set_bind, (duckdb_table_function, void (*)(duckdb_bind_info)))                         \
    X(void, table_function_set_init, (duckdb_table_function, void (*)(duckdb_init_info)))                         \
    X(void, table_function_set_function, (duckdb_table_function, void (*)(duckdb_function_info, duckdb_data_chunk))) \
    X(duckdb_state, register_table_function, (duckdb_connection, duckdb_table_function))                          \
    X(duckdb_value, bind_get_parameter, (duckdb_bind_info, idx_t))                                                \
    X(int64_t, get_int64, (duckdb_value))                                                                         \
    X(void, destroy_value, (duckdb_value *))                                                                      \
    X(void, bind_add_result_column, (duckdb_bind_info, const char *, duckdb_logical_type))                        \
    X(void, bind_set_bind_data, (duckdb_bind_info, void *, duckdb_delete_callback_t))                             \
    X(void, bind_set_error, (duckdb_bind_info, const char *))                                                     \
    X(void, init_set_max_threads, (duckdb_init_info, idx_t))                                                      \
    X(void *, function_get_bind_data, (duckdb_function_info))                                                     \
    X(void, function_set_error, (duckdb_function_info, const char *))

struct duckdb_dl {
#define DUCKDB_DL_MEMBER(r, n, a) r(*n) a;
    DUCKDB_DL_FUNCTIONS(DUCKDB_DL_MEMBER)
#undef DUCKDB_DL_MEMBER
};

/* Loads the library and every function above, once per process. Returns
 * the table, or NULL with *why set to a message (no trailing newline)
 * naming the library, CUTAP_DUCKDB_LIB and what is missing. */
const struct duckdb_dl *duckdb_dl_load(const char **why);

#endif
