/* The ioctl layer's records in text (cli/ioctl_decode.c). */
#ifndef CUTAP_IOCTL_DECODE_H
#define CUTAP_IOCTL_DECODE_H

#include <stdint.h>
#include <stdio.h>

#include "trace_read.h"

/* Prints argument i of n (w: the words) whose signature type is the tlen
 * bytes at type, when it is one of the ioctl layer's types: returns 1; 2
 * for a word printed with the one before it (nothing printed, no name);
 * 0 for another type (the caller prints it). */
int ioctl_put_arg(FILE *f, const char *type, size_t tlen, const uint64_t *w, unsigned i, unsigned n);
/* Whether a word of this type and value is left out of the text: an
 * NV_STR_CONT (printed with the NV_STR32 before it), a mapping's object
 * (NV_MEMORY, NV_MAPS) no RM_MAP_MEMORY named. */
int ioctl_arg_hidden(const char *type, size_t tlen, uint64_t v);
/* Whether words of this type are read from the parameter block after the
 * call (0 when it was not read: the request failed). */
int ioctl_type_after(const char *type, size_t tlen);
/* Whether the words of a call from the parameter block were read (the
 * DECODED bit of its dev word; 1 for a call without a dev word). */
int ioctl_block_read(const struct trace *tr, const struct tr_call *c);
/* Whether a call is of the ioctl layer. */
int ioctl_is(const struct trace *tr, const struct tr_call *c);
/* A finished ioctl-layer call's result: its NV_STATUS by name, "-1 EFAULT"
 * for a failed system call, or the number. */
void ioctl_put_status(FILE *f, const struct trace *tr, const struct tr_call *c);
/* The name a request is grouped by in report --by request and report
 * --tree: "RM_CONTROL(NV2080_CTRL_CMD_GPU_GET_INFO_V2)",
 * "RM_ALLOC(NV01_MEMORY_LOCAL_USER)", "mmap(HOPPER_USERMODE_A)" (the class
 * of the object mapped; hex where the tables do not know the number); the
 * call's own name for every other call. */
uint32_t ioctl_request_name(struct trace *tr, const struct tr_call *c);

#endif
