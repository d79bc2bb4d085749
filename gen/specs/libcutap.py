"""libcutap.so's own names: what it exports besides the entry points of
the layers (gen/specs/<layer>.py), and which dlsym lookups it looks at.
Not a layer: no LAYER, no FUNCTIONS.

Data only (gen/specs/README.md). exports_generator.py writes EXPORTS, in
this order, into the version script src/generated/libcutap.map after the
layers' functions; everything else is local.

EXPORTS: {name, file, text, what}: the name (a glob for the public API),
the hand-written file that defines it, a text found there, what it does.
DL_FIRST_LETTERS: the first letters of every name cutap wraps;
src/front/front.c maybe_ours() lets only these through to the core (a
switch on the first letters, kept by hand on the hot path of every
dlsym). gen/spec.py checks that every layer's prefixes start with one.
"""

EXPORTS = [
    {"name": "dlsym", "file": "src/front/dlsym_entry.S", "text": ".globl dlsym",
     "what": "lookups of CUDA names on any handle get cutap's wrappers; others go to glibc by a jump, so that "
             "RTLD_NEXT stays relative to the caller"},
    {"name": "dlvsym", "file": "src/front/dlsym_entry.S", "text": ".globl dlvsym", "what": "as dlsym"},
    {"name": "InitializeInjectionNvtx2", "file": "src/front/front_entry.S", "text": "API InitializeInjectionNvtx2",
     "what": "cutap as the NVTX injection library (gen/specs/nvtx.py)"},
    {"name": "execve", "file": "src/front/exec.c", "text": "EXPORT int execve(",
     "what": "the exec family: the new program is noted in the trace registry"},
    {"name": "execv", "file": "src/front/exec.c", "text": "EXPORT int execv(", "what": "as execve"},
    {"name": "execvp", "file": "src/front/exec.c", "text": "EXPORT int execvp(", "what": "as execve"},
    {"name": "execvpe", "file": "src/front/exec.c", "text": "EXPORT int execvpe(", "what": "as execve"},
    {"name": "execl", "file": "src/front/exec.c", "text": "EXPORT int execl(", "what": "as execve"},
    {"name": "execle", "file": "src/front/exec.c", "text": "EXPORT int execle(", "what": "as execve"},
    {"name": "execlp", "file": "src/front/exec.c", "text": "EXPORT int execlp(", "what": "as execve"},
    {"name": "fexecve", "file": "src/front/exec.c", "text": "EXPORT int fexecve(", "what": "as execve"},
    {"name": "posix_spawn", "file": "src/front/exec.c", "text": "EXPORT int posix_spawn(", "what": "as execve"},
    {"name": "posix_spawnp", "file": "src/front/exec.c", "text": "EXPORT int posix_spawnp(", "what": "as execve"},
    {"name": "ioctl", "file": "src/front/io.c", "text": '__asm__("ioctl")',
     "what": "the ioctl layer: requests on NVIDIA device files recorded and decoded; any other passes through"},
    {"name": "open", "file": "src/front/io.c", "text": '__asm__("open")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "open64", "file": "src/front/io.c", "text": '__asm__("open64")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "openat", "file": "src/front/io.c", "text": '__asm__("openat")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "openat64", "file": "src/front/io.c", "text": '__asm__("openat64")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "__open_2", "file": "src/front/io.c", "text": '__asm__("__open_2")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "__open64_2", "file": "src/front/io.c", "text": '__asm__("__open64_2")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "__openat_2", "file": "src/front/io.c", "text": '__asm__("__openat_2")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "__openat64_2", "file": "src/front/io.c", "text": '__asm__("__openat64_2")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "close", "file": "src/front/io.c", "text": '__asm__("close")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "close_range", "file": "src/front/io.c", "text": '__asm__("close_range")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "dup", "file": "src/front/io.c", "text": '__asm__("dup")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "dup2", "file": "src/front/io.c", "text": '__asm__("dup2")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "dup3", "file": "src/front/io.c", "text": '__asm__("dup3")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "mmap", "file": "src/front/io.c", "text": '__asm__("mmap")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "mmap64", "file": "src/front/io.c", "text": '__asm__("mmap64")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "munmap", "file": "src/front/io.c", "text": '__asm__("munmap")', "what": "as ioctl (device files marked, opened/closed/mapped ones recorded)"},
    {"name": "mremap", "file": "src/front/io.c", "text": '__asm__("mremap")', "what": "as ioctl (a device mapping moved or resized is recorded and followed)"},
    {"name": "fcntl", "file": "src/front/io.c", "text": '__asm__("fcntl")', "what": "as ioctl (F_DUPFD of a device file carries its mark)"},
    {"name": "fcntl64", "file": "src/front/io.c", "text": '__asm__("fcntl64")', "what": "as ioctl (F_DUPFD of a device file carries its mark)"},
    {"name": "prctl", "file": "src/front/forbid.c", "text": "EXPORT int prctl(",
     "what": "a process forbidding the time-stamp counter or entering seccomp strict mode is seen before it does"},
    {"name": "syscall", "file": "src/front/syscall_entry.S", "text": ".globl syscall",
     "what": "as prctl (SYS_prctl, SYS_seccomp); every call jumps to glibc's with the caller's stack untouched"},
    {"name": "cuptiActivityRegisterCallbacks", "file": "src/front/cupti_watch.c",
     "text": "EXPORT int cuptiActivityRegisterCallbacks(",
     "what": "the program's own CUPTI activity client is noted (trace --gpu refuses to start beside it, and stops and "
             "says so when it takes CUPTI's buffers over), then the call goes to libcupti unchanged"},
    {"name": "cuptiSubscribe", "file": "src/front/cupti_watch.c", "text": "EXPORT int cuptiSubscribe(",
     "what": "the program's own CUPTI subscriber: trace --gpu first lets its own subscription go (CUPTI has one) and "
             "joins GPU work to calls through external ids from then on, then the call goes to libcupti unchanged"},
    {"name": "cuptiSubscribe_v2", "file": "src/front/cupti_watch.c", "text": "EXPORT int cuptiSubscribe_v2(",
     "what": "as cuptiSubscribe"},
    {"name": "getenv", "file": "src/front/env.c", "text": '__asm__("getenv")',
     "what": "what the NVIDIA libraries read from the environment is recorded (trace), with the object that asked; "
             "every other caller's lookup passes through"},
    {"name": "secure_getenv", "file": "src/front/env.c", "text": '__asm__("secure_getenv")', "what": "as getenv"},
    {"name": "cutap_*", "file": "include/cutap.h", "text": "CUTAP_PUBLIC",
     "what": "the public C API (include/cutap.h)"},
]

DL_FIRST_LETTERS = ["cu", "nc", "nv", "__c", "__n"]
