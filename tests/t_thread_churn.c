/* Many short-lived threads (issue #11 part 5): each makes one call and
 * ends (in waves: once every thread of its wave has made its call); with "dtor", its pthread key destructor (run after cutap's, whose
 * key is older) makes a second call. Prints "TID <tid> <calls>" per
 * thread, then the process's peak RSS.
 *
 *   t_thread_churn seq N [dtor]      N threads one after another
 *   t_thread_churn waves W K [dtor]  W waves of K threads at once
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cuda_min.h"

static pthread_key_t key;
static int dtor;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t wave;   /* waves: all K threads alive at once */

static void late_call(void *arg)
{
    (void)arg;
    CUcontext c = NULL;
    cuCtxGetCurrent(&c);   /* after cutap's destructor ran */
}

static void *worker(void *arg)
{
    (void)arg;
    CUcontext c = NULL;
    int bad = cuCtxGetCurrent(&c) != 0;
    if (dtor)
        pthread_setspecific(key, (void *)1);
    pthread_mutex_lock(&out);
    printf("TID %ld %d\n", (long)syscall(SYS_gettid), dtor ? 2 : 1);
    pthread_mutex_unlock(&out);
    pthread_barrier_wait(&wave);
    return (void *)(intptr_t)bad;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int waves = 1, per = 1, bad = 0;
    if (!strcmp(argv[1], "seq")) {
        waves = atoi(argv[2]);
        dtor = argc > 3 && !strcmp(argv[3], "dtor");
    } else if (!strcmp(argv[1], "waves") && argc > 3) {
        waves = atoi(argv[2]);
        per = atoi(argv[3]);
        dtor = argc > 4 && !strcmp(argv[4], "dtor");
    } else
        return 2;
    pthread_key_create(&key, late_call);
    pthread_barrier_init(&wave, NULL, (unsigned)per);
    pthread_t *t = calloc((size_t)per, sizeof *t);
    for (int w = 0; w < waves; w++) {
        for (int i = 0; i < per; i++)
            if (pthread_create(&t[i], NULL, worker, NULL))
                return 3;
        for (int i = 0; i < per; i++) {
            void *r;
            pthread_join(t[i], &r);
            bad += r != NULL;
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
    free(t);
    return bad != 0;
}
