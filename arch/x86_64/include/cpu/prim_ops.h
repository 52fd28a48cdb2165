/* The x86_64 part of arch/prim_ops.h: instructions per loop iteration of each kernel of
 * arch/x86_64/prim_ops.S along its fixed path (count them there: 16 operations + dec/jnz). */
#ifndef ARCH_X86_64_PRIM_OPS_H
#define ARCH_X86_64_PRIM_OPS_H

#define PRIM_INSNS_SIMPLE 18   /* int_dep, int_indep, load, store, fp_add: 16 + dec + jnz */
#define PRIM_INSNS_CALL 34     /* 16 x (call, ret) + dec + jnz */
#define PRIM_INSNS_BRANCH 61   /* xorshift 9 + mask 2 + 16 x (test, jnz, inc) + 2 */
#define PRIM_INSNS_INDIRECT 93 /* xorshift 9 + mask 2 + 16 x (lea, lea, test, cmovnz, jmp) + 2 */

#endif
