/* The x86_64 part of arch/cpu_info.h (included there): the architecture's name in records. */
#ifndef ARCH_X86_64_CPU_INFO_H
#define ARCH_X86_64_CPU_INFO_H

#define ARCH_NAME "x86_64" /* `begin arch=` */

#endif
