/* Stand-in for <EGL/egl.h> used only by the cutap generator (ABI types only). */
#ifndef CUTAP_STUB_EGL_H
#define CUTAP_STUB_EGL_H
#include <stdint.h>
typedef int32_t EGLint;
typedef void *EGLImage;
typedef void *EGLSync;
#endif
