/* The readers' memo of decoded calls (issue #27): a text made from a
 * finished call, kept by all that makes it. Traces repeat calls word for
 * word (a PyTorch step's 316 cudaGetDevice with the same pointer and
 * device, the same cuCtxGetDevice_v2 under each): the decoder's work a
 * call (its signature, each argument's type, the enum names) is then a
 * hash and a comparison of the record's bytes.
 *
 * What decodes a call: the process (its kernel names, the sonames of its
 * layers, the descriptions its file gives), the name and id (the
 * signature), the recorded flags, the result and the record's payload
 * (argument words and captures: the bytes decoded behind pointers). That
 * is the key, compared whole (a hash match alone is never trusted). A
 * loaded trace's tables do not change while it is read; the live view
 * (cutap trace --print), whose kernel names arrive after the calls that
 * use them, makes no memo. Bounded: CLI_MEMO_SLOTS entries a formatting
 * thread, keys and texts at most CLI_MEMO_KEY_MAX and CLI_MEMO_TEXT_MAX
 * bytes (a longer one is made every time). CUTAP_MEMO=0 turns it off (the
 * tests compare both). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_MEMO_SLOTS 1024
#define CLI_MEMO_TEXT_MAX 1024

struct memo_slot {
    uint64_t h;
    uint32_t klen, tlen;
    const void *aux;
    size_t aux2;
    unsigned char key[CLI_MEMO_KEY_MAX];
    char *text;
};
struct cli_memo {
    struct memo_slot s[CLI_MEMO_SLOTS];
};

struct cli_memo *cli_memo_new(void)
{
    const char *e = getenv("CUTAP_MEMO");
    if (e && !strcmp(e, "0"))
        return NULL;
    return calloc(1, sizeof(struct cli_memo));   /* (NULL, no memory: every call made) */
}

void cli_memo_free(struct cli_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < CLI_MEMO_SLOTS; i++)
        free(m->s[i].text);
    free(m);
}

static inline uint64_t memo_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

int cli_memo_key(struct cli_memo_key *k, const struct trace *tr, const struct tr_call *c)
{
    if (!c->t1 || (c->rflags & TR_RF_RANGE))
        return k->len = 0;
    const struct cutap_rec_call *r = c->rec;
    size_t len = tr_payload_len(c);
    const unsigned char *base = (const unsigned char *)r->words;
    struct {
        uint32_t proc, name, id, flags;
        uint64_t result;
        uint32_t nargs, ncap;
    } h = {tr->threads[c->thread].proc, c->name, r->id, c->flags, tr_result(c), r->nargs, r->ncap};
    _Static_assert(sizeof h % 8 == 0, "the key's head is whole words");
    if (sizeof h + len > CLI_MEMO_KEY_MAX)
        return k->len = 0;
    /* copied and hashed a word at a time in one pass (a call's payload is
     * whole words: argument words, 8-byte capture headers, room a multiple
     * of 8; a tail is hashed a byte at a time all the same) */
    uint64_t x = sizeof h + len, w;
    memcpy(k->k, &h, sizeof h);
    for (size_t i = 0; i < sizeof h; i += 8) {
        memcpy(&w, (const unsigned char *)&h + i, 8);
        x = memo_mix(x, w);
    }
    unsigned char *o = k->k + sizeof h;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, base + i, 8);
        memcpy(o + i, &w, 8);
        x = memo_mix(x, w);
    }
    for (; i < len; i++) {
        o[i] = base[i];
        x = (x ^ base[i]) * 0x100000001b3ull;
    }
    k->len = sizeof h + len;
    k->h = x ^ (x >> 32);
    return 1;
}

const char *cli_memo_get(const struct cli_memo *m, const struct cli_memo_key *k, size_t *len, const void **aux,
                         size_t *aux2)
{
    const struct memo_slot *s = &m->s[k->h % CLI_MEMO_SLOTS];
    if (!k->len || !s->text || s->h != k->h || s->klen != k->len || memcmp(s->key, k->k, k->len))
        return NULL;
    *len = s->tlen;
    *aux = s->aux;
    *aux2 = s->aux2;
    return s->text;
}

void cli_memo_put(struct cli_memo *m, const struct cli_memo_key *k, const char *text, size_t len, const void *aux,
                  size_t aux2)
{
    if (!k->len || len > CLI_MEMO_TEXT_MAX)
        return;
    struct memo_slot *s = &m->s[k->h % CLI_MEMO_SLOTS];
    char *t = realloc(s->text, len ? len : 1);
    if (!t)
        return;   /* (the old text stays, with the key it was made for) */
    memcpy(t, text, len);
    s->text = t;
    s->tlen = (uint32_t)len;
    s->h = k->h;
    s->klen = (uint32_t)k->len;
    memcpy(s->key, k->k, k->len);
    s->aux = aux;
    s->aux2 = aux2;
}
