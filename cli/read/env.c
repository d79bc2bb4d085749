/* What NVIDIA libraries read from the environment (issue #32): the ENV
 * meta records of a file (docs/FORMAT.md, "Environment lookups"), kept
 * per process (tr_proc.env) as the file is read. */
#include <string.h>

#include "read_internal.h"

/* An environment lookup (CUTAP_META_ENV) of thread ti: the name, and the
 * value where the record says it was set (both NUL-terminated within the
 * record: its terminating NUL is checked, and a value must start before it). */
void rd_env(struct tr_proc *p, const struct cutap_rec_meta *m, uint32_t ti)
{
    const struct cutap_rec_call *r = (const void *)m;
    size_t room = 40 + (size_t)CUTAP_SLOT * (r->nslots - 1u), n = strnlen(m->text, room);
    const char *value = NULL;
    if ((m->key & CUTAP_ENV_SET) && n + 1 < room && memchr(m->text + n + 1, 0, room - n - 1))
        value = m->text + n + 1;
    p->env = rd_grow(p->env, &p->cap_env, p->nenv + 1, sizeof *p->env);
    p->env[p->nenv++] = (struct tr_env){m->clock, ti, m->aux, (uint32_t)(m->key & 0xffffffffu), m->text, value};
}

uint64_t tr_env_ns(const struct tr_proc *p, const struct tr_env *e)
{
    return p->base_ns + rd_ticks_to_ns(e->clock > p->clock0 ? e->clock - p->clock0 : 0, p->rate);
}

const char *tr_env_object(const struct trace *tr, const struct tr_proc *p, const struct tr_env *e)
{
    if (!e->object || e->object - 1 >= p->nobjects || !p->objects[e->object - 1])
        return "?";
    return tr->names[p->objects[e->object - 1] - 1].name;
}
