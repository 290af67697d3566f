/* The seccomp filter of every local sandbox (seccomp_filter.c). */
#ifndef ALLOX_ENGINE_SECCOMP_FILTER_H
#define ALLOX_ENGINE_SECCOMP_FILTER_H

#include <stdbool.h>

#include "lib/ax_error.h"

/* A sealed memfd holding the sandbox's seccomp BPF program (struct
 * sock_filter[]), positioned at 0, ready for bubblewrap's `--seccomp FD`
 * (bwrap reads it and applies it right before exec'ing the sandbox's PID 1).
 * ALLOW_NESTING lets the sandbox create user namespaces (nested sandboxes);
 * otherwise it cannot. Returns the fd (CLOEXEC) or -1 with ERR.
 *
 * bwrap read()s the program from the fd's offset, which every dup of the fd
 * shares: give each bwrap an fd of its own (one call per sandbox). */
int ax_seccomp_filter_fd(bool allow_nesting, ax_error *err);

#endif
