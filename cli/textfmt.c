/* Integers in text output without printf's parsing (the readers write
 * millions of them): what "%" PRIu64, "%" PRId64 and "0x%" PRIx64 print
 * (tests/unit/test_textfmt.c checks them against printf). */
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* "00" .. "99" */
const char text_digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

void text_u64(FILE *f, uint64_t v)
{
    char b[20], *e = b + sizeof b, *q = e;
    while (v >= 100) {   /* two digits a step */
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        *--q = text_digits2[2 * r + 1];
        *--q = text_digits2[2 * r];
    }
    if (v >= 10) {
        *--q = text_digits2[2 * v + 1];
        *--q = text_digits2[2 * v];
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

/* "00" .. "ff" */
static const char hex2[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                              "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                              "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                              "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                              "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                              "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                              "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                              "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

size_t text_hex_to(char *out, uint64_t v)
{
    unsigned nd = v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1;   /* hex digits */
    out[0] = '0';
    out[1] = 'x';
    char *q = out + 2 + nd;
    while (v >= 0x100) {   /* two digits a step */
        q -= 2;
        __builtin_memcpy(q, hex2 + 2 * (v & 0xff), 2);
        v >>= 8;
    }
    if (v >= 0x10) {
        q -= 2;
        __builtin_memcpy(q, hex2 + 2 * v, 2);
    } else {
        *--q = hex2[2 * v + 1];
    }
    return 2 + nd;
}

void text_hex(FILE *f, uint64_t v)
{
    char b[18];
    out_mem(f, b, text_hex_to(b, v));
}
