/* LD_PRELOAD shim: sched_setaffinity refuses every set (EINVAL), as a
 * cpuset that holds only the CPUs a process already has refuses the
 * others (rec_pages_helper_place: the page helper of a program pinned to
 * one CPU has nowhere to go). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

__attribute__((visibility("default"))) int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    (void)pid, (void)size, (void)set;
    errno = EINVAL;
    return -1;
}
