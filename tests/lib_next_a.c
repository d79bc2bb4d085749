/* Two libraries defining tap_probe: the program links B before A, so
 * dlsym(RTLD_NEXT, "tap_probe") from B must find A's, with or without
 * cutap (glibc resolves RTLD_NEXT relative to its caller). */
int tap_probe(void);
int tap_probe(void) { return 1; }
