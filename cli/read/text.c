/* Text from a trace: UTF-8 and escaping of what the traced process
 * wrote, the loss and window of a process, stop reasons, file names. */
#define _GNU_SOURCE
#include <string.h>

#include "read_internal.h"

/* Length of the well-formed UTF-8 sequence of 2 to 4 bytes at p (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
int tr_utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    unsigned lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
    unsigned hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (!n || p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)   /* also stops at the NUL */
            return 0;
    return n;
}

size_t tr_escape_one(const unsigned char *p, char out[5], size_t *used)
{
    int n;
    if (*p >= 0x80 && (n = tr_utf8_len(p)) && !(p[0] == 0xc2 && p[1] < 0xa0)) {
        memcpy(out, p, (size_t)n);   /* UTF-8, but not the C1 controls U+0080..U+009F */
        *used = (size_t)n;
        return (size_t)n;
    }
    *used = 1;
    if (*p < 0x20 || *p >= 0x7f)
        return (size_t)snprintf(out, 5, "\\x%02x", *p);
    if (*p == '\\') {
        memcpy(out, "\\\\", 2);
        return 2;
    }
    out[0] = (char)*p;
    return 1;
}

size_t tr_escape(char *out, size_t size, const char *s)
{
    size_t n = 0, used;
    char one[5];
    for (const unsigned char *q = (const unsigned char *)s; *q; q += used) {
        size_t k = tr_escape_one(q, one, &used);
        if (n + k >= size)
            break;
        memcpy(out + n, one, k);
        n += k;
    }
    if (size)
        out[n] = 0;
    return n;
}

/* What a process lost (version 3 header), in words; 0 when nothing. */
int tr_loss_text(const struct tr_proc *p, char *buf, size_t size)
{
    const struct cutap_file_header *h = &p->h;
    int stopped = !!(h->flags & CUTAP_FILE_STOPPED);
    if (!stopped && !h->lost_calls && !h->lost_names)
        return 0;
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0)
    if (stopped) {
        const char *why = h->stop_reason == CUTAP_STOP_SPACE   ? "the file could not be extended"
                          : h->stop_reason == CUTAP_STOP_MAP   ? "a segment could not be mapped"
                          : h->stop_reason == CUTAP_STOP_LIMIT ? "the file reached cutap's size limit"
                          : h->stop_reason == CUTAP_STOP_FILE  ? "the program closed cutap's descriptor of the file"
                                                               : NULL;
        ADD("recording stopped early");
        if (h->stop_errno > 0 && h->stop_errno < 4096)
            ADD(" (%s)", strerror(h->stop_errno));
        else if (why)
            ADD(" (%s)", why);
    }
    if (h->lost_calls)
        ADD("%s%llu call%s not recorded", stopped ? ": " : "", (unsigned long long)h->lost_calls,
            h->lost_calls == 1 ? "" : "s");
    if (h->lost_names)
        ADD("%s%llu kernel name%s not recorded", stopped || h->lost_calls ? ", " : "",
            (unsigned long long)h->lost_names, h->lost_names == 1 ? "" : "s");
#undef ADD
    return 1;
}

/* What a version 5 file's flight recorder and capture control left out,
 * in words; 0 when neither was used. Not a loss: what the user asked for. */
int tr_window_text(const struct trace *tr, const struct tr_proc *p, char *buf, size_t size)
{
    const struct cutap_file_header *h = &p->h;
    if (!h->ring_chunks && !h->freeze_clock && !h->capture)
        return 0;
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0)
    if (h->ring_chunks) {
        double mib = (double)h->ring_chunks * h->chunk_size / (1 << 20);
        ADD("ring of %.4g MiB: %llu older call%s overwritten", mib, (unsigned long long)h->overwritten_calls,
            h->overwritten_calls == 1 ? "" : "s");
    }
    if (h->freeze_clock) {
        uint64_t at = h->freeze_clock > p->clock0 ? rd_ticks_to_ns(h->freeze_clock - p->clock0, p->rate) : 0;
        ADD("%sfrozen %.3f s after its start", n ? "; " : "", (double)at / 1e9);
        if (h->freeze_reason == CUTAP_FREEZE_ERROR) {
            uint32_t ni = rd_id_lookup(tr, p, h->freeze_id);
            ADD(" by its first failing %s (result %lld)", ni < tr->nnames ? tr->names[ni].name : "call",
                (long long)(int64_t)h->freeze_result);
        } else if (h->freeze_reason == CUTAP_FREEZE_PEER)
            ADD(" because another process froze on an error");
        else
            ADD(" on request (cutap freeze, or the signal to cutap trace)");
        ADD(": later calls counted, not recorded");
    }
    if (h->capture) {
        const char *how[3] = {0};
        int k = 0;
        if (h->capture & CUTAP_CAPTURE_WINDOW)
            how[k++] = "--delay/--duration";
        if (h->capture & CUTAP_CAPTURE_PROFILER)
            how[k++] = "cudaProfilerApi";
        if (h->capture & CUTAP_CAPTURE_NVTX)
            how[k++] = "nvtx";
        ADD("%srecorded only inside %u capture range%s (%s%s%s%s%s), other calls counted", n ? "; " : "",
            h->capture_ranges, h->capture_ranges == 1 ? "" : "s", k > 0 ? how[0] : "", k > 1 ? ", " : "",
            k > 1 ? how[1] : "", k > 2 ? ", " : "", k > 2 ? how[2] : "");
    }
#undef ADD
    return 1;
}

const char *tr_stop_reason_str(uint32_t reason)
{
    static const char *const s[] = {"none", "space", "map", "limit", "other", "file"};
    return reason < sizeof s / sizeof *s ? s[reason] : "other";
}

int tr_is_trace_name(const char *name)
{
    size_t l = strlen(name), sl = strlen(CUTAP_FILE_SUFFIX);
    return l > sl && !strcmp(name + l - sl, CUTAP_FILE_SUFFIX);
}
