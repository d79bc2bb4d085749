/* RM parameter blocks by field (issue #32): the layouts generated from the
 * 580 headers (cli/generated/nv_params_tables.c, by gen/nv_params_generator.py)
 * and what dump and the exports make of a CUTAP_META_PARAMS record
 * (cli/nv_params.c). */
#ifndef CUTAP_NV_PARAMS_H
#define CUTAP_NV_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cutap_format.h"
#include "trace_read.h"

/* Type kinds. Scalars: U S (integers), BOOL (NvBool), HANDLE (NvHandle),
 * PTR (NvP64, pointers), CHAR (plain char: its arrays are strings), FLOAT,
 * ENUM (first/n: enumerators). STRUCT and UNION: first/n members. ARRAY:
 * first the element type, n the count. */
enum { CUTAP_NVP_U = 1, CUTAP_NVP_S, CUTAP_NVP_BOOL, CUTAP_NVP_HANDLE, CUTAP_NVP_PTR, CUTAP_NVP_CHAR,
       CUTAP_NVP_FLOAT, CUTAP_NVP_ENUM, CUTAP_NVP_STRUCT, CUTAP_NVP_UNION, CUTAP_NVP_ARRAY };
struct cutap_nvp_type {
    uint8_t kind;
    uint32_t size;
    uint32_t name;             /* string offset (0: "", an anonymous or unnamed type) */
    uint32_t first, n;
};
struct cutap_nvp_member { uint32_t name, off, type; };
struct cutap_nvp_enumerator { int64_t value; uint32_t name; };
struct cutap_nvp_root { uint32_t key, type; };   /* sorted by key */

extern const struct cutap_nvp_type cutap_nvp_types[];
extern const unsigned cutap_nvp_ntypes;
extern const struct cutap_nvp_member cutap_nvp_members[];
extern const unsigned cutap_nvp_nmembers;
extern const struct cutap_nvp_enumerator cutap_nvp_enumerators[];
extern const unsigned cutap_nvp_nenumerators;
extern const struct cutap_nvp_root cutap_nvp_ctrls[], cutap_nvp_classes[];
extern const unsigned cutap_nvp_nctrls, cutap_nvp_nclasses;
extern const char cutap_nvp_strings[];
extern const unsigned cutap_nvp_strings_size;

/* A CUTAP_META_PARAMS record as found behind its call's record: its head,
 * and the bytes before and after the call (NULL where they were not
 * read). Every size was checked against the record. */
struct nvp_block {
    struct cutap_params_head h;
    const uint8_t *before, *after;
};
/* The block recorded behind call c (trace --ioctl-params): 1 and *b set,
 * or 0 (none, or a damaged record). */
int nvp_block_of(const struct trace *tr, const struct tr_call *c, struct nvp_block *b);
/* dump: the block on one line after indent, its fields by name
 * (a.b[3].c=value; those the driver changed as before→after), or its
 * bytes in hex where no layout is known. */
void nvp_put_text(FILE *f, const struct nvp_block *b, const char *indent);
/* the exports: the block as a JSON object (docs/FORMAT.md says its members). */
void nvp_put_json(FILE *f, const struct nvp_block *b);
/* The layout of a command's (CUTAP_PARAMS_CONTROL) or class's (ALLOC)
 * block: its type index, or -1. */
int nvp_type_of(unsigned kind, uint32_t what);

#endif
