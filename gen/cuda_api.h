/* The one declared API source the cutap generator reads: the CUDA driver
 * headers as shipped with the pinned toolkit (see known_good.json). Parsed
 * twice by cuda_model.py: once as a normal client sees them and once with
 * __CUDA_API_VERSION_INTERNAL, which makes cuda.h declare the legacy, _v2..
 * and _ptds/_ptsz variants under their exported names. */
#include <cuda.h>
#include <cudaProfiler.h>
#include <cudaGL.h>
#include <cudaEGL.h>
#include <vdpau/vdpau.h>
#include <cudaVDPAU.h>
#include <cudaTypedefs.h>
#include <cudaGLTypedefs.h>
#include <cudaEGLTypedefs.h>
#include <cudaVDPAUTypedefs.h>
#include <cudaProfilerTypedefs.h>
