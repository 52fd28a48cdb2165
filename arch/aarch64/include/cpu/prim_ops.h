/* The AArch64 part of arch/prim_ops.h: instructions per loop iteration of each kernel of
 * arch/aarch64/prim_ops.S along its fixed path (mask 0: the sites PRIM_PATTERN sets take their branch) (count them there: 16 operations + subs/b.ne). */
#ifndef ARCH_AARCH64_PRIM_OPS_H
#define ARCH_AARCH64_PRIM_OPS_H

#define PRIM_INSNS_SIMPLE 18   /* int_dep, int_indep, load, store, fp_add: 16 + subs + b.ne */
#define PRIM_INSNS_CALL 34     /* 16 x (bl, ret) + subs + b.ne */
#define PRIM_INSNS_BRANCH 31   /* xorshift 3 + mask 2 + 16 tbnz + 8 add (sites not taken) + 2 */
#define PRIM_INSNS_INDIRECT 95 /* xorshift 3 + mask 2 + 16 x (adr, adr, tst, csel, br) + 8 add + 2 */

#endif
