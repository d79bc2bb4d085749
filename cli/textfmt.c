/* Integers in text output without printf's parsing (the readers write
 * millions of them): what "%" PRIu64, "%" PRId64 and "0x%" PRIx64 print
 * (tests/unit/test_textfmt.c checks them against printf). */
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* "00" .. "99" */
static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

void text_u64(FILE *f, uint64_t v)
{
    char b[20], *e = b + sizeof b, *q = e;
    while (v >= 100) {   /* two digits a step */
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        *--q = digits2[2 * r + 1];
        *--q = digits2[2 * r];
    }
    if (v >= 10) {
        *--q = digits2[2 * v + 1];
        *--q = digits2[2 * v];
    } else {
        *--q = (char)('0' + v);
    }
    out_mem(f, q, (size_t)(e - q));
}

void text_i64(FILE *f, int64_t v)
{
    if (v < 0) {
        out_c('-', f);
        text_u64(f, (uint64_t)0 - (uint64_t)v);
    } else {
        text_u64(f, (uint64_t)v);
    }
}

void text_hex(FILE *f, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char b[18], *e = b + sizeof b, *q = e;
    while (v >= 0x100) {   /* a byte a step */
        *--q = hex[v & 15];
        *--q = hex[(v >> 4) & 15];
        v >>= 8;
    }
    if (v >= 0x10)
        *--q = hex[v & 15], v >>= 4;
    *--q = hex[v];
    *--q = 'x';
    *--q = '0';
    out_mem(f, q, (size_t)(e - q));
}
