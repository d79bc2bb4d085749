/* LLVM's libomp looks for an OMPT tool with dlsym(RTLD_NEXT, ...) at start.
 * An interposed dlsym that changes the caller makes that lookup find libomp
 * itself and loop; this program must just run and finish. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(4)
    for (long i = 0; i < 1000000; i++)
        sum += i % 7;
    printf("omp sum %ld\n", sum);
    return sum != 2999997;
}
