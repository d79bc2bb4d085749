/* LD_PRELOAD shim: pthread_create always fails with EAGAIN, as under
 * `ulimit -u` or a full pids cgroup (reader_threads_cannot_start). */
#include <errno.h>
#include <pthread.h>

__attribute__((visibility("default"))) int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                                                          void *arg)
{
    (void)t, (void)a, (void)fn, (void)arg;
    return EAGAIN;
}
