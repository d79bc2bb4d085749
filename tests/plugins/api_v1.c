/* A plugin of cutap API version 1: cutap_plugin_init and no
 * cutap_plugin_negotiate. cutap must refuse it with a message (its ids
 * would have been compiled in), and the program must run as without it. */
#include <stdio.h>

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    fprintf(stderr, "api_v1: init called with %u\n", api_version);
    return 0;
}
