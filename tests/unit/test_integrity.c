/* The CUDA runtime's integrity-check hash (src/common/integrity_hash.c),
 * which cutap recomputes for its copies of CUDART_INTERFACE and
 * INTEGRITY_CHECK: MD2 against RFC 1319's test suite, and the whole hash
 * against a vector computed independently (Perl's Digest::HMAC over
 * Digest::MD2 on the same 48-byte header and 28-byte device records), so
 * that a mistake in the message layout (field order, sizes, byte order)
 * shows here and not as error 103 on a GPU. */
#include <stdio.h>
#include <string.h>

#include "integrity_hash.h"
#include "unit.h"

static void hex16(const uint8_t *p, char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
}

TESTCASE(md2_rfc1319)
{
    static const struct {
        const char *msg, *digest;
    } v[] = {
        {"", "8350e5a3e24c153df2275c9f80692773"},
        {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
        {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
        {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
        {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "d5976f79d83d3a0dc9806c3c66f3efd8"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint8_t d[16];
        char h[33];
        cutap_md2(v[i].msg, strlen(v[i].msg), d);
        hex16(d, h);
        CHECK_STR(h, v[i].digest);
    }
}

TESTCASE(hash_of_a_header_and_two_devices)
{
    static const struct cutap_integrity_dev devs[2] = {
        {{0x9a, 0xfe, 0x2b, 0x8a, 0xac, 0x25, 0x2d, 0x38, 0xea, 0x37, 0xae, 0xc5, 0x6d, 0x71, 0x32, 0x5f}, 0, 2, 0},
        {{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}, 1, 0x41, 3},
    };
    uint64_t out[2];
    cutap_integrity_hash(13000, 13003, 4242, 0xdeadbeefu, 0x0000555500002000ull, 0x0000555500001000ull,
                         0x00007f0012345678ull, 1760000000u, devs, 2, out);
    char h[33];
    hex16((const uint8_t *)out, h);
    CHECK_STR(h, "0aa9fbeafad57131fc80dda12c42088d");
    /* every input counts */
    uint64_t other[2];
    cutap_integrity_hash(13000, 13003, 4242, 0xdeadbeefu, 0x0000555500002008ull, 0x0000555500001000ull,
                         0x00007f0012345678ull, 1760000000u, devs, 2, other);
    CHECK(memcmp(out, other, sizeof out) != 0);
}

TESTCASE(fixed_answers_use_no_address)
{
    uint64_t out[2] = {0, 0};
    CHECK_INT(cutap_integrity_fixed(13000, out), 1);
    CHECK(out[0] == 0x3341181C03CB675Cull && out[1] == 0x8ED383AA1F4CD1E8ull);
    CHECK_INT(cutap_integrity_fixed(13001, out), 1);
    CHECK(out[0] == 0x1841181C03CB675Cull);
    CHECK_INT(cutap_integrity_fixed(13002, out), 0);
}

TESTLIST_BEGIN(integrity)
    TESTENTRY(md2_rfc1319)
    TESTENTRY(hash_of_a_header_and_two_devices)
    TESTENTRY(fixed_answers_use_no_address)
TESTLIST_END()
