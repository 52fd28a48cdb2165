/* The x86_64 part of arch/simd.h (included there): vector state for the bandwidth kernels. On bare
 * metal simd_enable() turns on CR4.OSXSAVE and the XCR0 components for
 * AVX and AVX-512; hosted, the kernel already did and simd_usable() only checks. */
#ifndef ARCH_X86_64_SIMD_H
#define ARCH_X86_64_SIMD_H

#include <stdbool.h>

/* struct simd_state's CPU tail (arch/simd.h). */
#define SIMD_STATE_CPU_FIELDS unsigned long long xcr0;

#endif
