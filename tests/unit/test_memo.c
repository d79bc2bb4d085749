/* The readers' memo of decoded calls (cli/memo.c, issue #27): a call's key
 * holds everything that decodes it, byte for byte (the process, the name,
 * the id, the flags, the result, the counts, then the argument words and
 * captures as recorded, copied and hashed in one pass), so that two calls
 * that differ in any one of those bytes never share a text; what is put
 * under a key is got back under an equal key only. */
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "unit.h"

/* A finished call of 3 argument words and one capture of 8 bytes (room
 * 8): 2 slots. */
struct two_slots {
    struct cutap_rec_call r;
    unsigned char more[CUTAP_SLOT];
};

static void make(struct two_slots *s, uint64_t w0, uint8_t cap_byte)
{
    memset(s, 0, sizeof *s);
    s->r.kind = CUTAP_REC_CALL;
    s->r.flags = CUTAP_RF_DONE;
    s->r.nslots = 2;
    s->r.id = 7;
    s->r.t0 = 100;
    s->r.t1 = 200;
    s->r.nargs = 3;
    s->r.ncap = 1;
    uint64_t w[3] = {w0, 0x1234, 0xffffffffffffffffull};
    memcpy(s->r.words, w, sizeof w);
    struct cutap_capture h = {.len = 8, .reserved = 8, .arg = 0, .kind = CUTAP_CAP_OUT_BYTES, .state = CUTAP_CAPS_OK};
    unsigned char *p = (unsigned char *)s->r.words + 24;
    memcpy(p, &h, sizeof h);
    memset(p + sizeof h, cap_byte, 8);
}

static struct tr_thread thread0;
static struct trace tr = {.threads = &thread0, .nthreads = 1};

static void entry(struct tr_call *c, const struct two_slots *s)
{
    memset(c, 0, sizeof *c);
    c->t0 = 100;
    c->t1 = 200;
    c->name = 3;
    c->flags = CUTAP_RF_DONE;
    c->rec = &s->r;
    c->object = -1;
}

TESTCASE(key_holds_the_payload)
{
    struct two_slots s;
    make(&s, 0xabcdef, 0x5a);
    struct tr_call c;
    entry(&c, &s);
    struct cli_memo_key k;
    CHECK_INT(cli_memo_key(&k, &tr, &c), 1);
    size_t payload = 3 * 8 + sizeof(struct cutap_capture) + 8;
    CHECK_INT(tr_payload_len(&c), payload);
    CHECK_INT(k.len, 32 + payload);   /* the head: proc, name, id, flags, result, nargs, ncap */
    CHECK_MEM(k.k + 32, s.r.words, payload);
}

TESTCASE(every_byte_counts)
{
    /* two keys made one after the other (the second over the first's
     * bytes, as a formatting thread reuses its key) differ wherever the
     * calls do: the first argument word, the last byte of the capture */
    struct two_slots a, b;
    make(&a, 0xabcdef, 0x5a);
    struct tr_call ca, cb;
    entry(&ca, &a);
    struct cli_memo_key ka, kb;
    for (int which = 0; which < 2; which++) {
        make(&b, which == 0 ? 0xabcdee : 0xabcdef, which == 1 ? 0x5b : 0x5a);
        entry(&cb, &b);
        CHECK_INT(cli_memo_key(&kb, &tr, &cb), 1);
        CHECK_INT(cli_memo_key(&ka, &tr, &ca), 1);
        CHECK(ka.len == kb.len && memcmp(ka.k, kb.k, ka.len) != 0);
        CHECK_INT(cli_memo_key(&kb, &tr, &cb), 1);   /* (made again over a's bytes) */
        CHECK_MEM(kb.k + 32, b.r.words, kb.len - 32);
    }
    /* and the head: another name index */
    struct tr_call cn = ca;
    cn.name = 4;
    CHECK_INT(cli_memo_key(&kb, &tr, &cn), 1);
    CHECK_INT(cli_memo_key(&ka, &tr, &ca), 1);
    CHECK(memcmp(ka.k, kb.k, ka.len) != 0);
}

TESTCASE(get_what_was_put)
{
    struct cli_memo *m = cli_memo_new();
    CHECK(m != NULL);
    if (!m)
        return;
    struct two_slots a, b;
    make(&a, 1, 0x11);
    make(&b, 2, 0x11);
    struct tr_call ca, cb;
    entry(&ca, &a);
    entry(&cb, &b);
    struct cli_memo_key ka, kb;
    CHECK_INT(cli_memo_key(&ka, &tr, &ca), 1);
    CHECK_INT(cli_memo_key(&kb, &tr, &cb), 1);
    size_t len = 0, aux2 = 0;
    const void *aux = NULL;
    CHECK(cli_memo_get(m, &ka, &len, &aux, &aux2) == NULL);
    cli_memo_put(m, &ka, "(one) = CUDA_SUCCESS", 20, &a, 5);
    const char *t = cli_memo_get(m, &ka, &len, &aux, &aux2);
    CHECK(t && len == 20 && !memcmp(t, "(one) = CUDA_SUCCESS", 20) && aux == &a && aux2 == 5);
    CHECK(cli_memo_get(m, &kb, &len, &aux, &aux2) == NULL);
    /* an unfinished call has no key */
    struct tr_call cu = ca;
    cu.t1 = 0;
    CHECK_INT(cli_memo_key(&kb, &tr, &cu), 0);
    cli_memo_free(m);
}

TESTLIST_BEGIN(memo)
    TESTENTRY(key_holds_the_payload)
    TESTENTRY(every_byte_counts)
    TESTENTRY(get_what_was_put)
TESTLIST_END()
