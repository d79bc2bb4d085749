/* A statically linked program (no PT_INTERP: no LD_PRELOAD applies), for
 * the "never traced" summary of cutap trace. Prints its argument. */
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("static %s\n", argc > 1 ? argv[1] : "");
    return 0;
}
