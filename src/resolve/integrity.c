/* The two export tables the CUDA runtime verifies (issue #14):
 * CUDART_INTERFACE and INTEGRITY_CHECK. The runtime calls INTEGRITY_CHECK's
 * slot 1, integrity_check(version, unix_seconds, result[2]), and compares
 * the 16 bytes the driver returns with a hash it computes itself over, among
 * others, the addresses of the two tables it was given and of that slot
 * (src/common/integrity_hash.c). Copies of those tables therefore fail the
 * check (error 103, "integrity checks failed"), unless the answer is
 * recomputed for the copies, as an open-source driver replacement does.
 *
 * cutap hands out copies of the two only when it has proved, in this
 * process, that it computes the driver's answer: at the first request of
 * either table it calls the driver's own integrity_check, hashes the
 * driver's real addresses with the same inputs, and compares. Equal: both
 * tables are wrapped from then on, and slot 1 of the copy is
 * integrity_slot1() below (behind the generic trampoline that records it),
 * which calls the driver's function, checks its answer against the real
 * addresses again, and replaces it with the one for the copies. Not equal,
 * or the check cannot be made (the driver not initialised yet: no device to
 * hash at the first request): the two stay observe-only for the life of
 * the process, as before.
 * docs/HIDDEN_API.md has the measured facts. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "resolve_internal.h"
#include "integrity_hash.h"

typedef int (*integrity_fn)(uint32_t version, uint64_t unix_seconds, uint64_t result[2]);
typedef int (*get_export_table_fn)(const void **table, const void *uuid);
typedef int (*int_out_fn)(int *);
typedef int (*uuid_fn)(void *uuid16, int dev);
typedef int (*attr_fn)(int *value, int attr, int dev);

static const unsigned char uuid_cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                              0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char uuid_integrity[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                                 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};

#define MAX_DEVS 64
static struct {
    int state;                       /* 0 not decided, 1 copies allowed, -1 observe only */
    const void *real_cudart, *real_integrity;
    integrity_fn real_fn;            /* the driver's slot 1 */
    uint32_t driver_version;
    unsigned ndevs;
    struct cutap_integrity_dev devs[MAX_DEVS];
    /* what the runtime was handed: the copies (or the real tables) */
    const void *_Atomic given_cudart, *_Atomic given_integrity;
    void *_Atomic given_slot1;
} ic;
static pthread_mutex_t ic_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(ic_lock)

static uint32_t self_tid(void) { return (uint32_t)(uintptr_t)pthread_self(); }

static void hash(uint32_t version, uint64_t secs, const void *cudart, const void *integrity, const void *slot1,
                 uint64_t out[2])
{
    cutap_integrity_hash(ic.driver_version, version, (uint32_t)getpid(), self_tid(), (uint64_t)(uintptr_t)cudart,
                         (uint64_t)(uintptr_t)integrity, (uint64_t)(uintptr_t)slot1, secs, ic.devs, ic.ndevs, out);
}

/* The inputs the driver hashes besides the addresses; 0 when all could be
 * had (an uninitialised driver has no device to tell). */
static int gather(void)
{
    int_out_fn version = (int_out_fn)cutap_driver_real(CUTAP_ID_cuDriverGetVersion);
    int_out_fn count = (int_out_fn)cutap_driver_real(CUTAP_ID_cuDeviceGetCount);
    uuid_fn uuid = (uuid_fn)cutap_driver_real(CUTAP_ID_cuDeviceGetUuid);
    attr_fn attr = (attr_fn)cutap_driver_real(CUTAP_ID_cuDeviceGetAttribute);
    int v = 0, n = 0;
    if (!version || !count || !uuid || !attr || version(&v) || count(&n) || n <= 0 || n > MAX_DEVS)
        return -1;
    for (int d = 0; d < n; d++) {
        struct cutap_integrity_dev *x = &ic.devs[d];
        /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50, _PCI_BUS_ID 33, _PCI_DEVICE_ID 34 */
        if (uuid(x->uuid, d) || attr(&x->pci_domain, 50, d) || attr(&x->pci_bus, 33, d) ||
            attr(&x->pci_device, 34, d))
            return -1;
    }
    ic.driver_version = (uint32_t)v;
    ic.ndevs = (unsigned)n;
    return 0;
}

/* Decides, once, whether copies may be handed out (see the top). Called
 * with ic_lock held. */
static void decide(void)
{
    /* CUTAP_INTEGRITY=0: never (the check makes driver calls of cutap's
     * own, 2 and 4 per device, which CUPTI reports: the GPU suite's
     * comparison with CUPTI turns it off, as it does kernel naming) */
    const char *e = getenv("CUTAP_INTEGRITY");
    if (e && !strcmp(e, "0")) {
        ic.state = -1;
        return;
    }
    get_export_table_fn get = (get_export_table_fn)cutap_driver_real(CUTAP_ID_cuGetExportTable);
    const void *c = NULL, *i = NULL;
    if (!get || get(&c, uuid_cudart) || get(&i, uuid_integrity) || !c || !i || ((const uintptr_t *)i)[0] < 16) {
        ic.state = -1;
        return;
    }
    integrity_fn fn = (integrity_fn)((const uintptr_t *)i)[1];
    if (!fn || !cutap_addr_is_code((const void *)fn) || gather()) {
        /* Not initialised yet (no device to hash). Decided for good: a
         * table the runtime got real stays real, and a copy of
         * CUDART_INTERFACE beside a real INTEGRITY_CHECK would fail. */
        cutap_log_debug("integrity check: no device to hash yet; CUDART_INTERFACE, INTEGRITY_CHECK observed");
        ic.state = -1;
        return;
    }
    ic.real_cudart = c, ic.real_integrity = i, ic.real_fn = fn;
    uint64_t got[2] = {0, 0}, want[2];
    /* a version that hashes the addresses (version % 10 >= 2) */
    uint64_t secs = (uint64_t)time(NULL);
    if (fn(13002, secs, got)) {
        ic.state = -1;
        return;
    }
    hash(13002, secs, c, i, (const void *)fn, want);
    ic.state = memcmp(got, want, sizeof got) ? -1 : 1;
    if (ic.state < 0)
        cutap_warn("the driver's integrity check is not the hash cutap knows: CUDART_INTERFACE and "
                   "INTEGRITY_CHECK are observed only (their calls are not recorded)");
    else
        cutap_log_debug("integrity check understood: CUDART_INTERFACE and INTEGRITY_CHECK can be wrapped");
}

int cutap_integrity_table(const void *uuid16)
{
    return !memcmp(uuid16, uuid_cudart, 16) || !memcmp(uuid16, uuid_integrity, 16);
}

int cutap_integrity_copies_ok(void)
{
    pthread_mutex_lock(&ic_lock);
    if (!ic.state)
        decide();
    int ok = ic.state > 0;
    pthread_mutex_unlock(&ic_lock);
    return ok;
}

void cutap_integrity_given(const void *uuid16, const void *table, void *slot1)
{
    if (!memcmp(uuid16, uuid_cudart, 16))
        atomic_store(&ic.given_cudart, table);
    else {
        atomic_store(&ic.given_slot1, slot1);
        atomic_store(&ic.given_integrity, table);
    }
}

/* Slot 1 of the INTEGRITY_CHECK copy (the trampoline that records the call
 * runs this as the real function). */
static int integrity_slot1(uint32_t version, uint64_t secs, uint64_t result[2])
{
    int r = ic.real_fn(version, secs, result);
    if (r || !result || version % 10 < 2)
        return r;   /* failed, or an answer of no address */
    const void *c = atomic_load(&ic.given_cudart), *i = atomic_load(&ic.given_integrity);
    void *s1 = atomic_load(&ic.given_slot1);
    if (!c)
        c = ic.real_cudart;   /* not asked for through us: the runtime holds the real one */
    if (!i || !s1)
        return r;
    uint64_t check[2], mine[2];
    hash(version, secs, ic.real_cudart, ic.real_integrity, (const void *)ic.real_fn, check);
    if (memcmp(check, result, sizeof check)) {
        static _Atomic int told;
        if (!atomic_exchange(&told, 1))
            cutap_warn("integrity check (version %u): the driver's answer is not the hash cutap knows; "
                       "the runtime will refuse the export-table copies (error 103)", version);
        return r;
    }
    hash(version, secs, c, i, s1, mine);
    memcpy(result, mine, sizeof mine);
    return r;
}

void *cutap_integrity_slot1_fn(void)
{
    return (void *)integrity_slot1;
}
