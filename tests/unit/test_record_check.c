/* A call record's layout checks (cli/read/load.c rd_check_call, and the
 * inline rd_call_fits that the scan's summaries and the iteration use for
 * records of no capture or one, issue #27): the same verdict on every
 * record, well formed or not: argument words past the record, capture
 * headers past it, room not a multiple of 8, a length past its room, a
 * capture of a missing argument, several captures. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cutap_format.h"
#include "read/read_internal.h"
#include "unit.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (uint32_t)(rnd_state % n);
}

TESTCASE(inline_agrees)
{
    static unsigned char buf[8 * CUTAP_SLOT];
    unsigned ok = 0, bad = 0, differ = 0;
    for (int i = 0; i < 200000; i++) {
        memset(buf, 0, sizeof buf);
        struct cutap_rec_call *r = (struct cutap_rec_call *)(void *)buf;
        r->kind = CUTAP_REC_CALL;
        r->nslots = (uint16_t)(1 + rnd(4));
        r->nargs = (uint8_t)rnd(i % 3 ? 12 : 256);
        r->ncap = (uint8_t)(i % 5 ? rnd(2) + (rnd(4) == 0) : rnd(256));
        /* captures laid out after the words, mostly plausible */
        size_t off = (size_t)r->nargs * 8;
        for (unsigned k = 0; k < r->ncap && off + 8 <= sizeof buf - 64; k++) {
            struct cutap_capture h = {.len = (uint16_t)rnd(40), .reserved = (uint16_t)(rnd(6) * 8 + (rnd(8) == 0)),
                                      .arg = (uint8_t)rnd(r->nargs + 2), .kind = 1, .state = 1};
            memcpy((unsigned char *)r->words + off, &h, sizeof h);
            off += sizeof h + h.reserved;
        }
        int fits = rd_call_fits(r), checked = rd_check_call(r) == NULL;
        differ += fits != checked;
        ok += checked;
        bad += !checked;
    }
    CHECK_INT(differ, 0);
    /* both verdicts were reached many times */
    CHECK(ok > 10000 && bad > 10000);
}

TESTLIST_BEGIN(record_check)
    TESTENTRY(inline_agrees)
TESTLIST_END()
