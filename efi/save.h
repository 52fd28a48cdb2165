/* The boot stick's copy of the record stream, the firmware side (`save=`, docs/saving.md).
 *
 * Before ExitBootServices (efi/save_prepare.c): find the device the image was loaded from — the
 * PCI function of its USB host controller and the chain of USB ports to it, from the loaded image's
 * device path — create \BAREMETRIC\RUN_NNN.LOG (the next free NNN) through the firmware's file
 * protocol, pre-allocated to save_mb, with a header that carries a random nonce, then read the
 * file's cluster chain with our own FAT reader over BlockIo into an extent list, and reserve the
 * DMA memory (below 4 GiB) the USB path and the stream's RAM mirror need.
 *
 * After ExitBootServices (efi/save_stick.c): our own xHCI driver and USB mass-storage driver reach
 * the same stick by its port path, read the header back to match the nonce, and from then on the
 * stream mirror is written through drivers/storage/save_log between probes and at the end.
 *
 * Whatever fails gives a record with the reason; the run and the serial copy go on, and nothing on
 * the stick outside the file is written. */
#ifndef EFI_SAVE_H
#define EFI_SAVE_H

#include <efi.h>
#include <stdbool.h>

#include "bench/core/options.h"
#include "bench/core/probe.h"
#include "drivers/fw/acpi.h"

/* Before the first record: decide, create and pre-allocate the file, find its extents. Never
 * fails the run: the outcome is kept for save_emit_plan(). */
void save_prepare(EFI_HANDLE image, const struct config *cfg, const struct acpi_info *acpi);
/* The plan's record (`plat kind=save`), once the stream exists. */
void save_emit_plan(void);
/* The emit sink's other half: one record line, ending included, into the RAM mirror. */
void save_append(const char *bytes, unsigned len);
/* After the machine is taken over (counter_hz known): bring up the USB path, match the nonce and
 * write what the mirror holds. A failure is a record; saving stops, nothing else changes. */
void save_start(const struct probe_env *env);
/* Between probes: write what was appended since (suite_set_between). */
void save_flush(void);
/* At the end, after the `end` record: the last write, header closed, the stick's cache synced. */
void save_close(void);
/* Where the results went, for the on-screen summary: "\BAREMETRIC\RUN_007.LOG on the boot stick",
 * or NULL when nothing was saved. */
const char *save_destination(void);

#endif
