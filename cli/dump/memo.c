/* dump's memo (issue #27): a finished call's "(ARGS) = STATUS" by all that
 * makes it, formatted once. Traces repeat calls word for word (a PyTorch
 * step's 316 cudaGetDevice with the same pointer and device, the same
 * cuCtxGetDevice_v2 under each): the decoder's work a call (its
 * signature, each argument's type, the enum names) is then a hash and a
 * comparison of the record's bytes.
 *
 * The text depends on the process (its kernel names, the sonames of its
 * layers, the descriptions its file gives), the name and id (the
 * signature), the recorded flags, the result and the record's payload
 * (argument words and captures, the bytes decoded behind pointers): that
 * is the key, compared whole (a hash match alone is never trusted). A
 * loaded trace's tables do not change while dump reads it; the live view
 * (cutap trace --print), whose kernel names arrive after the calls that
 * use them, makes no memo. Bounded: MEMO_SLOTS entries a formatting
 * thread, each key and text at most MEMO_KEY_MAX and MEMO_TEXT_MAX bytes
 * (a longer one is formatted every time). CUTAP_DUMP_MEMO=0 turns it off
 * (the tests compare both). */
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dump_internal.h"

#define MEMO_SLOTS 1024
#define MEMO_KEY_MAX 320
#define MEMO_TEXT_MAX 1024

struct memo_slot {
    uint64_t h;
    uint32_t klen, tlen;
    const struct dec_fn *fn;
    const struct dec_set *set;
    unsigned char key[MEMO_KEY_MAX];
    char *text;
};
struct dump_memo {
    struct memo_slot *s;
    FILE *m;                  /* a miss is formatted here first */
    char *buf;
    size_t len;
};

struct dump_memo *dump_memo_new(void)
{
    const char *e = getenv("CUTAP_DUMP_MEMO");
    if (e && !strcmp(e, "0"))
        return NULL;
    struct dump_memo *mm = calloc(1, sizeof *mm);
    if (mm && (mm->s = calloc(MEMO_SLOTS, sizeof *mm->s)) && (mm->m = open_memstream(&mm->buf, &mm->len))) {
        __fsetlocking(mm->m, FSETLOCKING_BYCALLER);
        return mm;
    }
    dump_memo_free(mm);
    return NULL;   /* (no memory: every call formatted) */
}

void dump_memo_free(struct dump_memo *mm)
{
    if (!mm)
        return;
    for (size_t i = 0; mm->s && i < MEMO_SLOTS; i++)
        free(mm->s[i].text);
    free(mm->s);
    if (mm->m)
        fclose(mm->m);
    free(mm->buf);
    free(mm);
}

/* The key of c in k (MEMO_KEY_MAX bytes); its length, 0 when too long. */
static size_t memo_key(const struct dump *d, const struct tr_call *c, unsigned char *k)
{
    const struct cutap_rec_call *r = c->rec;
    size_t len = (size_t)r->nargs * 8;
    const unsigned char *base = (const unsigned char *)r->words;
    for (unsigned i = 0; i < r->ncap; i++) {   /* (the record was checked: rd_check_call) */
        struct cutap_capture cap;
        memcpy(&cap, base + len, sizeof cap);
        len += sizeof cap + cap.reserved;
    }
    struct {
        uint32_t proc, name, id, flags;
        uint64_t result;
        uint32_t nargs, ncap;
    } h = {d->tr->threads[c->thread].proc, c->name, r->id, c->flags, tr_result(c), r->nargs, r->ncap};
    if (sizeof h + len > MEMO_KEY_MAX)
        return 0;
    memcpy(k, &h, sizeof h);
    memcpy(k + sizeof h, base, len);
    return sizeof h + len;
}

static uint64_t memo_hash(const unsigned char *k, size_t n)
{
    uint64_t h = n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, k + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ k[i]) * 0x100000001b3ull;
    return h ^ (h >> 32);
}

/* "(ARGS) = STATUS" of a finished call, from the memo or formatted (and
 * kept); the signature it was decoded by (NULL: raw words). */
const struct dec_fn *dump_put_memo(struct dump *d, const struct tr_call *c)
{
    struct dump_memo *mm = d->memo;
    unsigned char k[MEMO_KEY_MAX];
    size_t klen = memo_key(d, c, k);
    uint64_t h = klen ? memo_hash(k, klen) : 0;
    struct memo_slot *s = &mm->s[h % MEMO_SLOTS];
    if (klen && s->text && s->h == h && s->klen == klen && !memcmp(s->key, k, klen)) {
        out_mem(d->out, s->text, s->tlen);
        d->set = s->set;
        return s->fn;
    }
    FILE *out = d->out;
    d->out = mm->m;
    rewind(mm->m);
    const struct dec_fn *fn = dump_put_args_of(d, c);
    dump_put_status(d, c, fn);
    d->out = out;
    if (fflush(mm->m) || ferror(mm->m)) {   /* (memory): formatted where it goes, not kept */
        clearerr(mm->m);
        fn = dump_put_args_of(d, c);
        dump_put_status(d, c, fn);
        return fn;
    }
    out_mem(d->out, mm->buf, mm->len);
    if (!klen || mm->len > MEMO_TEXT_MAX)
        return fn;
    char *t = realloc(s->text, mm->len ? mm->len : 1);
    if (!t)
        return fn;   /* (the old text stays: its key still matches it) */
    memcpy(t, mm->buf, mm->len);
    s->text = t;
    s->tlen = (uint32_t)mm->len;
    s->h = h;
    s->klen = (uint32_t)klen;
    memcpy(s->key, k, klen);
    s->fn = fn;
    s->set = d->set;
    return fn;
}
