/* Helpers of tests/generated/t_old_major.c (gen/old_major_generator.py): a
 * program built against an older CUDA major, calling the old fakes
 * through the PLT (-DLINKED: versioned references such as
 * cudaMalloc@libcudart.so.12) or dlopen + dlsym of their sonames.
 *
 * Each call prints "CALL <name>" (the calls a trace must hold, once each)
 * and its result; the fakes print the argument words they got. OLD_CALL6
 * calls with the six argument registers set as given: an old caller that
 * passes fewer arguments than CUDA 13.0 declares leaves whatever was in
 * the others (OLD_POISON here, an address nothing is mapped at), which a
 * recorder reading 13.0's output pointers would dereference. */
#ifndef OLD_MAJOR_INTERNAL_H
#define OLD_MAJOR_INTERNAL_H
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* The buffer the pointer arguments point into: at a fixed address with
 * high bits set (0x5a5a5a5a0000), the same in every run, so that the fakes
 * can print every word whole and a word cut to 32 bits shows. */
static unsigned char *old_buf;
#define OLD_PTR ((uint64_t)(uintptr_t)old_buf)
#define OLD_BUF_AT ((void *)(uintptr_t)0x5a5a5a5a0000ull)
static void old_map(void)
{
    old_buf = mmap(OLD_BUF_AT, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (old_buf != OLD_BUF_AT) {
        fprintf(stderr, "t_old_major: cannot map the buffer at %p\n", OLD_BUF_AT);
        exit(2);
    }
}
#define OLD_POISON ((uint64_t)0x18)

/* fn(r[0], ..., r[5]) with exactly those registers; %rax = 0 (no vector
 * arguments). */
uint64_t old_call6(void *fn, const uint64_t *r);
__asm__(".text\n"
        ".globl old_call6\n"
        ".type old_call6,@function\n"
        "old_call6:\n"
        "  pushq %rbx\n"             /* also aligns the stack for the call */
        "  movq %rdi, %r11\n"
        "  movq %rsi, %rbx\n"
        "  movq 0(%rbx), %rdi\n"
        "  movq 8(%rbx), %rsi\n"
        "  movq 16(%rbx), %rdx\n"
        "  movq 24(%rbx), %rcx\n"
        "  movq 32(%rbx), %r8\n"
        "  movq 40(%rbx), %r9\n"
        "  xorl %eax, %eax\n"
        "  call *%r11\n"
        "  popq %rbx\n"
        "  ret\n"
        ".size old_call6,.-old_call6\n");

#ifdef LINKED
#define OLD_DECL(name, params) unsigned name params;
#define OLD_OPEN(so) ((void)0)
#define OLD_SYM(so, name) ((void)0)
#else
static void *old_h;
#define OLD_DECL(name, params) static unsigned (*name) params;
#define OLD_OPEN(so)                                                         \
    do {                                                                     \
        if (!(old_h = dlopen(so, RTLD_NOW | RTLD_LOCAL))) {                  \
            fprintf(stderr, "t_old_major: %s\n", dlerror());                 \
            exit(2);                                                         \
        }                                                                    \
    } while (0)
#define OLD_SYM(so, name)                                                    \
    do {                                                                     \
        if (!(*(void **)&name = dlsym(old_h, #name))) {                      \
            fprintf(stderr, "t_old_major: %s: no %s\n", so, #name);          \
            exit(2);                                                         \
        }                                                                    \
    } while (0)
#endif

#define OLD_CALL(n, expr)                                                    \
    do {                                                                     \
        printf("CALL %s\n", n);                                              \
        fflush(stdout);                                                      \
        unsigned r_ = (expr);                                                \
        printf("%s = %u\n", n, r_);                                          \
    } while (0)
#define OLD_CALL6(n, fn, ...)                                                \
    do {                                                                     \
        const uint64_t r_[6] = {__VA_ARGS__};                                \
        printf("CALL %s\n", n);                                              \
        fflush(stdout);                                                      \
        printf("%s = %u\n", n, (unsigned)old_call6((void *)(uintptr_t)fn, r_)); \
    } while (0)

/* Calls that nest in the fakes, declared with the signatures of 13.0 (which
 * the old fakes keep for them): cudaMalloc > cuMemAlloc_v2, cudaFree >
 * cuMemFree_v2, cublasSgemm_v2 > cublasLtMatmul > cuLaunchKernel. */
OLD_DECL(cudaMalloc, (void **, size_t))
OLD_DECL(cudaFree, (void *))
OLD_DECL(cublasSgemm_v2, (void *, int, int, int, int, int, const float *, const float *, int, const float *,
                          int, const float *, float *, int))

#define OLD_MAIN()                                                           \
    int main(void)                                                           \
    {                                                                        \
        old_map();                                                           \
        calls();                                                             \
        OLD_OPEN(OLD_CUDART);                                                \
        OLD_SYM(OLD_CUDART, cudaMalloc);                                     \
        OLD_SYM(OLD_CUDART, cudaFree);                                       \
        void *p = NULL;                                                      \
        fprintf(stderr, "TYPED cudaMalloc 2 - - devPtr,size\n");             \
        OLD_CALL("cudaMalloc", cudaMalloc(&p, 4096));                        \
        fprintf(stderr, "TYPED cudaFree 1 - devPtr\n");                      \
        OLD_CALL("cudaFree", cudaFree(p));                                   \
        OLD_OPEN(OLD_CUBLAS);                                                \
        OLD_SYM(OLD_CUBLAS, cublasSgemm_v2);                                 \
        float one = 1;                                                       \
        fprintf(stderr, "TYPED cublasSgemm_v2 14 - - - - - - - - - - - - - - -\n"); \
        OLD_CALL("cublasSgemm_v2",                                           \
                 cublasSgemm_v2(old_buf, 0, 0, 1, 1, 1, &one, NULL, 1, NULL, 1, &one, NULL, 1)); \
        printf("done\n");                                                    \
        return 0;                                                            \
    }

#if ERA == 12
#define OLD_CUDART "libcudart.so.12"
#define OLD_CUBLAS "libcublas.so.12"
#else
#define OLD_CUDART "libcudart.so.11.0"
#define OLD_CUBLAS "libcublas.so.11"
#endif
#endif
