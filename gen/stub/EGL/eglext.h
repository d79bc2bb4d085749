/* Stand-in for <EGL/eglext.h> used only by the cutap generator (ABI types only). */
#ifndef CUTAP_STUB_EGLEXT_H
#define CUTAP_STUB_EGLEXT_H
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif
