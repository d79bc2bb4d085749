/* Start-up: configuration from CUTAP_* variables, built-in clients,
 * plugins. Runs as a constructor; interception itself needs none of it
 * (every wrapper resolves the driver on first use), so calls made by other
 * constructors before ours are intercepted too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_internal.h"

int cutap_debug;

int cutap_warn_quiet;

/* warn: a warning (cutap's channel); else a CUTAP_DEBUG line, on stderr
 * as the user asked. */
static void vsay(const char *tag, int warn, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "cutap[%d]: %s", (int)getpid(), tag);
    if (n < 0 || n >= (int)sizeof buf)
        return;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    n += m < (int)(sizeof buf - (size_t)n - 1) ? m : (int)(sizeof buf - (size_t)n - 2);
    buf[n++] = '\n';
    /* cutap's own channel when there is one: the registry of the trace
     * directory, which `cutap trace` prints from. Once the recorder runs,
     * never the program's fd 2 (it may be a data file the program put
     * there): without a registry (one that cannot be made), the warning is
     * dropped; the trace header keeps what was lost. */
    if (!warn) {
        (void)cutap_write_all(2, buf, (size_t)n);   /* no SIGXFSZ for a warning */
        return;
    }
    if (!cutap_reg_warn(buf, (size_t)n))
        return;
    if (cutap_warn_quiet && cutap_rec_dir[0] && !cutap_reg_attach(cutap_rec_dir, 1) &&
        !cutap_reg_warn(buf, (size_t)n))
        return;
    if (!cutap_warn_quiet)
        (void)cutap_write_all(2, buf, (size_t)n);   /* no SIGXFSZ for a warning */
}

void cutap_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay("warning: ", 1, fmt, ap);
    va_end(ap);
}

void cutap_log_debug(const char *fmt, ...)
{
    if (!cutap_debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay("", 0, fmt, ap);
    va_end(ap);
}

/* A required plugin (CUTAP_PLUGINS entry "+PATH") that could not be used:
 * the process stops before main, so that a limiter never fails open. */
static void required_failed(const char *p, const char *why)
{
    char msg[PATH_MAX + 512];
    int n = snprintf(msg, sizeof msg, "cutap: required plugin %s: %s; stopping the process (exit status 127)\n", p,
                     why);
    if (n > 0)
        (void)cutap_write_all(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    if (cutap_warn_quiet)   /* recording: the registry says it too (else the line above was it) */
        cutap_warn("required plugin %s: %s; the process stopped (exit status 127)", p, why);
    _exit(127);
}

#define MAX_PLUGINS 64
static void *plugin_handles[MAX_PLUGINS];
static int nplugins;

/* Loads one plugin: negotiates the interface version (the plugin's
 * cutap_plugin_negotiate), then runs its cutap_plugin_init. */
static void load_plugin(const char *p, int required)
{
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        if (required)
            required_failed(p, e ? e : "cannot be loaded");
        cutap_warn("plugin %s not loaded: %s", p, e);
        return;
    }
    for (int i = 0; i < nplugins; i++)
        if (plugin_handles[i] == h) {
            cutap_warn("plugin %s is listed twice: loaded and initialised once", p);
            dlclose(h);   /* the count the second dlopen took */
            return;
        }
    cutap_plugin_negotiate_fn neg = (cutap_plugin_negotiate_fn)cutap_libc_dlsym(h, CUTAP_PLUGIN_NEGOTIATE_ENTRY);
    cutap_plugin_init_fn init = (cutap_plugin_init_fn)cutap_libc_dlsym(h, CUTAP_PLUGIN_ENTRY);
    const char *why = NULL;
    cutap_plugin_negotiate_t n = {.struct_size = sizeof n, .api_version = CUTAP_API_VERSION,
                                  .api_version_min = CUTAP_API_VERSION_MIN, .cutap_version = CUTAP_VERSION};
    if (!init)
        why = "it exports no " CUTAP_PLUGIN_ENTRY "() (defined without cutap.h's declaration, or hidden)";
    else if (!neg)
        why = "it is of cutap API version 1 (no " CUTAP_PLUGIN_NEGOTIATE_ENTRY "(); its call ids were compiled in "
              "and change with every CUDA header update): rebuild it against cutap.h version 2, which names functions";
    else if (neg(&n))
        why = "it declined every interface version this cutap serves";
    else if (n.api_version < CUTAP_API_VERSION_MIN || n.api_version > CUTAP_API_VERSION)
        why = "it chose an interface version this cutap does not serve";
    if (why) {
        if (required)
            required_failed(p, why);
        cutap_warn("plugin %s not used: %s (cutap %s serves API versions %d to %d)", p, why, CUTAP_VERSION,
                   CUTAP_API_VERSION_MIN, CUTAP_API_VERSION);
        dlclose(h);
        return;
    }
    int rc = init(n.api_version);
    if (!rc && nplugins < MAX_PLUGINS)
        plugin_handles[nplugins++] = h;   /* initialised: a second listing is the same plugin (a failed one is tried again) */
    if (rc) {
        if (required) {
            char w[64];
            snprintf(w, sizeof w, "%s() returned %d", CUTAP_PLUGIN_ENTRY, rc);
            required_failed(p, w);
        }
        cutap_warn("plugin %s: %s() returned %d", p, CUTAP_PLUGIN_ENTRY, rc);
    } else
        cutap_log_debug("plugin %s loaded (API version %u)", p, n.api_version);
}

static void load_plugins(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return;
    for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        int required = *p == '+';
        if (required && !*++p)
            continue;
        load_plugin(p, required);
    }
    free(copy);
}

/* The process enters seccomp strict mode (src/front/forbid.c): said now,
 * while system calls are still allowed; then no client is left, and every
 * call passes straight through. */
static void strict_mode(void)
{
    cutap_rec_stop_strict();
    cutap_clock_freeze();
    for (int c = 0; c < CUTAP_MAX_CLIENTS; c++)
        cutap_unregister(c);
}

/* What the front calls into (src/front/front_internal.h). */
static struct cutap_core core = {
    .size = sizeof core,
    .entry = cutap_core_entry,
    .api = {[CUTAP_API_REGISTER] = (void *)cutap_register, [CUTAP_API_UNREGISTER] = (void *)cutap_unregister,
            [CUTAP_API_ENABLE] = (void *)cutap_enable, [CUTAP_API_ENABLE_NAME] = (void *)cutap_enable_name,
            [CUTAP_API_ENABLE_FILTER] = (void *)cutap_enable_filter, [CUTAP_API_CALL_COUNT] = (void *)cutap_call_count,
            [CUTAP_API_CALL_NAME] = (void *)cutap_call_name, [CUTAP_API_CALL_LAYER] = (void *)cutap_call_layer,
            [CUTAP_API_CALL_NARGS] = (void *)cutap_call_nargs, [CUTAP_API_CALL_ARG] = (void *)cutap_call_arg,
            [CUTAP_API_LOOKUP] = (void *)cutap_lookup, [CUTAP_API_LAYER_LOOKUP] = (void *)cutap_layer_lookup,
            [CUTAP_API_LAYER_NAME] = (void *)cutap_layer_name,
            [CUTAP_API_EXPORT_TABLE_NAME] = (void *)cutap_export_table_name,
            [CUTAP_API_THREAD_DEPTH] = (void *)cutap_thread_depth,
            [CUTAP_API_NVTX_INIT] = (void *)InitializeInjectionNvtx2, [CUTAP_API_ON_EXIT] = (void *)cutap_on_exit,
            [CUTAP_API_RESULT_KIND] = (void *)cutap_call_result_kind, [CUTAP_API_STATUS_NAME] = (void *)cutap_status_name,
            [CUTAP_API_WANT_TIME] = (void *)cutap_want_time},
    .forbid_tsc = cutap_clock_forbid_tsc,
    .strict = strict_mode,
    .env = rec_env_seen,
};

/* Runs as the core's constructor: the core is loaded by the front at the
 * first call that needs it (src/front/front.c), from any thread, maybe
 * from a library's constructor; the loader's lock keeps other threads
 * that load it waiting until this is done. */
static _Atomic int init_state;

__attribute__((constructor)) void cutap_init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
        return;
    /* First: what runs during the rest (plugins calling the API, calls
     * made by constructors of what is loaded here) finds the core. */
    cutap_ioctl_core(&core);
    cutap_dl_core(&core);
    cutap_front_attach(&core);
    const char *v = getenv("CUTAP_DEBUG");
    cutap_debug = v && *v && strcmp(v, "0");
    cutap_exporttable_configure(getenv("CUTAP_HIDDEN"));
    cutap_driver_configure(getenv("CUTAP_DRIVER"));
    /* A registry made by `cutap trace`/`cutap stat` takes the warnings
     * from the start (the recorder makes one later when it is missing). */
    const char *rd = getenv("CUTAP_TRACE");
    if (!rd || !*rd)
        rd = getenv("CUTAP_COUNT");
    if (rd && *rd) {
        /* Recording: from the first warning on (a trace directory name
         * too long, a bad setting), never the program's stderr, but the
         * registry of the directory (made when missing, at the first
         * warning), named absolute as the recorder will name it. */
        cutap_warn_quiet = 1;
        if (!cutap_reg_dir_from_env(cutap_rec_dir, PATH_MAX))
            cutap_reg_attach(cutap_rec_dir, 0);   /* (the front attached it at start) */
        else
            cutap_rec_dir[0] = 0;
    }
    /* The ioctl layer's ids, before anything records. */
    cutap_ioctl_init();
    cutap_cupti_rt_configure(getenv("CUTAP_RUNTIME"));
    if ((v = getenv("CUTAP_STAT")) && *v)
        cutap_stat_start(v);
    if ((v = getenv("CUTAP_LOG")) && *v)
        cutap_log_start(v);
    if ((v = getenv("CUTAP_TRACE")) && *v)
        cutap_record_start(v, 0, getenv("CUTAP_FILTER"));
    else if ((v = getenv("CUTAP_COUNT")) && *v)
        cutap_record_start(v, 1, getenv("CUTAP_FILTER"));
    if ((v = getenv("CUTAP_INJECT")) && *v)
        cutap_inject_start(v);
    if ((v = getenv("CUTAP_SYNC_LAUNCHES")) && *v)
        cutap_sync_launches_start(v);
    if ((v = getenv("CUTAP_PLUGINS")) && *v)
        load_plugins(v);
    if ((v = getenv("CUTAP_DIAG_PATHS")) && *v)
        cutap_diag_paths_start(v);
    /* If the driver is loaded already (linked, or opened by an earlier
     * constructor), resolve it now rather than on the first call. */
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h)
        dlclose(h);   /* only asked whether it is loaded */
    if (h || getenv("CUTAP_DRIVER"))
        cutap_driver_ensure();
    atomic_store(&init_state, 2);
    cutap_front_ready();
    cutap_log_debug("initialised: %d driver entry points", CUTAP_DRIVER_COUNT);
}
