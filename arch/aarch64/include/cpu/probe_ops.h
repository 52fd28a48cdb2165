/* The AArch64 part of arch/probe_ops.h (included there): the name of arch_spin's loop
 * (arch/aarch64/probe_ops.S) in records. */
#ifndef ARCH_AARCH64_PROBE_OPS_H
#define ARCH_AARCH64_PROBE_OPS_H

#define ARCH_SPIN_LOOP "subs_bne" /* subs; b.ne */

#endif
