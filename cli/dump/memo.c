/* dump through the readers' memo (cli/memo.c, issue #27): a finished
 * call's "(ARGS) = STATUS" formatted once for all the calls that make the
 * same text. */
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>

#include "cli.h"
#include "dump_internal.h"

struct dump_memo {
    struct cli_memo *memo;
    FILE *m;                  /* a miss is formatted here first */
    char *buf;
    size_t len;
};

struct dump_memo *dump_memo_new(void)
{
    struct dump_memo *dm = calloc(1, sizeof *dm);
    if (dm && (dm->memo = cli_memo_new()) && (dm->m = open_memstream(&dm->buf, &dm->len))) {
        __fsetlocking(dm->m, FSETLOCKING_BYCALLER);
        return dm;
    }
    dump_memo_free(dm);
    return NULL;   /* (CUTAP_MEMO=0, or no memory: every call formatted) */
}

void dump_memo_free(struct dump_memo *dm)
{
    if (!dm)
        return;
    cli_memo_free(dm->memo);
    if (dm->m)
        fclose(dm->m);
    free(dm->buf);
    free(dm);
}

const struct dec_fn *dump_put_memo(struct dump *d, const struct tr_call *c)
{
    struct dump_memo *dm = d->memo;
    struct cli_memo_key k;
    size_t len, unused;
    const void *fn;
    const char *t = cli_memo_key(&k, d->tr, c) ? cli_memo_get(dm->memo, &k, &len, &fn, &unused) : NULL;
    if (t) {
        out_mem(d->out, t, len);
        return fn;
    }
    FILE *out = d->out;
    d->out = dm->m;
    rewind(dm->m);
    const struct dec_fn *f = dump_put_args_of(d, c);
    dump_put_status(d, c, f);
    d->out = out;
    if (fflush(dm->m) || ferror(dm->m)) {   /* (memory): formatted where it goes, not kept */
        clearerr(dm->m);
        f = dump_put_args_of(d, c);
        dump_put_status(d, c, f);
        return f;
    }
    out_mem(d->out, dm->buf, dm->len);
    cli_memo_put(dm->memo, &k, dm->buf, dm->len, f, 0);
    return f;
}
