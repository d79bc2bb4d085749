/* Known cuGetExportTable UUIDs and their names: shared by libcutap.so
 * (which tables to wrap) and the cutap command (naming them in dumps). */
#ifndef CUTAP_EXPORT_TABLES_H
#define CUTAP_EXPORT_TABLES_H

struct cutap_known_table {
    const char *name;
    unsigned char uuid[16];
    int nslots_nosize;     /* >0: no size word, this many function slots */
};

/* The table with this 16-byte UUID, or NULL. */
const struct cutap_known_table *cutap_known_table(const unsigned char *uuid);
#endif
