/* The x86_64 part of arch/prim_ops.h: instructions per loop iteration of each kernel of
 * arch/x86_64/prim_ops.S along its fixed path (mask 0: the sites PRIM_PATTERN sets take their branch) (count them there: 16 operations + dec/jnz). */
#ifndef ARCH_X86_64_PRIM_OPS_H
#define ARCH_X86_64_PRIM_OPS_H

#define PRIM_INSNS_SIMPLE 18   /* int_dep, int_indep, load, store, fp_add: 16 + dec + jnz */
#define PRIM_INSNS_CALL 34     /* 16 x (call, ret) + dec + jnz */
#define PRIM_INSNS_BRANCH 54   /* xorshift 9 + mask 3 + 16 x (test, jnz) + 8 inc (sites not taken) + 2 */
#define PRIM_INSNS_INDIRECT 102 /* xorshift 9 + mask 3 + 16 x (lea, lea, test, cmovnz, jmp) + 8 inc + 2 */

#endif
