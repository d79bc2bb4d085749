/* The reader's pure functions (cli/read/, linked as it is): the
 * escaping of strings from the traced process for text output, UTF-8
 * lengths, trace file names, loss texts, stop reasons and layers by name
 * (format version 4). */
#include <errno.h>
#include <string.h>

#include "cutap.h"
#include "trace_read.h"
#include "unit.h"

#define U(s) ((const unsigned char *)(s))

TESTCASE(utf8_len_well_formed)
{
    CHECK_INT(tr_utf8_len(U("\xc3\xa9")), 2);           /* é */
    CHECK_INT(tr_utf8_len(U("\xc2\xa0")), 2);           /* U+00A0 */
    CHECK_INT(tr_utf8_len(U("\xe2\x82\xac")), 3);       /* € */
    CHECK_INT(tr_utf8_len(U("\xe0\xa0\x80")), 3);       /* U+0800, the first of 3 bytes */
    CHECK_INT(tr_utf8_len(U("\xed\x9f\xbf")), 3);       /* U+D7FF, below the surrogates */
    CHECK_INT(tr_utf8_len(U("\xf0\x9f\x98\x80")), 4);   /* U+1F600 */
    CHECK_INT(tr_utf8_len(U("\xf4\x8f\xbf\xbf")), 4);   /* U+10FFFF, the last */
    CHECK_INT(tr_utf8_len(U("\xc3\xa9xyz")), 2);        /* one sequence, not the rest */
}

TESTCASE(utf8_len_not_utf8)
{
    CHECK_INT(tr_utf8_len(U("a")), 0);                  /* ASCII is no multi-byte sequence */
    CHECK_INT(tr_utf8_len(U("\x80")), 0);               /* a continuation byte alone */
    CHECK_INT(tr_utf8_len(U("\xc0\x80")), 0);           /* overlong NUL */
    CHECK_INT(tr_utf8_len(U("\xc1\xbf")), 0);           /* overlong */
    CHECK_INT(tr_utf8_len(U("\xe0\x9f\xbf")), 0);       /* overlong 3 bytes */
    CHECK_INT(tr_utf8_len(U("\xed\xa0\x80")), 0);       /* a surrogate, U+D800 */
    CHECK_INT(tr_utf8_len(U("\xf0\x8f\xbf\xbf")), 0);   /* overlong 4 bytes */
    CHECK_INT(tr_utf8_len(U("\xf4\x90\x80\x80")), 0);   /* above U+10FFFF */
    CHECK_INT(tr_utf8_len(U("\xf5\x80\x80\x80")), 0);
    CHECK_INT(tr_utf8_len(U("\xff")), 0);
    CHECK_INT(tr_utf8_len(U("\xe2\x82")), 0);           /* cut short: stops at the NUL */
    CHECK_INT(tr_utf8_len(U("\xe2\x82x")), 0);
    CHECK_INT(tr_utf8_len(U("\xc3")), 0);
}

/* tr_escape_one of P: its output (NUL-terminated here) and bytes used. */
static const char *one(const char *p, size_t *used)
{
    static char out[8];
    size_t n = tr_escape_one(U(p), out, used);
    out[n] = 0;
    return out;
}

TESTCASE(escape_one)
{
    size_t used = 99;
    CHECK_STR(one("a", &used), "a");
    CHECK_INT(used, 1);
    CHECK_STR(one("\x1b[1m", &used), "\\x1b");
    CHECK_INT(used, 1);
    CHECK_STR(one("\t", &used), "\\x09");
    CHECK_STR(one("\n", &used), "\\x0a");
    CHECK_STR(one("\x7f", &used), "\\x7f");
    CHECK_STR(one("\\", &used), "\\\\");
    CHECK_INT(used, 1);
    CHECK_STR(one("\xc3\xa9", &used), "\xc3\xa9");      /* UTF-8 kept */
    CHECK_INT(used, 2);
    CHECK_STR(one("\xf0\x9f\x98\x80", &used), "\xf0\x9f\x98\x80");
    CHECK_INT(used, 4);
    CHECK_STR(one("\xc2\x85", &used), "\\xc2");         /* C1 control U+0085: byte by byte */
    CHECK_INT(used, 1);
    CHECK_STR(one("\xc2\xa0", &used), "\xc2\xa0");      /* U+00A0, just above C1 */
    CHECK_STR(one("\xff", &used), "\\xff");
    CHECK_STR(one("\xe2\x82", &used), "\\xe2");         /* cut short */
}

TESTCASE(escape_strings)
{
    char out[64];
    CHECK_INT(tr_escape(out, sizeof out, "cuInit\x1b[1m\xc3"), strlen("cuInit\\x1b[1m\\xc3"));
    CHECK_STR(out, "cuInit\\x1b[1m\\xc3");
    tr_escape(out, sizeof out, "h\x1b]0;pwned\x07ost");
    CHECK_STR(out, "h\\x1b]0;pwned\\x07ost");
    tr_escape(out, sizeof out, "kern\x1b[5m\xe2\x82");
    CHECK_STR(out, "kern\\x1b[5m\\xe2\\x82");
    tr_escape(out, sizeof out, "caf\xc3\xa9 \\ ok");
    CHECK_STR(out, "caf\xc3\xa9 \\\\ ok");
    CHECK_INT(tr_escape(out, sizeof out, ""), 0);
    CHECK_STR(out, "");
}

TESTCASE(escape_cut_short_whole)
{
    char out[8];
    memset(out, 'z', sizeof out);
    CHECK_INT(tr_escape(out, 4, "abcdef"), 3);          /* the NUL within size */
    CHECK_STR(out, "abc");
    CHECK_INT(out[4], 'z');
    CHECK_INT(tr_escape(out, 4, "a\x1b"), 1);           /* an escape is never cut in half */
    CHECK_STR(out, "a");
    CHECK_INT(tr_escape(out, 5, "a\xc3\xa9"), 3);
    CHECK_STR(out, "a\xc3\xa9");
    CHECK_INT(tr_escape(out, 3, "a\xc3\xa9"), 1);       /* nor a UTF-8 sequence */
    CHECK_STR(out, "a");
    out[0] = 'z';
    CHECK_INT(tr_escape(out, 0, "abc"), 0);             /* size 0: nothing written */
    CHECK_INT(out[0], 'z');
}

TESTCASE(trace_file_names)
{
    CHECK_INT(tr_is_trace_name("host.1234.cutap"), 1);
    CHECK_INT(tr_is_trace_name("a.cutap"), 1);
    CHECK_INT(tr_is_trace_name(".cutap"), 0);
    CHECK_INT(tr_is_trace_name("a.cutap.gz"), 0);
    CHECK_INT(tr_is_trace_name("a.cutapx"), 0);
    CHECK_INT(tr_is_trace_name(".cutap-procs"), 0);
    CHECK_INT(tr_is_trace_name(""), 0);
}

TESTCASE(stop_reasons)
{
    CHECK_STR(tr_stop_reason_str(CUTAP_STOP_NONE), "none");
    CHECK_STR(tr_stop_reason_str(CUTAP_STOP_SPACE), "space");
    CHECK_STR(tr_stop_reason_str(CUTAP_STOP_MAP), "map");
    CHECK_STR(tr_stop_reason_str(CUTAP_STOP_LIMIT), "limit");
    CHECK_STR(tr_stop_reason_str(CUTAP_STOP_OTHER), "other");
    CHECK_STR(tr_stop_reason_str(99), "other");
}

/* tr_loss_text of a process whose header has these loss fields. */
static const char *loss(uint32_t flags, int32_t err, uint32_t reason, uint64_t calls, uint64_t names, size_t size)
{
    static char buf[512];
    struct tr_proc p;
    memset(&p, 0, sizeof p);
    p.h.flags = flags;
    p.h.stop_errno = err;
    p.h.stop_reason = reason;
    p.h.lost_calls = calls;
    p.h.lost_names = names;
    strcpy(buf, "untouched");
    return tr_loss_text(&p, buf, size) ? buf : NULL;
}

TESTCASE(loss_texts)
{
    CHECK_STR(loss(CUTAP_FILE_STOPPED, ENOSPC, CUTAP_STOP_SPACE, 95000, 3, 512),
              "recording stopped early (No space left on device): 95000 calls not recorded, 3 kernel names not recorded");
    CHECK_STR(loss(CUTAP_FILE_STOPPED, 0, CUTAP_STOP_SPACE, 0, 0, 512),
              "recording stopped early (the file could not be extended)");
    CHECK_STR(loss(CUTAP_FILE_STOPPED, 0, CUTAP_STOP_MAP, 0, 0, 512),
              "recording stopped early (a segment could not be mapped)");
    CHECK_STR(loss(CUTAP_FILE_STOPPED, 0, CUTAP_STOP_LIMIT, 1, 0, 512),
              "recording stopped early (the file reached cutap's size limit): 1 call not recorded");
    CHECK_STR(loss(CUTAP_FILE_STOPPED, 0, CUTAP_STOP_OTHER, 0, 0, 512), "recording stopped early");
    CHECK_STR(loss(0, 0, 0, 7, 0, 512), "7 calls not recorded");
    CHECK_STR(loss(0, 0, 0, 0, 1, 512), "1 kernel name not recorded");
    CHECK_STR(loss(0, 0, 0, 2, 1, 512), "2 calls not recorded, 1 kernel name not recorded");
}

TESTCASE(loss_text_nothing_lost)
{
    CHECK(loss(0, 0, 0, 0, 0, 512) == NULL);
    char buf[16] = "untouched";
    struct tr_proc p;
    memset(&p, 0, sizeof p);
    CHECK_INT(tr_loss_text(&p, buf, sizeof buf), 0);
    CHECK_STR(buf, "untouched");
}

TESTCASE(loss_text_small_buffer)
{
    const char *t = loss(CUTAP_FILE_STOPPED, ENOSPC, CUTAP_STOP_SPACE, 95000, 3, 20);
    CHECK(t != NULL);
    CHECK_INT(strlen(t), 19);                           /* cut, NUL-terminated, within its size */
    CHECK_STR(t, "recording stopped e");
}

TESTCASE(layers_by_name)
{
    CHECK_INT(tr_layer_by_name("driver"), CUTAP_LAYER_DRIVER);
    CHECK_INT(tr_layer_by_name("runtime"), CUTAP_LAYER_RUNTIME);
    CHECK_INT(tr_layer_by_name("cublasLt"), CUTAP_LAYER_CUBLASLT);
    CHECK_INT(tr_layer_by_name("nvml"), CUTAP_LAYER_NVML);
    CHECK(tr_layer_extra_name(CUTAP_LAYER_RUNTIME) == NULL);
    /* names it does not know: numbered from CUTAP_LAYER_COUNT on, kept by name */
    int f = tr_layer_by_name("futurelayer");
    CHECK(f >= CUTAP_LAYER_COUNT);
    CHECK_INT(tr_layer_by_name("futurelayer"), f);
    CHECK_STR(tr_layer_extra_name(f), "futurelayer");
    int g = tr_layer_by_name("otherlayer");
    CHECK(g != f && g >= CUTAP_LAYER_COUNT);
    CHECK_STR(tr_layer_extra_name(g), "otherlayer");
    CHECK_INT(tr_layer_by_name("CUBLAS") >= CUTAP_LAYER_COUNT, 1);   /* by name exactly */
}

TESTLIST_BEGIN(trace_text)
    TESTENTRY(utf8_len_well_formed)
    TESTENTRY(utf8_len_not_utf8)
    TESTENTRY(escape_one)
    TESTENTRY(escape_strings)
    TESTENTRY(escape_cut_short_whole)
    TESTENTRY(trace_file_names)
    TESTENTRY(stop_reasons)
    TESTENTRY(loss_texts)
    TESTENTRY(loss_text_nothing_lost)
    TESTENTRY(loss_text_small_buffer)
    TESTENTRY(layers_by_name)
TESTLIST_END()
