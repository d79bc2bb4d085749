/* The readers' integer formatting (cli/textfmt.c) against printf: every
 * value a width boundary makes interesting, and a sweep, in decimal,
 * signed decimal and hex; written to a full-buffered memory stream and to
 * one too small to take a number in one piece (the slow path). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "unit.h"

enum { U64, I64, HEX };

static void one(int how, uint64_t v, int tiny)
{
    char want[64], got[64], sbuf[4];
    if (how == U64)
        snprintf(want, sizeof want, "%" PRIu64, v);
    else if (how == I64)
        snprintf(want, sizeof want, "%" PRId64, (int64_t)v);
    else
        snprintf(want, sizeof want, "0x%" PRIx64, v);
    memset(got, 0, sizeof got);
    FILE *m = fmemopen(got, sizeof got, "w");
    CHECK(m != NULL);
    if (!m)
        return;
    if (tiny)
        setvbuf(m, sbuf, _IOFBF, sizeof sbuf);   /* the number does not fit the buffer */
    if (how == U64)
        text_u64(m, v);
    else if (how == I64)
        text_i64(m, (int64_t)v);
    else
        text_hex(m, v);
    fclose(m);
    CHECK_STR(got, want);
}

TESTCASE(boundaries)
{
    /* around each power of 10 and of 16, and the extremes */
    for (int how = U64; how <= HEX; how++) {
        for (uint64_t p = 1; p; p = p > UINT64_MAX / 10 ? 0 : p * 10)
            for (int d = -1; d <= 1; d++)
                one(how, p + (uint64_t)(int64_t)d, 0);
        for (unsigned s = 0; s < 64; s += 4)
            for (int d = -1; d <= 1; d++)
                one(how, ((uint64_t)1 << s) + (uint64_t)(int64_t)d, 0);
        one(how, 0, 0);
        one(how, UINT64_MAX, 0);
        one(how, (uint64_t)INT64_MAX, 0);
        one(how, (uint64_t)INT64_MIN, 0);
        one(how, UINT64_MAX, 1);
        one(how, 123456789, 1);
    }
}

TESTCASE(sweep)
{
    for (uint64_t v = 0; v < 200000; v += 13) {
        one(U64, v, 0);
        one(HEX, v * 7919, 0);
        one(I64, (uint64_t)-(int64_t)v, 0);
    }
    for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + 1)
        for (int how = U64; how <= HEX; how++)
            one(how, v, 0);
}

/* out_mem after a second setvbuf and an fwrite (as the reader fuzzer runs
 * dump again on its stdout): glibc 2.36 leaves the stream's write end
 * below its pointer there (putc_unlocked reads that as no room); the
 * direct copy must too, and not take the unsigned difference for room
 * without end (dump wrote past its 1 MiB buffer under ASan). Pieces of
 * every length the inline copy has a branch for, into a 128-byte buffer
 * followed by a guard. */
TESTCASE(direct_after_setvbuf)
{
    static struct {
        char buf[128];
        char guard[64];
    } s;
    memset(s.guard, 0x5a, sizeof s.guard);
    char got[4096];
    memset(got, 0, sizeof got);
    FILE *m = fmemopen(got, sizeof got - 1, "w");
    CHECK(m != NULL);
    if (!m)
        return;
    setvbuf(m, s.buf, _IOFBF, sizeof s.buf);
    out_c('x', m);
    fflush(m);
    setvbuf(m, s.buf, _IOFBF, sizeof s.buf);
    fwrite("start", 1, 5, m);   /* the end now lies below the pointer (glibc 2.36) */
    char want[4096] = "xstart", piece[40];
    size_t len = 6;
    for (unsigned k = 0; k < 60; k++) {
        unsigned n = 1 + k % 20;
        for (unsigned i = 0; i < n; i++)
            piece[i] = (char)('a' + (k + i) % 26);
        out_mem(m, piece, n);
        memcpy(want + len, piece, n);
        len += n;
    }
    want[len] = 0;
    fclose(m);
    CHECK_STR(got, want);
    for (size_t i = 0; i < sizeof s.guard; i++)
        if (s.guard[i] != 0x5a) {
            CHECK(!"out_mem wrote past the stream's buffer");
            break;
        }
}

TESTLIST_BEGIN(textfmt)
    TESTENTRY(boundaries)
    TESTENTRY(sweep)
    TESTENTRY(direct_after_setvbuf)
TESTLIST_END()
