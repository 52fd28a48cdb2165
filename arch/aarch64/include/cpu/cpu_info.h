/* The AArch64 part of arch/cpu_info.h (included there): the architecture's name in records. */
#ifndef ARCH_AARCH64_CPU_INFO_H
#define ARCH_AARCH64_CPU_INFO_H

#define ARCH_NAME "aarch64" /* `begin arch=` */

#endif
