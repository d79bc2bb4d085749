/* The -e / CUTAP_FILTER language (src/common/filter_expr.c):
 * cutap_filter_eval on names and layers, and every way an expression is
 * refused. */
#include <string.h>

#include "cutap.h"
#include "filter_expr.h"
#include "generated/cutap_ids.h"
#include "unit.h"

#define D CUTAP_LAYER_DRIVER
#define H CUTAP_LAYER_HIDDEN
#define RT CUTAP_LAYER_RUNTIME

static int eval(const char *expr, const char *name, int layer) { return cutap_filter_eval(expr, name, layer, NULL); }

/* The message an invalid EXPR gets (NULL when it is valid). */
static const char *why(const char *expr)
{
    const char *w = NULL;
    return cutap_filter_eval(expr, "cuInit", D, &w) < 0 ? w : NULL;
}

TESTCASE(glob_selects_names)
{
    CHECK_INT(eval("cuMem*", "cuMemAlloc_v2", D), 1);
    CHECK_INT(eval("cuMem*", "cuMemFree_v2", D), 1);
    CHECK_INT(eval("cuMem*", "cuInit", D), 0);
    CHECK_INT(eval("cuInit", "cuInit", D), 1);
    CHECK_INT(eval("cuInit", "cuInitX", D), 0);            /* a whole name, not a prefix */
    CHECK_INT(eval("cuMemAlloc_v?", "cuMemAlloc_v2", D), 1);
    CHECK_INT(eval("cu[MI]*", "cuInit", D), 1);
    CHECK_INT(eval("cu[MI]*", "cuLaunchKernel", D), 0);
    CHECK_INT(eval("cumem*", "cuMemAlloc_v2", D), 0);      /* names are case-sensitive */
}

TESTCASE(glob_ignores_layer)
{
    CHECK_INT(eval("cuMem*", "cuMemAlloc_v2", RT), 1);
    CHECK_INT(eval("cuda*", "cudaMalloc", RT), 1);
    CHECK_INT(eval("CONTEXT_LOCAL_STORAGE#*", "CONTEXT_LOCAL_STORAGE#3", H), 1);
    CHECK_INT(eval("CONTEXT_LOCAL_STORAGE#*", "CUDART_INTERFACE#3", H), 0);
}

TESTCASE(any_positive_term_selects)
{
    CHECK_INT(eval("cuInit,cuMem*", "cuInit", D), 1);
    CHECK_INT(eval("cuInit,cuMem*", "cuMemAlloc_v2", D), 1);
    CHECK_INT(eval("cuInit,cuMem*", "cuLaunchKernel", D), 0);
}

TESTCASE(negative_terms_exclude)
{
    CHECK_INT(eval("!cuMem*", "cuInit", D), 1);            /* only exclusions: all else is selected */
    CHECK_INT(eval("!cuMem*", "cuMemAlloc_v2", D), 0);
    CHECK_INT(eval("cuMem*,!cuMemFree*", "cuMemAlloc_v2", D), 1);
    CHECK_INT(eval("cuMem*,!cuMemFree*", "cuMemFree_v2", D), 0);
    CHECK_INT(eval("!cuMemFree*,cuMem*", "cuMemFree_v2", D), 0);   /* the order of terms does not matter */
    CHECK_INT(eval("!cuMem*,!layer=hidden", "FAKE_SIZED#1", H), 0);
    CHECK_INT(eval("!cuMem*,!layer=hidden", "cuInit", D), 1);
}

TESTCASE(layer_terms)
{
    CHECK_INT(eval("layer=driver", "cuInit", D), 1);
    CHECK_INT(eval("layer=driver", "cudaMalloc", RT), 0);
    CHECK_INT(eval("layer=runtime", "cudaMalloc", RT), 1);
    CHECK_INT(eval("layer=cublas,layer=driver", "cublasSgemm_v2", CUTAP_LAYER_CUBLAS), 1);
    CHECK_INT(eval("layer=cublas,layer=driver", "cublasLtMatmul", CUTAP_LAYER_CUBLASLT), 0);
    CHECK_INT(eval("!layer=runtime", "cudaMalloc", RT), 0);
    CHECK_INT(eval("!layer=runtime", "cuMemAlloc_v2", D), 1);
    CHECK_INT(eval("layer=nvml", "nvmlInit_v2", CUTAP_LAYER_NVML), 1);
    CHECK_INT(eval("layer=ioctl", "RM_CONTROL", CUTAP_LAYER_IOCTL), 1);
    CHECK_INT(eval("!layer=ioctl", "RM_CONTROL", CUTAP_LAYER_IOCTL), 0);
    CHECK_INT(eval("!layer=ioctl", "cuInit", CUTAP_LAYER_DRIVER), 1);
}

TESTCASE(layer_names_any_case)
{
    CHECK_INT(eval("layer=CUBLAS", "x", CUTAP_LAYER_CUBLAS), 1);
    CHECK_INT(eval("layer=Runtime", "x", RT), 1);
    /* cublas and cublasLt differ in more than case: each its own layer */
    CHECK_INT(eval("layer=cublaslt", "x", CUTAP_LAYER_CUBLASLT), 1);
    CHECK_INT(eval("layer=cublaslt", "x", CUTAP_LAYER_CUBLAS), 0);
    CHECK_INT(eval("layer=nvjitlink", "x", CUTAP_LAYER_NVJITLINK), 1);
}

TESTCASE(every_layer_name_is_known)
{
    static const char *const names[] = CUTAP_LAYER_NAMES;
    char expr[64];
    CHECK_INT(sizeof names / sizeof *names, CUTAP_NLAYERS);
    for (int l = 0; l < CUTAP_NLAYERS; l++) {
        snprintf(expr, sizeof expr, "layer=%s", names[l]);
        CHECK_INT(eval(expr, "x", l), 1);
        CHECK_INT(eval(expr, "x", (l + 1) % CUTAP_NLAYERS), 0);
    }
}

TESTCASE(null_name_only_layer_terms)
{
    CHECK_INT(eval("cuMem*", NULL, D), 0);
    CHECK_INT(eval("*", NULL, D), 0);
    CHECK_INT(eval("layer=driver", NULL, D), 1);
    CHECK_INT(eval("!cuMem*", NULL, D), 1);
}

TESTCASE(prefix_layer_is_lowercase_only)
{
    /* "Layer=driver" is no layer term: a glob on names, selecting none */
    CHECK_INT(eval("Layer=driver", "cuInit", D), 0);
    CHECK(why("Layer=driver") == NULL);
}

TESTCASE(refused_expressions)
{
    CHECK_STR(why(""), "empty filter");
    CHECK_STR(why("cuMem*,"), "empty term");
    CHECK_STR(why(",cuMem*"), "empty term");
    CHECK_STR(why("cuInit,,cuMem*"), "empty term");
    CHECK_STR(why("!"), "empty term");
    CHECK_STR(why("cuInit,!"), "empty term");
    CHECK_INT(eval("", "cuInit", D), -1);
}

TESTCASE(term_length_limit)
{
    char t[300];
    memset(t, 'a', 254);                        /* 254 characters: the longest term */
    t[254] = 0;
    CHECK(why(t) == NULL);
    CHECK_INT(eval(t, "cuInit", D), 0);
    memset(t, 'a', 255);
    t[255] = 0;
    CHECK_STR(why(t), "term longer than 254 characters");
    t[0] = '!';                                 /* the '!' is not counted */
    memset(t + 1, 'a', 254);
    t[255] = 0;
    CHECK(why(t) == NULL);
    memset(t + 1, 'a', 255);
    t[256] = 0;
    CHECK_STR(why(t), "term longer than 254 characters");
    memcpy(t, "cuInit,", 7);                    /* any term, not only the first */
    memset(t + 7, 'a', 255);
    t[262] = 0;
    CHECK_STR(why(t), "term longer than 254 characters");
}

TESTCASE(unknown_layer_refused_with_the_names)
{
    const char *w = why("layer=cudart");
    CHECK(w != NULL);
    CHECK_STR(w, "layer= takes driver, hidden, runtime, cublas, cublasLt, cudnn, nccl, cufft, curand, cusparse, "
                 "cusolver, nvrtc, nvJitLink, nvtx, nvml, ioctl");
    CHECK(why("layer=") != NULL);               /* no name */
    CHECK(why("!layer=bogus") != NULL);
    CHECK(why("layer=driver ") != NULL);        /* a name exactly, no blanks */
}

TESTCASE(an_invalid_term_anywhere_refuses)
{
    /* the whole expression is checked, even after a term that selects */
    CHECK_INT(eval("cuInit,layer=bogus", "cuInit", D), -1);
    CHECK_INT(eval("layer=driver,cuMem*,", "cuInit", D), -1);
    const char *w = NULL;
    CHECK_INT(cutap_filter_eval("cuMem*,layer=bogus", "cuMemAlloc_v2", D, &w), -1);
    CHECK(w && !strncmp(w, "layer= takes", 12));
}

TESTCASE(why_untouched_when_valid)
{
    const char *w = "untouched";
    CHECK_INT(cutap_filter_eval("cuMem*", "cuInit", D, &w), 0);
    CHECK_STR(w, "untouched");
    CHECK_INT(cutap_filter_eval("cuMem*", "cuMemAlloc", D, &w), 1);
    CHECK_STR(w, "untouched");
}

TESTLIST_BEGIN(filter_expr)
    TESTENTRY(glob_selects_names)
    TESTENTRY(glob_ignores_layer)
    TESTENTRY(any_positive_term_selects)
    TESTENTRY(negative_terms_exclude)
    TESTENTRY(layer_terms)
    TESTENTRY(layer_names_any_case)
    TESTENTRY(every_layer_name_is_known)
    TESTENTRY(null_name_only_layer_terms)
    TESTENTRY(prefix_layer_is_lowercase_only)
    TESTENTRY(refused_expressions)
    TESTENTRY(term_length_limit)
    TESTENTRY(unknown_layer_refused_with_the_names)
    TESTENTRY(an_invalid_term_anywhere_refuses)
    TESTENTRY(why_untouched_when_valid)
TESTLIST_END()
