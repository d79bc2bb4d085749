/* A library whose constructor subscribes to CUPTI as soon as CUPTI has a
 * subscriber (under cutap trace --gpu: cutap's, while it still starts),
 * that is, under the loader's lock while another thread's first cuInit
 * runs: tests/t_gpu_own_client.c, mode ctor. Under cutap the program must
 * not hang (helper-30: it did, waiting for a lock cutap held while CUPTI
 * waited for the loader's). */
#include <dlfcn.h>
#include <stddef.h>
#include <time.h>

int cuptiSubscribe(void **subscriber, void *callback, void *userdata);
__attribute__((visibility("default"))) int ctor_subscribe_result = -1;

static void on_callback(void *ud, int domain, unsigned cbid, const void *data)
{
    (void)ud, (void)domain, (void)cbid, (void)data;
}

__attribute__((constructor)) static void subscribe_when_loaded(void)
{
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
    int (*has)(void) = h ? (int (*)(void))dlsym(h, "fake_cupti_has_subscriber") : NULL;
    for (int i = 0; has && i < 2000 && !has(); i++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    void *sub = NULL;
    ctor_subscribe_result = cuptiSubscribe(&sub, (void *)on_callback, NULL);
}
