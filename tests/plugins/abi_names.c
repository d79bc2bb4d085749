/* The plugin ABI across CUDA header updates (case api_ids_by_name): built
 * with -include of a cutap_ids.h from "another build" (every id shifted by
 * one, as when an update adds a function early in the sorted tables), it
 * watches cuCtxGetCurrent and counts what it sees, at exit one line:
 *   abi-<label>: watched=N other=M
 * -DBY_NAME asks for the id by name (cutap API 2): right whatever header
 * it was built with. Without it, it compiles the id in from that header
 * (what API 1 plugins did): it watches another function. The second
 * build exists to show that the case can fail. */
#include <stdio.h>
#include <string.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

static unsigned watched, other;
static uint32_t want;

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx, (void)scratch;
    if (!strcmp(cutap_call_name(c->id), "cuCtxGetCurrent") && c->id == want)
        watched++;
    else
        other++;
    return CUTAP_PROCEED;
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "abi-%s: watched=%u other=%u\n", LABEL, watched, other);
}

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    int me = cutap_register("abi", pre, NULL, NULL);
    if (api_version != CUTAP_API_VERSION || me < 0)
        return 1;
#ifdef BY_NAME
    want = cutap_lookup("cuCtxGetCurrent");
#else
    want = CUTAP_ID_cuCtxGetCurrent;
#endif
    return cutap_enable(me, want, 1);
}
