/* entry.c: placeholder for the injected library's entry points. */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void) { return 1; }
