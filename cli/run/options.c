/* The options of cutap trace, stat and run (run_internal.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cutap.h"
#include "cli.h"
#include "filter_expr.h"
#include "inject_spec.h"
#include "decode_tables.h"
#include "run_internal.h"

/* A status to show as an example of a status type: its first failure
 * (vals[0] is the success), or NULL. */
static const struct dec_enum_val *status_example(const struct dec_enum *e)
{
    for (unsigned k = 0; e && k < e->nvals; k++)
        if (e->vals[k].value)
            return &e->vals[k];
    return NULL;
}

/* Whether sp's number fits f's result type (e: its status enum, or NULL).
 * The library hands the caller the value in the return register, where
 * a caller of a 32-bit CUresult reads only the low half: 4294967296 would
 * arrive as 0, CUDA_SUCCESS, and the call seem to succeed without having
 * been made. Returns 0, or -1 after saying what the type holds. */
static int inject_in_range(const char *arg, const struct cutap_inject_spec *sp, const struct dec_fn *f,
                           const struct dec_enum *e)
{
    unsigned bits = 8u * f->result_size;
    uint64_t mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    int64_t v = (int64_t)sp->value, lo = 0;
    uint64_t hi = mask;
    if (f->result_signed) {
        lo = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        hi = mask >> 1;
    }
    if (sp->value_neg ? f->result_signed && v >= lo : sp->value <= hi)
        return 0;
    /* what the caller would receive instead: the low bits, sign-extended
     * for a signed type */
    uint64_t low = sp->value & mask;
    char given[32], got[32];
    if (sp->value_neg)
        snprintf(given, sizeof given, "%lld", (long long)v);
    else
        snprintf(given, sizeof given, "%llu", (unsigned long long)sp->value);
    if (f->result_signed && bits < 64 && (low >> (bits - 1)))
        snprintf(got, sizeof got, "%lld", (long long)(int64_t)(low | ~mask));
    else
        snprintf(got, sizeof got, "%llu", (unsigned long long)low);
    const char *got_name = NULL;
    for (unsigned k = 0; e && k < e->nvals && !got_name; k++)
        if ((uint64_t)e->vals[k].value == low)
            got_name = e->vals[k].name;
    fprintf(stderr, "cutap: --inject '%s': %s is out of the range of %s, the result type of %s (%lld..%llu): the "
                    "caller would get %s%s%s\n", arg, given, f->result_type, f->name, (long long)lo,
            (unsigned long long)hi, got, got_name ? ", " : "", got_name ? got_name : "");
    const struct dec_enum_val *ex = status_example(e);
    if (ex)
        fprintf(stderr, "       give a status of %s, by name or number: e.g. %s (%lld)\n", f->result_type, ex->name,
                (long long)ex->value);
    return -1;
}

/* A --inject SPEC (src/common/inject_spec.h), checked against every
 * function cutap knows before anything runs: NAMES must select at least
 * one, each of a layer whose calls can be skipped (not hidden, ioctl,
 * nvtx) and known by signature; error= needs functions that return a
 * status, and a status name must be one of each selected function's
 * status type (CUDA_ERROR_OUT_OF_MEMORY for the driver, cudaError... for
 * the runtime, CUBLAS_STATUS_... for cuBLAS, ncclSystemError for NCCL).
 * Appends the canonical form, names turned into numbers, to o->inject.
 * Returns 0, or 2 after saying which part is wrong. */
int inject_add(struct run_opts *o, const char *arg)
{
    struct cutap_inject_spec sp;
    char why[400];
    if (o->ninject >= CUTAP_INJECT_MAX) {
        fprintf(stderr, "cutap: --inject: at most %d specs\n", CUTAP_INJECT_MAX);
        return 2;
    }
    if (cutap_inject_parse(arg, strlen(arg), &sp, why, sizeof why)) {
        fprintf(stderr, "cutap: --inject '%s': %s\n", arg, why);
        return 2;
    }
    static const char *const lnames[] = CUTAP_LAYER_NAMES;
    unsigned nsel = 0;
    int resolved = !sp.value_name[0];
    uint64_t val = sp.value;
    const char *first = NULL;
    for (unsigned i = 0; i < cli_nknown_names; i++) {
        const char *name = cli_known_names[i].name;
        int layer = cli_known_names[i].layer;
        if (cutap_filter_eval(sp.names, name, layer, NULL) != 1)
            continue;
        nsel++;
        const char *ln = layer >= 0 && layer < (int)(sizeof lnames / sizeof *lnames) ? lnames[layer] : "?";
        if (layer == CUTAP_LAYER_HIDDEN || layer == CUTAP_LAYER_IOCTL || layer == CUTAP_LAYER_NVTX) {
            fprintf(stderr, "cutap: --inject '%s': '%s' selects %s, of layer %s, whose calls cannot be injected "
                            "(driver, runtime and library calls can)\n", arg, sp.names, name, ln);
            return 2;
        }
        const struct dec_set *set = layer == CUTAP_LAYER_DRIVER ? &dec_driver : &dec_layers;
        const struct dec_fn *f = dec_find_fn(set, name);
        if (!f) {
            fprintf(stderr, "cutap: --inject '%s': %s has no known signature: it cannot be injected\n", arg, name);
            return 2;
        }
        if (!sp.has_value)
            continue;
        if (!f->result_type) {
            /* the library cannot skip such a call (src/record/inject.c) */
            fprintf(stderr, "cutap: --inject '%s': no header declares %s: its result cannot be set "
                            "(delay= can still be injected)\n", arg, name);
            return 2;
        }
        if (!f->result_size) {
            fprintf(stderr, "cutap: --inject '%s': %s returns nothing (void): error= and retval= have no "
                            "result to set\n", arg, name);
            return 2;
        }
        int has_status = f->result_kind == DEC_ENUM && f->result_enum >= 0;
        if (sp.is_error && !has_status) {
            fprintf(stderr, "cutap: --inject '%s': error= needs functions that return a status; %s does not "
                            "(retval= sets any result)\n", arg, name);
            return 2;
        }
        const struct dec_enum *e = has_status ? &set->enums[f->result_enum] : NULL;
        if (!sp.value_name[0]) {
            if (inject_in_range(arg, &sp, f, e))
                return 2;
            continue;
        }
        int found = 0;
        for (unsigned k = 0; e && k < e->nvals; k++)
            if (!strcmp(e->vals[k].name, sp.value_name)) {
                if (resolved && (uint64_t)e->vals[k].value != val) {
                    fprintf(stderr, "cutap: --inject '%s': %s means %lld for %s but %llu for %s: give a number, or one "
                                    "spec per layer\n", arg, sp.value_name, (long long)e->vals[k].value, name,
                            (unsigned long long)val, first);
                    return 2;
                }
                val = (uint64_t)e->vals[k].value;
                found = resolved = 1;
                first = first ? first : name;
                break;
            }
        if (!found) {
            const struct dec_enum_val *ex = status_example(e);
            fprintf(stderr, "cutap: --inject '%s': '%s' is not a status of %s (layer %s%s%s%s%s)\n", arg,
                    sp.value_name, name, ln, e ? ", type " : "", e ? f->result_type : "", ex ? ", e.g. " : "",
                    ex ? ex->name : "");
            return 2;
        }
    }
    if (!nsel) {
        fprintf(stderr, "cutap: --inject '%s': '%s' selects none of the %u functions cutap knows\n", arg, sp.names,
                cli_nknown_names);
        return 2;
    }
    sp.value = val;
    sp.value_name[0] = 0;
    size_t used = strlen(o->inject);
    int n = cutap_inject_format(&sp, o->inject + used, sizeof o->inject - used - 1);
    if (n < 0) {
        fprintf(stderr, "cutap: --inject: the specs are too long together\n");
        return 2;
    }
    o->inject[used + (size_t)n] = '\n';
    o->inject[used + (size_t)n + 1] = 0;
    o->ninject++;
    return 0;
}

/* A size: a number of bytes with an optional K, M, G (powers of 1024,
 * optionally followed by iB or B); 0 when it is not one. */
static unsigned long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0)
        return 0;
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        m = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        m = 1024.0 * 1024 * 1024, end++;
    if (m > 1 && (!strcmp(end, "iB") || !strcmp(end, "B")))
        end += strlen(end);
    if (*end || v * m > 1e15)
        return 0;
    return (unsigned long long)(v * m);
}

/* Seconds, or a duration with its unit (cli_parse_duration: 500ms, 2s). */
static int parse_seconds(const char *opt, const char *arg, double *v, const char *usage)
{
    uint64_t ns;
    if (cli_parse_duration(arg, &ns) || ns > 1000000000ull * 1000000000ull) {
        cli_usage_error(usage, "%s takes seconds (0 or more, or with ns, us, ms, s), not '%s'", opt, arg);
        return 2;
    }
    *v = (double)ns / 1e9;
    return 0;
}

/* stat: whether --time-all is accepted */
/* A filter that selects no function cutap knows is most likely a typo
 * (cuMemalloc*): said at start; the command still runs, since functions
 * met at run time (newer driver exports, export-table slots) may match. */
static void filter_check_known(const char *filter)
{
    for (unsigned i = 0; i < cli_nknown_names; i++)
        if (cutap_filter_eval(filter, cli_known_names[i].name, cli_known_names[i].layer, NULL) == 1)
            return;
    /* layer=hidden selects export-table slots, named at run time */
    if (cutap_filter_eval(filter, NULL, CUTAP_LAYER_HIDDEN, NULL) == 1)
        return;
    fprintf(stderr, "cutap: warning: -e '%s' selects none of the %u functions cutap knows "
                    "(functions met at run time may still match)\n", filter, cli_nknown_names);
}

int parse(int argc, char **argv, struct run_opts *o, const char *usage, int stat)
{
    memset(o, 0, sizeof *o);
    /* --gpu by default where CUTAP_TRACE_GPU=1 says so (a site that has
     * judged its cost); --gpu and --no-gpu say it for one command */
    const char *dg = getenv("CUTAP_TRACE_GPU");
    int gpu_said = 0;
    o->gpu = !stat && dg && !strcmp(dg, "1");
    o->stuck = -1;
    o->delay = o->duration = -1;
    optind = 1;
    int c;
    while ((c = cli_getopt(argc, argv, stat ? "stat" : "trace", "+")) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'P':
            if (optarg && !*optarg)
                return cli_usage_error(usage, "--print= needs a file name (--print alone: stderr)");
            o->print = 1;
            o->print_file = optarg;
            break;
        case 'T': o->time_all = 1; break;
        case 'N': o->no_nvtx = 1; break;
        case 'G': o->gpu = gpu_said = 1; break;
        case CLI_OPT_NO_GPU: o->gpu = 0, gpu_said = 1; break;
        case CLI_OPT_IOCTL_PARAMS: o->ioctl_params = 1; break;
        case 'K': {
            char *end;
            o->stuck = strtod(optarg, &end);
            if (stat || *end || o->stuck <= 0) {
                cli_usage_error(usage, "--stuck takes seconds (trace only), not '%s'", optarg);
                return 2;
            }
            break;
        }
        case 'F': o->force = 1; break;
        case 'g':
            o->ring = parse_size(optarg);
            if (o->ring < (1ull << 20) || o->ring > (64ull << 30)) {
                return cli_usage_error(usage, "--ring takes a size from 1M to 64G (4M, 512M, 1G), not '%s'", optarg);
            }
            break;
        case 'y':
            if (parse_seconds("--delay", optarg, &o->delay, usage))
                return 2;
            break;
        case 'u':
            if (parse_seconds("--duration", optarg, &o->duration, usage))
                return 2;
            if (o->duration <= 0) {
                cli_usage_error(usage, "--duration takes seconds (more than 0), not '%s'", optarg);
                return 2;
            }
            break;
        case 'c':
            if (strcmp(optarg, "cudaProfilerApi") && (strncmp(optarg, "nvtx:", 5) || !optarg[5] || strlen(optarg) > 255)) {
                return cli_usage_error(usage, "--capture-range takes cudaProfilerApi or nvtx:NAME (a range's "
                                              "message, up to 250 bytes), not '%s'", optarg);
            }
            o->capture_range = optarg;
            break;
        case 'J':
            if (inject_add(o, optarg))
                return 2;
            break;
        case 'S': {
            /* the filter language, plus the term errors */
            char expr[1024];
            cutap_stack_filter_split(optarg, expr, sizeof expr);
            size_t n = strlen(expr);
            const char *bad = NULL;
            if (stat || !*optarg || (n && cutap_filter_eval(expr, NULL, 0, &bad) < 0)) {
                fprintf(stderr, "cutap: --stack '%s': %s\n", optarg,
                        stat ? "an option of cutap trace" : bad ? bad : "no filter");
                return 2;
            }
            if (n)
                filter_check_known(expr);
            o->stack = optarg;
            break;
        }
        case 'Y': {
            const char *bad = NULL;
            if (stat || cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: --sync-launches '%s': %s\n", optarg, stat ? "an option of cutap trace" : bad);
                return 2;
            }
            o->sync_launches = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'E': {
            const char *bad = NULL;
            if (cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: --until-error '%s': %s\n", optarg, bad);
                return 2;
            }
            o->until_error = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'R':
            if (strcmp(optarg, "symbols") && strcmp(optarg, "cupti") && strcmp(optarg, "all")) {
                cli_usage_error(usage, "--runtime=%s: takes all, symbols or cupti", optarg);
                return 2;
            }
            /* all (the default): every copy's own reports (issue #25);
             * cupti: the same through a CUPTI subscription; symbols: the
             * shared libcudart's symbols only */
            o->runtime = optarg;
            break;
        case 'e': {
            const char *bad = NULL;
            if (cutap_filter_eval(optarg, NULL, 0, &bad) < 0) {
                fprintf(stderr, "cutap: -e '%s': %s\n", optarg, bad);
                return 2;
            }
            o->filter = optarg;
            filter_check_known(optarg);
            break;
        }
        case 'h': fputs(usage, stdout); exit(0);
        default: return cli_usage_error(usage, NULL);
        }
    }
    if (o->capture_range && !strncmp(o->capture_range, "nvtx:", 5) && o->no_nvtx) {
        fprintf(stderr, "cutap: --capture-range nvtx:NAME needs NVTX ranges: not with --no-nvtx\n");
        return 2;
    }
    if (o->gpu && o->ring && !gpu_said)
        o->gpu = 0;   /* the default (CUTAP_TRACE_GPU) yields to a ring */
    if (o->gpu && o->ring)
        return cli_usage_error(usage, "--gpu with --ring: GPU activity is not kept in the ring yet: not together");
    if (o->print && o->ring)
        return cli_usage_error(usage, "--print follows the records as they are written; a ring (--ring) overwrites "
                                      "them: not together");
    if (optind >= argc) {
        cli_usage_error(usage, "no command to run");
        return 2;
    }
    o->cmd = argv + optind;
    return 0;
}
