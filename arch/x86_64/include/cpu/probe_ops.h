/* The x86_64 part of arch/probe_ops.h (included there): the name of arch_spin's loop
 * (arch/x86_64/probe_ops.S) in records. */
#ifndef ARCH_X86_64_PROBE_OPS_H
#define ARCH_X86_64_PROBE_OPS_H

#define ARCH_SPIN_LOOP "dec_jnz" /* dec; jnz */

#endif
