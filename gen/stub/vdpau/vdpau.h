/* Stand-in for <vdpau/vdpau.h> used only by the cutap generator (ABI types only). */
#ifndef CUTAP_STUB_VDPAU_H
#define CUTAP_STUB_VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpChromaType;
typedef uint32_t VdpRGBAFormat;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, uint32_t function_id, void **function_pointer);
#endif
