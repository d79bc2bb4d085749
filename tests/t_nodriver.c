/* Linked against libcutap.so itself, run where no libcuda.so.1 exists:
 * driver calls return CUDA_ERROR_NOT_FOUND (500) and cutap says why. */
#include <stdio.h>
int cuInit(unsigned flags);
int cuDriverGetVersion(int *v);
int main(void)
{
    int v = -1;
    int a = cuInit(0), b = cuDriverGetVersion(&v);
    printf("nodriver: %d %d %d\n", a, b, v);
    return !(a == 500 && b == 500 && v == -1);
}
