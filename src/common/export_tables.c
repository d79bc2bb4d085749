/* Known cuGetExportTable UUIDs (export_tables.h). */
#include <stddef.h>
#include <string.h>

#include "export_tables.h"
#include "generated/hidden_tables.h"

/* The tables and their names: gen/specs/hidden.py (names as used by public
 * reverse-engineering work and NVIDIA's own where known; bytes in memory
 * order), generated into src/common/generated/hidden_tables.h. */
static const struct cutap_known_table known[] = {CUTAP_KNOWN_TABLES};
#define NKNOWN (sizeof known / sizeof known[0])

const struct cutap_known_table *cutap_known_table(const unsigned char *uuid)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (!memcmp(known[i].uuid, uuid, 16))
            return &known[i];
    return NULL;
}
