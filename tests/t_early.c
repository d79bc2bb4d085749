#include <stdio.h>
extern int early_result;
int cuDriverGetVersion(int *v);
int main(void)
{
    int v = 0;
    int rc = cuDriverGetVersion(&v);
    printf("early cuInit %d, version %d\n", early_result, v);
    printf("CALL cuInit\nCALL cuDriverGetVersion\n");
    return early_result != 0 || rc != 0 || v != 13000;
}
