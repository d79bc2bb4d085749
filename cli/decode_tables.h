/* What the cutap command needs to decode recorded arguments: for every
 * entry point of the headers, of the driver and of the runtime and library
 * layers, its parameters and result, and the enums and structs those
 * reach. The tables are generated (cli/generated/decode_tables.c by
 * gen/decode_generator.py for the driver, cli/generated/decode_layers.c by
 * gen/decode_layers_generator.py for the layers); this header is not. */
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
    DEC_VOID = 8,               /* results only: the function returns nothing */
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
    int16_t enum_idx;           /* DEC_ENUM: index into the set's enums; else -1 */
    int16_t struct_idx;         /* DEC_STRUCT: index into the set's structs; else -1 */
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
 * DEC_ENUM and DEC_STRUCT (by value) they describe the argument itself; a
 * struct by value is recorded as the address of its copy only (dim3 of
 * cudaLaunchKernel), so the layers' tables describe those of 64 bytes at
 * most (struct_idx -1 for larger ones), for when a capture holds them. */
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
    uint8_t layer;              /* CUTAP_LAYER_* */
    uint8_t result_kind;        /* DEC_ENUM (result_enum: CUresult, cudaError_t,
                                   cublasStatus_t, ...), DEC_INT, DEC_UINT, DEC_PTR
                                   or DEC_VOID */
    int16_t result_enum;        /* -1: none */
    const struct dec_arg *args;
    const char *result_type;    /* as the header spells it, by its public name
                                   (CUresult, cudaError_t, not their enum tags),
                                   NULL for exports no header declares */
    uint8_t result_size;        /* bytes of the result as the caller receives it
                                   (0: void), result_signed: of a signed type; */
    uint8_t result_signed;      /* the values it can hold (fault injection) */
};

/* One set of tables. The enum_idx and struct_idx of its functions, args
 * and fields index its own enums and structs. */
struct dec_set {
    const struct dec_fn *fns;          /* sorted by name (strcmp) */
    unsigned nfns;
    const struct dec_enum *enums;      /* sorted by name */
    unsigned nenums;
    const struct dec_struct *structs;  /* sorted by name */
    unsigned nstructs;
};
extern const struct dec_set dec_driver;   /* the driver's entry points */
extern const struct dec_set dec_layers;   /* the runtime's and the libraries' */
/* A layer bound to an older major (issue #28), per soname whose major's
 * headers cutap was generated from (cli/generated/decode_older.c): the
 * majors ("12", "12 and 11") and the functions those headers declare
 * otherwise than the pinned ones (NULL: none), which the recorder typed
 * with that signature; the others are decoded with dec_layers. */
struct dec_older {
    int layer;
    const char *soname;
    const char *majors;
    const struct dec_set *set;
};
/* The entry of a layer bound to soname, NULL: an unknown major. */
const struct dec_older *dec_older_of(int layer, const char *soname);
extern const struct dec_older dec_older[];
extern const unsigned dec_nolder;

/* The function called name in a set (bsearch); NULL if unknown. */
const struct dec_fn *dec_find_fn(const struct dec_set *set, const char *name);

#endif
