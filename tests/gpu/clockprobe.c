/* Cost of the clocks on this machine: vDSO clock_gettime and rdtsc. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static uint64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
int main(void)
{
    int n = 10000000;
    uint64_t s = 0, a = now();
    for (int i = 0; i < n; i++)
        s += now();
    uint64_t b = now();
    printf("clock_gettime(CLOCK_MONOTONIC) %.2f ns\n", (double)(b - a) / n);
    a = now();
    for (int i = 0; i < n; i++)
        s += __rdtsc();
    b = now();
    printf("rdtsc %.2f ns\n", (double)(b - a) / n);
    return s == 1;
}
