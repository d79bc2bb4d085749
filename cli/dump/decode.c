/* A call as `cutap dump` prints it (dump_internal.h): the arguments
 * decoded by the generated tables (decode_tables.h) by the call's name,
 * never its numeric id (ids are per file and per library version); what
 * the recorder copied from the process (strings, structs, outputs) where
 * the argument is; kernel names demangled once per name; the result by
 * the function's result type. Calls whose signature is unknown show the
 * six argument registers and the raw return register. The exports use
 * it too (cli.h: dump_call_args, dump_call_status, dump_call_stack). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ioctl_decode.h"
#include "cutap.h"
#include "export_tables.h"
#include "dump_internal.h"

/* --- kernel names ----------------------------------------------------- */

/* Demangled names by the address of the recorded name: every launch of
 * one handle finds the same string in the mapping, so a kernel launched a
 * million times is demangled once. Open addressing, at most half full. */
struct dm_slot {
    const char *raw;
    char *demangled;               /* NULL: demangling failed, print raw */
};
static _Thread_local struct dm_slot *dm_tab;   /* per thread: cmd_dump.c formats on several */
static _Thread_local size_t dm_cap, dm_used;

static size_t dm_hash(const char *p, size_t cap)
{
    return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static struct dm_slot *dm_find(const char *raw)
{
    size_t i = dm_hash(raw, dm_cap);
    while (dm_tab[i].raw && dm_tab[i].raw != raw)
        i = (i + 1) & (dm_cap - 1);
    return &dm_tab[i];
}

static void dm_grow(void)
{
    struct dm_slot *old = dm_tab;
    size_t old_cap = dm_cap;
    dm_cap = dm_cap ? dm_cap * 2 : 256;
    dm_tab = xcalloc(dm_cap, sizeof *dm_tab);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].raw)
            *dm_find(old[i].raw) = old[i];
    free(old);
}

static const char *kernel_display(const char *raw)
{
    if (strncmp(raw, "_Z", 2))
        return raw;               /* extern "C" kernels are not mangled */
    if (2 * (dm_used + 1) > dm_cap)
        dm_grow();
    struct dm_slot *s = dm_find(raw);
    if (!s->raw) {
        s->raw = raw;
        s->demangled = cli_demangle(raw);
        dm_used++;
    }
    return s->demangled ? s->demangled : raw;
}

void dump_kernels_free(void)
{
    for (size_t i = 0; i < dm_cap; i++)
        free(dm_tab[i].demangled);
    free(dm_tab);
    dm_tab = NULL;
    dm_cap = dm_used = 0;
}

/* `<name>` after a CUfunction/CUkernel value whose name the trace holds. */
static void put_kernel(const struct dump *d, uint64_t handle)
{
    const char *name = handle ? tr_func_name(d->proc, handle) : NULL;
    if (name) {
        out_c('<', d->out);
        text_str(d->out, d->demangle ? kernel_display(name) : name);
        out_c('>', d->out);
    }
}

/* --- what a parameter's type or name says, found once ------------------- */
/* The type and name strings are the generated tables' (one address per
 * string for the life of the process): what a test of one says is kept by
 * the string's address and the test, so that a call's arguments cost no
 * string comparisons (they were a tenth of dump's time). */
#define MEMO_SIZE 4096
static int memo(const char *key, int (*test)(const char *))
{
    static _Thread_local struct {
        const char *key;
        int (*test)(const char *);
        int val;
    } m[MEMO_SIZE];
    size_t h = (((uintptr_t)key >> 3) ^ ((uintptr_t)test >> 4)) * 0x9e3779b97f4a7c15ull >> 52;   /* 12 bits */
    for (size_t k = 0; k < 8; k++) {
        size_t e = (h + k) % MEMO_SIZE;
        if (m[e].key == key && m[e].test == test)
            return m[e].val;
        if (!m[e].key) {
            m[e].key = key;
            m[e].test = test;
            return m[e].val = test(key);
        }
    }
    return test(key);   /* a crowded neighbourhood: tested each time */
}

/* A by-value handle type that names a kernel. */
static int is_kernel_type_(const char *type)
{
    return !strcmp(type, "CUfunction") || !strcmp(type, "CUkernel") || !strcmp(type, "cudaFunction_t") ||
           !strcmp(type, "cudaKernel_t");   /* the runtime's handles are the driver's */
}

/* --- scalar values ---------------------------------------------------- */

static void put_ptr(FILE *f, uint64_t v)
{
    if (v)
        text_hex(f, v);
    else
        out_s("NULL", f);
}

/* Flags read best in hex: the bits are what matters. */
static int is_flag_name_(const char *name)
{
    return strstr(name, "flag") || strstr(name, "Flag");
}

/* Integer typedefs that hold an address or a handle: hex, like pointers. */
static int is_handle_uint_(const char *type)
{
    static const char *const t[] = {"CUdeviceptr", "CUdeviceptr_v1", "CUmemGenericAllocationHandle", "CUtexObject",
                                    "CUsurfObject", "cudaTextureObject_t", "cudaSurfaceObject_t"};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(type, t[i]))
            return 1;
    return 0;
}

/* Shortest %g that reads back as the same value: 0.5 rather than
 * 0.50000000000000000, yet exact. */
static void put_real(FILE *f, double v, int is_float)
{
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (is_float ? (float)back == (float)v : back == v)
            break;
    }
    out_s(buf, f);
}

static double float_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static double double_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* First name of an enum value (aliases share values; the first is the
 * canonical one). Enums are 32 bits wide, so compare that much. */
static const char *enum_name(const struct dec_enum *e, uint32_t v)
{
    for (unsigned i = 0; i < e->nvals; i++)
        if ((uint32_t)e->vals[i].value == v)
            return e->vals[i].name;
    return NULL;
}

/* A flag set: the exact name if there is one, else A|B|0x<rest>. */
static void put_flags(FILE *f, const struct dec_enum *e, uint32_t v)
{
    const char *exact = enum_name(e, v);
    if (exact) {
        out_s(exact, f);
        return;
    }
    uint32_t rest = v;
    int n = 0;
    for (unsigned i = 0; i < e->nvals; i++) {
        uint32_t bits = (uint32_t)e->vals[i].value;
        if (bits && (rest & bits) == bits) {
            fprintf(f, "%s%s", n++ ? "|" : "", e->vals[i].name);
            rest &= ~bits;
        }
    }
    if (rest || !n)
        fprintf(f, "%s0x%" PRIx32, n ? "|" : "", rest);
}

/* Enum idx of the call's tables, or NULL. */
static const struct dec_enum *enum_at(const struct dump *d, int idx)
{
    return idx >= 0 && (unsigned)idx < d->set->nenums ? &d->set->enums[idx] : NULL;
}

static void put_enum(const struct dump *d, int idx, uint32_t v)
{
    FILE *f = d->out;
    const struct dec_enum *e = enum_at(d, idx);
    if (!e) {
        text_i64(f, (int32_t)v);
        return;
    }
    if (e->bitmask) {
        put_flags(f, e, v);
        return;
    }
    const char *name = enum_name(e, v);
    if (name)
        out_s(name, f);
    else
        text_i64(f, (int32_t)v);
}

/* Bytes as one hex string (CUuuid: the 32 digits CUTAP_HIDDEN takes).
 * Long all-zero arrays (reserved fields) shrink to 0. */
static void put_bytes(FILE *f, const uint8_t *p, size_t n)
{
    size_t nz = 0;
    while (nz < n && !p[nz])
        nz++;
    if (n > 16 && nz == n) {
        out_c('0', f);
        return;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

/* A C string literal; `truncated` adds … after it. */
void dump_put_str(FILE *f, const char *s, size_t len, int truncated)
{
    out_c('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': out_s("\\\"", f); break;
        case '\\': out_s("\\\\", f); break;
        case '\n': out_s("\\n", f); break;
        case '\t': out_s("\\t", f); break;
        case '\r': out_s("\\r", f); break;
        default:
            if (ch < 0x20 || ch >= 0x7f)
                fprintf(f, "\\%03o", ch);   /* octal: never swallows a following digit */
            else
                out_c(ch, f);
        }
    }
    out_c('"', f);
    if (truncated)
        out_s("…", f);
}

/* --- structs ---------------------------------------------------------- */

/* Little-endian integer of 1..8 bytes. */
static uint64_t read_le(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    memcpy(&v, p, size > 8 ? 8 : size);
    return v;
}

static int64_t sign_extend(uint64_t v, unsigned size)
{
    if (size >= 8)
        return (int64_t)v;
    unsigned shift = 64 - 8 * size;
    return (int64_t)(v << shift) >> shift;
}

static void put_struct(const struct dump *d, int idx, const uint8_t *p, size_t len);

static void put_field(const struct dump *d, const struct dec_field *fl, const uint8_t *p)
{
    FILE *f = d->out;
    uint64_t v = fl->kind == DEC_STRUCT || fl->kind == DEC_BYTES ? 0 : read_le(p, fl->size);
    switch (fl->kind) {
    case DEC_INT:
        if (memo(fl->name, is_flag_name_))
            text_hex(f, v);   /* read_le kept only the field's bytes */
        else
            text_i64(f, sign_extend(v, fl->size));
        break;
    case DEC_UINT: (memo(fl->name, is_flag_name_) ? text_hex : text_u64)(f, v); break;
    case DEC_ENUM: put_enum(d, fl->enum_idx, (uint32_t)v); break;
    case DEC_FLOAT: put_real(f, float_bits((uint32_t)v), 1); break;
    case DEC_DOUBLE: put_real(f, double_bits(v), 0); break;
    case DEC_STRUCT: put_struct(d, fl->struct_idx, p, fl->size); break;
    case DEC_BYTES: put_bytes(f, p, fl->size); break;
    default:   /* DEC_PTR */
        put_ptr(f, v);
        if (!strcmp(fl->name, "func") || !strcmp(fl->name, "function"))
            put_kernel(d, v);   /* CUDA_KERNEL_NODE_PARAMS, CUDA_LAUNCH_PARAMS */
    }
}

/* A union: every member at offset 0. */
static int is_union(const struct dec_struct *s)
{
    for (unsigned i = 0; i < s->nfields; i++)
        if (s->fields[i].offset)
            return 0;
    return s->nfields > 1;
}

/* The byte array that sizes a union (pad[64], reserved[…]): it repeats
 * the other members' bytes and means nothing by itself. */
static int is_union_padding(const struct dec_field *fl)
{
    return fl->kind == DEC_BYTES && (!strncmp(fl->name, "pad", 3) || !strncmp(fl->name, "reserved", 8));
}

/* {field=value, …} of `len` captured bytes; fields past them print as …
 * Unions print every member but their padding: which member is live is
 * not recorded. */
static void put_struct(const struct dump *d, int idx, const uint8_t *p, size_t len)
{
    if (idx < 0 || (unsigned)idx >= d->set->nstructs) {
        put_bytes(d->out, p, len);
        return;
    }
    const struct dec_struct *s = &d->set->structs[idx];
    int skip_pad = is_union(s), n = 0;
    out_c('{', d->out);
    for (unsigned i = 0; i < s->nfields; i++) {
        const struct dec_field *fl = &s->fields[i];
        if (skip_pad && is_union_padding(fl))
            continue;
        if (n++)
            out_s(", ", d->out);
        if ((size_t)fl->offset + fl->size > len) {
            out_s("…", d->out);
            break;
        }
        out_s(fl->name, d->out);
        out_c('=', d->out);
        put_field(d, fl, p + fl->offset);
    }
    out_c('}', d->out);
}

/* --- arguments -------------------------------------------------------- */

/* How to show the value an output pointer points to, from the spelled
 * type of the parameter ("CUdeviceptr *", "const CUgraphNode **"). */
enum { PT_HEX, PT_SIGNED, PT_UNSIGNED, PT_FLOAT, PT_DOUBLE };

static int pointee_class_(const char *type)
{
    static const char *const sig[] = {"int", "long", "long long", "short", "char", "signed char", "CUdevice",
                                      "CUdevice_v1", "EGLint", "int32_t", "int64_t", "cusolver_int_t",
                                      "cufftHandle"};
    static const char *const uns[] = {"unsigned int", "unsigned long", "unsigned long long", "unsigned short",
                                      "unsigned char", "size_t", "cuuint32_t", "cuuint64_t", "uint32_t",
                                      "uint64_t", "CUlogIterator", "cudaLogIterator"};
    char base[64];
    if (!strncmp(type, "const ", 6))
        type += 6;
    size_t n = strlen(type);
    if (n && type[n - 1] == '*')
        n--;                       /* the parameter's own star */
    while (n && type[n - 1] == ' ')
        n--;
    if (!n || n >= sizeof base || type[n - 1] == '*')
        return PT_HEX;             /* pointer to pointer */
    memcpy(base, type, n);
    base[n] = 0;
    for (size_t i = 0; i < sizeof sig / sizeof *sig; i++)
        if (!strcmp(base, sig[i]))
            return PT_SIGNED;
    for (size_t i = 0; i < sizeof uns / sizeof *uns; i++)
        if (!strcmp(base, uns[i]))
            return PT_UNSIGNED;
    if (!strcmp(base, "float") || !strcmp(base, "cufftReal"))
        return PT_FLOAT;
    if (!strcmp(base, "double") || !strcmp(base, "cufftDoubleReal"))
        return PT_DOUBLE;
    return PT_HEX;                 /* handles (CUcontext, CUdeviceptr, …) and void * */
}

static int names_kernel_(const char *type)
{
    return strstr(type, "CUfunction") || strstr(type, "CUkernel");
}

/* The value an output pointer pointed to after the call. */
static void put_pointee(const struct dump *d, const struct dec_arg *a, const uint8_t *p, size_t len)
{
    FILE *f = d->out;
    if (a->struct_idx >= 0) {
        put_struct(d, a->struct_idx, p, len);
        return;
    }
    if (len != 1 && len != 2 && len != 4 && len != 8) {
        put_bytes(f, p, len);
        return;
    }
    uint64_t v = read_le(p, (unsigned)len);
    if (a->enum_idx >= 0) {
        put_enum(d, a->enum_idx, (uint32_t)v);
        return;
    }
    int cls = memo(a->type, pointee_class_);
    if (cls == PT_UNSIGNED && memo(a->name, is_flag_name_))
        cls = PT_HEX;
    switch (cls) {
    case PT_SIGNED: text_i64(f, sign_extend(v, (unsigned)len)); break;
    case PT_UNSIGNED: text_u64(f, v); break;
    case PT_FLOAT:
    case PT_DOUBLE: put_real(f, len == 4 ? float_bits((uint32_t)v) : double_bits(v), len == 4); break;
    default:
        text_hex(f, v);
        if (len == 8 && memo(a->type, names_kernel_))
            put_kernel(d, v);      /* cuModuleGetFunction, cuLibraryGetKernel */
    }
}

/* An argument word by the parameter's kind, without captures. */
static void put_word(const struct dump *d, const struct dec_arg *a, uint64_t w)
{
    FILE *f = d->out;
    switch (a->kind) {
    case DEC_INT:
        if (memo(a->name, is_flag_name_))
            fprintf(f, "0x%" PRIx32, (uint32_t)w);   /* an int of flags */
        else
            text_i64(f, (int64_t)w);
        break;
    case DEC_UINT:
        if (enum_at(d, a->enum_idx) && enum_at(d, a->enum_idx)->bitmask)
            put_flags(f, enum_at(d, a->enum_idx), (uint32_t)w);
        else if (memo(a->type, is_handle_uint_))
            put_ptr(f, w);
        else
            (memo(a->name, is_flag_name_) ? text_hex : text_u64)(f, w);
        break;
    case DEC_ENUM: put_enum(d, a->enum_idx, (uint32_t)w); break;
    case DEC_FLOAT: put_real(f, float_bits((uint32_t)w), 1); break;
    case DEC_DOUBLE: put_real(f, double_bits(w), 0); break;
    case DEC_STRUCT: fprintf(f, "{…}@0x%" PRIx64, w); break;   /* the copy's address only */
    default:   /* DEC_PTR */
        put_ptr(f, w);
        if (memo(a->type, is_kernel_type_))
            put_kernel(d, w);
    }
}

/* An argument with what the recorder copied for it. */
static void put_captured(const struct dump *d, const struct dec_arg *a, uint64_t w, const struct cutap_capture *c)
{
    FILE *f = d->out;
    const uint8_t *p = (const uint8_t *)(c + 1);
    int trunc = c->state == CUTAP_CAPS_TRUNCATED;
    if (c->state == CUTAP_CAPS_NONE) {   /* NULL, failed call, or unfinished */
        put_word(d, a, w);
        return;
    }
    switch (c->kind) {
    case CUTAP_CAP_IN_STR: dump_put_str(f, (const char *)p, c->len, trunc); break;
    case CUTAP_CAP_IN_BYTES: {
        put_struct(d, a->struct_idx, p, c->len);
        /* cuGetExportTable's UUID: the table's name where cutap knows it */
        const struct cutap_known_table *k = c->len == 16 && !strcmp(a->type, "const CUuuid *") ? cutap_known_table(p) : NULL;
        if (k)
            fprintf(f, "<%s>", k->name);
        break;
    }
    case CUTAP_CAP_OUT_BYTES:
        put_ptr(f, w);
        out_s("→", f);
        put_pointee(d, a, p, c->len);
        break;
    case CUTAP_CAP_OUT_STRPTR:
    case CUTAP_CAP_OUT_STRBUF:
        put_ptr(f, w);
        out_s("→", f);
        dump_put_str(f, (const char *)p, c->len, trunc);
        break;
    default:   /* a kind newer than this reader */
        put_word(d, a, w);
    }
}

/* Typed arguments: name=value, captures where their argument is. */
void dump_put_args(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn)
{
    const struct cutap_capture *caps[256];   /* by argument index (a uint8_t) */
    for (unsigned i = 0; i < fn->nargs; i++)
        caps[i] = NULL;
    for (unsigned i = 0; i < c->rec->ncap; i++) {
        const struct cutap_capture *cap = tr_capture(c, i);
        if (cap && !caps[cap->arg])
            caps[cap->arg] = cap;
    }
    const uint64_t *w = tr_args(c);
    for (unsigned i = 0; i < fn->nargs; i++) {
        const struct dec_arg *a = &fn->args[i];
        if (i)
            out_s(", ", d->out);
        out_s(a->name, d->out);
        out_c('=', d->out);
        if (caps[i])
            put_captured(d, a, w[i], caps[i]);
        else
            put_word(d, a, w[i]);
    }
}

/* Untyped or unknown calls: the raw words (for untyped ones, the six
 * integer argument registers). */
/* Raw words; named and by kind when the file describes the function
 * (format version 4) and this command's tables do not know it (a newer
 * cutap's function): name=decimal for integers and enumerations,
 * name=0x... for the rest. */
void dump_put_raw_args(FILE *f, const struct trace *tr, const struct tr_call *c)
{
    const uint64_t *w = tr_args(c);
    const char *sig = (c->flags & CUTAP_RF_UNTYPED) ? NULL : tr_call_sig(tr, c);
    int first = 1, ioctl = ioctl_is(tr, c), unread = 0;
    if (ioctl && !ioctl_block_read(tr, c))
        unread = 1;   /* the words from the block mean nothing: not shown */
    for (unsigned i = 0; i < c->rec->nargs; i++) {
        const char *colon = sig && sig[0] && sig[1] == ':' ? strchr(sig + 2, ':') : NULL;
        if (colon) {
            char name[64];
            size_t n = (size_t)(colon - sig - 2) < sizeof name - 1 ? (size_t)(colon - sig - 2) : sizeof name - 1;
            memcpy(name, sig + 2, n);
            name[n] = 0;
            const char *type = colon + 1, *next = strchr(colon, ';');
            size_t tlen = next ? (size_t)(next - type) : strlen(type);
            char kind = sig[0];
            sig = next ? next + 1 : NULL;
            /* the ioctl layer's own types (cli/ioctl_decode.c), some
             * left out (a word printed with the one before it) */
            if (ioctl && ioctl_arg_hidden(type, tlen, w[i]))
                continue;
            if (unread && ioctl_type_after(type, tlen)) {
                if (unread == 1)
                    out_s(", (block not read)", f);
                unread = 2;
                continue;
            }
            out_s(first ? "" : ", ", f);
            first = 0;
            text_str(f, name);
            out_c('=', f);
            if (ioctl && ioctl_put_arg(f, type, tlen, w, i, c->rec->nargs))
                continue;
            if (kind == 'i')
                text_i64(f, (int64_t)w[i]);
            else if (kind == 'u' || kind == 'e')
                text_u64(f, w[i]);
            else
                text_hex(f, w[i]);
        } else {
            sig = NULL;
            out_s(first ? "" : ", ", f);
            first = 0;
            text_hex(f, w[i]);
        }
    }
}

/* --- one line ----------------------------------------------------------- */

void dump_put_duration(FILE *f, uint64_t ns)
{
    if (ns < 1000) {
        out_c('<', f);
        text_u64(f, ns);
        out_s(" ns>", f);
    } else if (ns < 1000000) {
        fprintf(f, "<%.1f us>", (double)ns / 1e3);
    } else {
        fprintf(f, "<%.3f ms>", (double)ns / 1e6);
    }
}

/* A finished call's result by the function's result type: a status by
 * name (CUDA_SUCCESS, cudaErrorMemoryAllocation (2), ncclSuccess), a
 * pointer in hex (cudaGetErrorString), a count or id in decimal, void.
 * Without a signature, the raw return register in hex. Statuses are 32
 * bits wide: the rest of the register is not the callee's. with_value:
 * a failure's number after its name, as in "CUDA_ERROR_INVALID_VALUE (1)". */
static void put_status(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn, int with_value)
{
    FILE *f = d->out;
    if (!fn && ioctl_is(d->tr, c)) {
        ioctl_put_status(f, d->tr, c);
        return;
    }
    switch (fn ? fn->result_kind : -1) {
    case DEC_ENUM: {
        uint32_t r = (uint32_t)tr_result(c);
        const struct dec_enum *e = enum_at(d, fn->result_enum);
        const char *name = e ? enum_name(e, r) : NULL;
        if (!name)
            text_u64(f, r);
        else if (r && with_value)
            fprintf(f, "%s (%" PRIu32 ")", name, r);
        else
            out_s(name, f);
        break;
    }
    case DEC_PTR: put_ptr(f, tr_result(c)); break;
    case DEC_INT: text_i64(f, (int64_t)tr_result(c)); break;   /* sign-extended by the wrapper */
    case DEC_UINT: text_u64(f, tr_result(c)); break;
    case DEC_VOID: out_s("void", f); break;
    default: text_hex(f, tr_result(c));
    }
}

void dump_put_status(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn)
{
    out_s(" = ", d->out);
    put_status(d, c, fn, 1);
}

void dump_put_result(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn)
{
    if (!c->t1) {
        out_s(" = ? <unfinished>", d->out);
        return;
    }
    dump_put_status(d, c, fn);
    out_c(' ', d->out);
    dump_put_duration(d->out, c->t1 - c->t0);
}

const struct dec_fn *dec_find_fn(const struct dec_set *set, const char *name)
{
    size_t lo = 0, hi = set->nfns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(name, set->fns[mid].name);
        if (!cmp)
            return &set->fns[mid];
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}


/* The signature to decode a call with (and d->set, the tables it is in),
 * or NULL to print raw words: the recorder had none (untyped, hidden), the
 * layer is one this command does not know, or the tables disagree with
 * the record (another header version). Found by name within the call's
 * layer: names are unique across layers, ids are not stable. */
const struct dec_fn *dump_signature(struct dump *d, const struct tr_call *c)
{
    const struct tr_name *n = &d->tr->names[c->name];
    const struct dec_set *set = n->layer == CUTAP_LAYER_DRIVER                                     ? &dec_driver
                                : n->layer >= CUTAP_LAYER_RUNTIME && n->layer < CUTAP_LAYER_COUNT ? &dec_layers
                                                                                                  : NULL;
    if ((c->flags & CUTAP_RF_UNTYPED) || !set)
        return NULL;
    const struct tr_proc *p = &d->tr->procs[d->tr->threads[c->thread].proc];
    const char *so = set == &dec_layers && (p->layer_flags[n->layer] & CUTAP_LAYER_OTHER_MAJOR) ? p->layer_so[n->layer]
                                                                                                : NULL;
    /* found once per name (and soname, and description): kept by their
     * addresses and the trace's serial (a reader that loads several traces
     * may reuse addresses: a strcmp a call checked that before, 5 % of
     * dump's time) */
    static _Thread_local struct {
        const char *name, *so, *sig;
        const struct dec_set *set, *rset;
        const struct dec_fn *fn;
        uint64_t serial;
    } seen[1024];
    size_t h = (((uintptr_t)n->name >> 3) ^ ((uintptr_t)so >> 3)) * 0x9e3779b97f4a7c15ull >> 54;
    const struct dec_fn *fn;
    const struct dec_set *rset;
    const char *sig = tr_call_sig(d->tr, c);
    if (seen[h].name == n->name && seen[h].so == so && seen[h].sig == sig && seen[h].set == set &&
        seen[h].serial == d->tr->serial) {
        fn = seen[h].fn;
        rset = seen[h].rset;
    } else if ((fn = dec_resolve(n, sig, set, so, &rset))) {
        seen[h].name = n->name;
        seen[h].so = so;
        seen[h].sig = sig;
        seen[h].set = set;
        seen[h].rset = rset;
        seen[h].fn = fn;
        seen[h].serial = d->tr->serial;
    }
    if (!fn || fn->layer != n->layer || fn->nargs != c->rec->nargs)
        return NULL;
    d->set = rset;
    return fn;
}

/* For the exports (cli/export/): what `cutap dump` prints of a call between
 * the parentheses, and its result (nothing when unfinished). Kernel names
 * print as recorded (no demangling: the command is not dump). */
void dump_call_args(FILE *f, const struct trace *tr, const struct tr_call *c)
{
    struct dump d = {.tr = tr, .out = f, .proc = &tr->procs[tr->threads[c->thread].proc]};
    const struct dec_fn *fn = dump_signature(&d, c);
    if (fn)
        dump_put_args(&d, c, fn);
    else
        dump_put_raw_args(f, tr, c);
}

void dump_call_stack(FILE *f, const struct trace *tr, const struct tr_call *c, const char *indent)
{
    const struct cutap_stack_frame *fr;
    unsigned n = tr_call_stack(tr, c, &fr);
    const struct tr_proc *p = &tr->procs[tr->threads[c->thread].proc];
    for (unsigned i = 0; i < n; i++) {
        char buf[512];
        sym_stack_frame(tr, p, &fr[i], buf, sizeof buf);
        fprintf(f, "%sat ", indent);
        text_str(f, buf);
        out_c('\n', f);
    }
}

void dump_call_status(FILE *f, const struct trace *tr, const struct tr_call *c)
{
    struct dump d = {.tr = tr, .out = f, .proc = &tr->procs[tr->threads[c->thread].proc]};
    if (c->t1)
        put_status(&d, c, dump_signature(&d, c), 0);   /* the number is the export's result */
}
