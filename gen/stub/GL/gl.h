/* Stand-in for <GL/gl.h> used only by the cutap generator: it declares the
 * few OpenGL types cudaGL.h names, with their ABI types, so the generator
 * does not depend on OpenGL development headers being installed. */
#ifndef CUTAP_STUB_GL_H
#define CUTAP_STUB_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif
