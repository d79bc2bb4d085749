/* cutap's thread state, defined here, in the front, for the core too: a
 * library loaded after start-up (the core is dlopened) can only get
 * initial-exec TLS from the small surplus glibc keeps for that, which
 * other libraries share (and exhaust: "cannot allocate memory in static
 * TLS block"); the front is in the initial block. */
#include "front_internal.h"

CUTAP_FRONT __thread struct cutap_thread cutap_tls __attribute__((tls_model("initial-exec"), aligned(64)));
