/* What a process may forbid itself that cutap relies on (issue #24).
 *
 *   The time-stamp counter: prctl(PR_SET_TSC, PR_TSC_SIGSEGV) (record and
 *   replay tools, strict sandboxes) makes every rdtsc of the thread, and
 *   of the threads and programs it starts, a SIGSEGV, the vDSO's
 *   clock_gettime included (it reads the counter). cutap then reads
 *   CLOCK_MONOTONIC by system call, turned into ticks where its file
 *   counts ticks (src/record/clock.c); never the counter.
 *   Seccomp strict mode: only read, write, _exit and sigreturn are left,
 *   and the counter is forbidden too. cutap stops recording (said in the
 *   header and the registry), its clock stands still, and every client is
 *   removed, so that no call of the program runs a system call of
 *   cutap's: the program's calls pass straight through (a core not
 *   loaded by then is never loaded).
 *
 * Both are seen before they take effect, through the functions a program
 * calls: glibc's prctl() and syscall() (SYS_prctl, SYS_seccomp), exported
 * here (syscall's entry is src/front/syscall_entry.S: it must jump
 * to glibc's with the caller's stack untouched), and at start-up (a
 * forbidden counter is inherited across fork and exec). A system call
 * made by an instruction of the program's own is not seen
 * (docs/LIMITS.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "front_internal.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
static prctl_fn real_prctl;
void *cutap_real_syscall __attribute__((visibility("hidden")));

/* front_internal.h (the clock): read by the clock; set here, or by the core
 * (which also anchors its tick conversion) once it is loaded */
CUTAP_FRONT int cutap_tsc_forbidden;
CUTAP_FRONT uint64_t cutap_frozen_ns;

static void forbid_tsc(void)
{
    const struct cutap_core *c = cutap_core_if_loaded();
    if (c)
        c->forbid_tsc();
    else   /* the core, loaded later, chooses the ns clock */
        __atomic_store_n(&cutap_tsc_forbidden, 1, __ATOMIC_RELEASE);
}

static void strict_mode(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    const struct cutap_core *c = cutap_core_if_loaded();
    if (c) {
        c->strict();   /* said while system calls are still allowed */
        return;
    }
    /* the core is never loaded after this (cutap_core refuses) */
    __atomic_store_n(&cutap_frozen_ns, cutap_now_ns(), __ATOMIC_RELEASE);
    __atomic_store_n(&cutap_tsc_forbidden, 2, __ATOMIC_RELEASE);
}

static void about_to(long option, unsigned long a2)
{
    if (option == PR_SET_TSC && a2 == PR_TSC_SIGSEGV)
        forbid_tsc();
    else if (option == PR_SET_SECCOMP && a2 == SECCOMP_MODE_STRICT)
        strict_mode();
}

void cutap_syscall_seen(long nr, long a1, long a2);
void cutap_syscall_seen(long nr, long a1, long a2)
{
    if (nr == SYS_prctl)
        about_to(a1, (unsigned long)a2);
    else if (nr == SYS_seccomp && a1 == SECCOMP_SET_MODE_STRICT)
        strict_mode();
}

/* glibc's syscall(), for a call made before cutap's constructor ran. */
void *cutap_syscall_resolve(void);
void *cutap_syscall_resolve(void)
{
    void *f = __atomic_load_n(&cutap_real_syscall, __ATOMIC_ACQUIRE);
    if (!f) {
        f = cutap_libc_dlsym(RTLD_NEXT, "syscall");
        __atomic_store_n(&cutap_real_syscall, f, __ATOMIC_RELEASE);
    }
    return f;
}

EXPORT int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long), a4 = va_arg(ap, unsigned long),
                  a5 = va_arg(ap, unsigned long);
    va_end(ap);
    about_to(option, a2);
    prctl_fn f = __atomic_load_n(&real_prctl, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (prctl_fn)cutap_libc_dlsym(RTLD_NEXT, "prctl");
        __atomic_store_n(&real_prctl, f, __ATOMIC_RELEASE);
    }
    return f(option, a2, a3, a4, a5);
}

/* At start-up, before the recorder chooses its clock. */
void cutap_forbid_init(void)
{
    (void)cutap_syscall_resolve();
    int mode = 0;
    if (!prctl(PR_GET_TSC, (unsigned long)&mode, 0, 0, 0) && mode == PR_TSC_SIGSEGV)
        forbid_tsc();
}
