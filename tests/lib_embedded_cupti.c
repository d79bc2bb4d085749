/* A library with CUPTI's activity registration of its own (as older
 * PyTorch builds link CUPTI statically into libtorch_cuda), for
 * t_gpu_own_client embedded: loaded RTLD_LOCAL, no libcupti anywhere. Its
 * function counts the calls it gets (embedded_calls). */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int embedded_calls;

EXPORT int cuptiActivityRegisterCallbacks(void *requested, void *completed)
{
    (void)requested, (void)completed;
    embedded_calls++;
    return 0;
}
