/* What the cutap command needs to decode recorded arguments: for every
 * driver entry point of the headers, its parameters, and the enums and
 * structs those reach. The tables are generated (cli/generated/
 * decode_tables.c, by gen/decode_generator.py); this header is not. */
#ifndef CUTAP_DECODE_TABLES_H
#define CUTAP_DECODE_TABLES_H

#include <stdint.h>

/* Kinds of arguments and fields. 0..6 are numbered as CUTAP_ARG_* in
 * include/cutap.h. DEC_BYTES (fields only) is an array of more than 4
 * elements, kept as `size` raw bytes (print it in hex), e.g. CUuuid.bytes. */
enum {
    DEC_INT = 0,
    DEC_UINT = 1,
    DEC_PTR = 2,
    DEC_ENUM = 3,
    DEC_FLOAT = 4,
    DEC_DOUBLE = 5,
    DEC_STRUCT = 6,
    DEC_BYTES = 7,
};

/* Values in declaration order. Several names may share a value (aliases):
 * all are kept, display the first. The 0x7fffffff *_MAX sentinels are left
 * out. */
struct dec_enum_val {
    int64_t value;
    const char *name;
};
struct dec_enum {
    const char *name;           /* tag (cudaError_enum), or typedef name when anonymous */
    uint16_t nvals;
    uint8_t bitmask;            /* 1: a set of flags (name contains "flag", or >= 3
                                   distinct non-zero values, all powers of two) */
    const struct dec_enum_val *vals;
};

/* A field of a struct or union (union members all have offset 0). Arrays
 * of up to 4 elements appear as one field per element, "name[i]"; longer
 * ones as one DEC_BYTES field. Nested structs and unions are DEC_STRUCT
 * fields with struct_idx. */
struct dec_field {
    const char *name;
    uint16_t offset;            /* bytes from the start of the struct */
    uint8_t size;               /* bytes */
    uint8_t kind;               /* DEC_* */
    int16_t enum_idx;           /* DEC_ENUM: index into dec_enums; else -1 */
    int16_t struct_idx;         /* DEC_STRUCT: index into dec_structs; else -1 */
};
struct dec_struct {
    const char *name;           /* tag (CUuuid_st); nested anonymous ones "outer.field" */
    uint16_t size;
    uint16_t nfields;
    const struct dec_field *fields;
};

/* A parameter. For DEC_PTR, enum_idx/struct_idx describe what it points
 * to: enum_idx for any pointer to an enum, struct_idx for the structs the
 * recorder copies (CUTAP_CAP_IN_BYTES/OUT_BYTES, at most 64 bytes). For
 * DEC_ENUM and DEC_STRUCT (by value) they describe the argument itself. */
struct dec_arg {
    const char *name;
    const char *type;           /* as spelled in the header */
    uint8_t kind;               /* DEC_INT..DEC_STRUCT */
    int16_t enum_idx;           /* -1: none */
    int16_t struct_idx;         /* -1: none */
};
/* An entry point. nargs 0 and args NULL for functions without parameters
 * and for exports no header declares (their records carry
 * CUTAP_RF_UNTYPED and the 6 argument registers). */
struct dec_fn {
    const char *name;
    uint8_t nargs;
    const struct dec_arg *args;
};

extern const struct dec_fn dec_fns[];          /* sorted by name (strcmp) */
extern const unsigned dec_nfns;
extern const struct dec_enum dec_enums[];      /* sorted by name */
extern const unsigned dec_nenums;
extern const struct dec_struct dec_structs[];  /* sorted by name */
extern const unsigned dec_nstructs;
extern const int16_t dec_result_enum;          /* CUresult's enum in dec_enums */

/* The entry point called name (bsearch on dec_fns); NULL if unknown. */
const struct dec_fn *dec_find_fn(const char *name);

#endif
