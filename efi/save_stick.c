/* The boot stick's copy of the stream, after ExitBootServices (see save.h): our own xHCI and USB
 * mass-storage drivers find the stick by its nonce — every port and hub tier is walked, the port
 * path found before only tried first, each LUN of each mass-storage device read until the file's
 * header carries this run's nonce — and from then on the mirror is written between probes and
 * at the end. Every failure is a record with the reason and stops saving, nothing else. */
/* OPT_SMALL: -Os (Makefile): the counter times the USB path's delays, between probes. */
#include "efi/save.h"

#include "arch/cycles.h"
#include "arch/dma_granule.h"
#include "arch/mmio.h"
#include "bench/core/summary.h"
#include "drivers/usb/msc.h"
#include "drivers/usb/usb_bulk.h"
#include "drivers/usb/xhci_intel.h"
#include "efi/platform.h"
#include "efi/save_iommu.h"
#include "efi/save_pci.h"
#include "efi/save_state.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define USB_MAX_TRANSFER (64u * 1024) /* the bound on one SCSI transfer */
#define FALLBACK_COUNTER_HZ 5000000000ull /* unknown rate: assume fast, so waits are never short */
#define US_PER_S 1000000ull
#define WHY_LEN 200

static struct {
	uint64_t counter_hz;
	struct usb_io io;
	struct xhci *xhci;      /* in the DMA region: keeps the .efi small */
	struct xhci_dev *dev;
	struct msc *msc;
	struct usb_bulk_dev bulk;
	struct save_dev sdev;
	bool xhci_up;           /* xhci_init succeeded: the controller is halted and reset at the end */
	unsigned retries_told;  /* the mass-storage retries already in a record */
	char where[64];
	void *msc_scratch;
	char why[WHY_LEN];      /* the last candidate's refusal, for the message when none carries the nonce */
	bool intel_routed;      /* an Intel 7/8-series PCH's ports were switched to xHCI */
} st;

static uint32_t io_read32(void *ctx, uint64_t a)
{
	(void)ctx;
	return mmio_read32((uintptr_t)a);
}

static void io_write32(void *ctx, uint64_t a, uint32_t v)
{
	(void)ctx;
	mmio_barrier(); /* descriptors in memory before the doorbell (usb_io.h's write32 contract) */
	mmio_write32((uintptr_t)a, v);
}

static void io_delay_us(void *ctx, uint32_t us)
{
	uint64_t start = cycles_read(), wait = st.counter_hz * us / US_PER_S + 1;

	(void)ctx;
	while (cycles_read() - start < wait)
		cpu_relax();
}

static void io_to_device(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	efi_arch_dma_to_device(p, n);
}

static void io_from_device(void *ctx, void *p, size_t n)
{
	(void)ctx;
	efi_arch_dma_from_device(p, n);
}

/* The mass-storage driver's view of the xHCI device. */
static int bulk_xfer(void *ctx, bool in, void *buf, uint32_t len, uint32_t *actual)
{
	(void)ctx;
	return xhci_bulk(st.xhci, st.dev, in, buf, len, actual);
}

static int bulk_control(void *ctx, uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *buf, uint16_t len)
{
	(void)ctx;
	return xhci_control(st.xhci, st.dev, type, req, value, index, buf, len);
}

static int bulk_clear_halt(void *ctx, bool in)
{
	(void)ctx;
	return xhci_clear_halt(st.xhci, st.dev, in);
}

static void bulk_set_timeout(void *ctx, uint32_t us)
{
	(void)ctx;
	xhci_set_bulk_timeout(st.xhci, us);
}

static int dev_read(void *ctx, uint64_t lba, uint32_t blocks, void *buf)
{
	(void)ctx;
	return msc_read(st.msc, lba, blocks, buf);
}

static int dev_write(void *ctx, uint64_t lba, uint32_t blocks, const void *buf)
{
	(void)ctx;
	return msc_write(st.msc, lba, blocks, buf);
}

/* A stick that refuses SYNCHRONIZE CACHE was reported when saving went live (sync_check); its
 * refusal does not stop saving, but nothing after it claims the data is durable. */
static int dev_sync(void *ctx)
{
	int r = msc_sync(st.msc);

	(void)ctx;
	return r == MSC_SYNC_UNSUPPORTED ? 0 : r;
}

static void path_text(struct sbuf *sb)
{
	for (unsigned i = 0; i < save_plan.path.depth; i++) {
		if (i)
			sb_putc(sb, '.');
		sb_u64(sb, save_plan.path.port[i]);
	}
}

void save_emit_plan(void)
{
	struct record *r = emit_start("plat");
	char port[16];
	struct sbuf sb;

	rec_str(r, "kind", "save");
	rec_str(r, "status", save_plan.phase == SAVE_PHASE_PLANNED ? "planned" : "off");
	if (save_plan.phase != SAVE_PHASE_PLANNED) {
		rec_str(r, "reason", save_plan.why);
		emit_finish();
		if (save_plan.asked)
			emit_msg(MSG_WARN, "results are not saved to the boot stick: see the save record");
		return;
	}
	sb_init(&sb, port, sizeof(port));
	path_text(&sb);
	rec_str(r, "file", save_plan.file);
	rec_u64(r, "capacity", save_plan.log.capacity);
	rec_u64(r, "block", save_plan.block);
	rec_u64(r, "extents", save_plan.log.n_ext);
	rec_u64(r, "part_lba", save_plan.part_lba);
	rec_str(r, "usb_port", port);
	rec_hex(r, "pci", ((uint64_t)save_plan.pci_bus << 8) | ((uint64_t)save_plan.pci_dev << 3) | save_plan.pci_fn);
	rec_hex(r, "pci_id", ((uint64_t)save_plan.pci_vendor << 16) | save_plan.pci_device);
	rec_bool(r, "ecam", save_plan.ecam != 0);
	rec_bool(r, "bar_fw", save_plan.mmio_from_fw); /* BAR0's CPU address from GetBarAttributes */
	if (save_plan.mmio != save_plan.mmio_bus)
		rec_hex(r, "bar_translation", save_plan.mmio_bus - save_plan.mmio);
	rec_u64(r, "bridges", save_plan.bridges);
	if (save_plan.power_was > 0)
		rec_u64(r, "power_was", (uint64_t)save_plan.power_was);
	rec_str(r, "iommu", iommu_kind_name(save_plan.iommu.kind));
	emit_finish();
}

void save_append(const char *bytes, unsigned len)
{
	if (save_plan.phase == SAVE_PHASE_PLANNED || save_plan.phase == SAVE_PHASE_LIVE)
		save_log_append(&save_plan.log, bytes, len);
}

/* Saving stops: the record says why (a failure after boot services). */
static void stop(const char *stage, const char *why)
{
	struct record *r = emit_start("plat");

	save_plan.phase = SAVE_PHASE_FAILED;
	save_plan.why = why;
	rec_str(r, "kind", "save");
	rec_str(r, "status", "failed");
	rec_str(r, "stage", stage);
	rec_str(r, "reason", why ? why : "unknown");
	emit_finish();
	emit_msg(MSG_WARN, "saving to the boot stick stopped: see the save record; the serial copy is complete");
}

static uint32_t ecam_read32(void *ctx, uint16_t off)
{
	(void)ctx;
	return mmio_read32((uintptr_t)(save_plan.ecam + off));
}

static void ecam_write32(void *ctx, uint16_t off, uint32_t v)
{
	(void)ctx;
	mmio_write32((uintptr_t)(save_plan.ecam + off), v);
}

/* Intel 7/8-series: every port the chipset allows on xHCI, SuperSpeed on (drivers/usb/xhci_intel.h). */
static void intel_routing(void)
{
	const struct xhci_pci_cfg cfg = { .read32 = ecam_read32, .write32 = ecam_write32 };
	struct xhci_intel_routing r;

	if (save_plan.ecam)
		st.intel_routed = xhci_intel_route_ports(save_plan.pci_vendor, save_plan.pci_device, &cfg, &r);
}

/* One LUN of the candidate device: open, the boot device's block size, the nonce; false with
 * st.why saying why not. */
static bool try_lun(uint8_t lun)
{
	struct sbuf sb;
	const char *why = 0;

	if (msc_open_lun(st.msc, &st.bulk, st.msc_scratch, lun))
		why = msc_error(st.msc);
	else if (st.msc->block_size != save_plan.block)
		why = "its block size differs from the boot device's";
	else if (!save_log_attach(&save_plan.log, &st.sdev))
		why = save_plan.log.error;
	if (!why)
		return true;
	sb_init(&sb, st.why, sizeof(st.why));
	sb_puts(&sb, "LUN ");
	sb_u64(&sb, lun);
	sb_puts(&sb, ": ");
	sb_puts(&sb, why);
	return false;
}

/* xhci_find_msc's question for each mass-storage device: does one of its LUNs hold this run's
 * file? The device path's LUN first, then 0 and each one up to GET MAX LUN's answer. Only reads. */
static bool accept_device(void *ctx, struct xhci_dev *dev)
{
	uint8_t max_lun;

	(void)ctx;
	st.dev = dev;
	st.bulk = (struct usb_bulk_dev){ .ctx = 0, .interface = dev->iface, .bulk = bulk_xfer,
					 .control = bulk_control, .clear_halt = bulk_clear_halt, .delay_us = io_delay_us,
					 .set_timeout = bulk_set_timeout };
	st.sdev = (struct save_dev){ .max_blocks = USB_MAX_TRANSFER / save_plan.block, .read = dev_read,
				     .write = dev_write, .sync = dev_sync };
	if (save_plan.lun_known && save_plan.lun && try_lun(save_plan.lun))
		return true;
	if (try_lun(0))
		return true;
	max_lun = st.msc->max_lun;
	for (unsigned lun = 1; lun <= max_lun; lun++)
		if (lun != save_plan.lun && try_lun((uint8_t)lun))
			return true;
	return false;
}

/* Why no device was taken, one line: what the walk saw and the last refusal. */
static const char *none_found(const struct xhci_walk_stats *ws)
{
	struct sbuf sb;
	static char msg[WHY_LEN + XHCI_ERR_LEN];

	if (!ws->offered)
		return xhci_error(st.xhci);
	sb_init(&sb, msg, sizeof(msg));
	sb_puts(&sb, "no USB mass-storage device on the boot stick's controller carries this run's nonce (");
	sb_u64(&sb, ws->offered);
	sb_puts(&sb, ws->offered == 1 ? " device read, " : " devices read, ");
	sb_u64(&sb, ws->connected);
	sb_puts(&sb, " connections); the last: ");
	sb_puts(&sb, st.why);
	return msg;
}

/* The controller, the device (found by its nonce) and the SCSI disk; false after stop() said why. */
static bool open_stick(void)
{
	struct xhci_walk_stats ws;
	const char *why;

	st.xhci = usb_dma_alloc(&save_plan.dma, sizeof(*st.xhci), 64, 0);
	st.dev = usb_dma_alloc(&save_plan.dma, sizeof(*st.dev), 64, 0);
	st.msc = usb_dma_alloc(&save_plan.dma, sizeof(*st.msc), 64, 0);
	/* The SCSI buffers, MSC_SCRATCH_SLOT apart, are on granules of their own only up to that size. */
	if (save_plan.dma.granule > MSC_SCRATCH_SLOT) {
		stop("memory", "the CPU's cache-writeback granule is larger than the SCSI buffers' spacing");
		return false;
	}
	st.msc_scratch = usb_dma_alloc(&save_plan.dma, MSC_SCRATCH_MIN, MSC_SCRATCH_SLOT, 0);
	if (!st.xhci || !st.dev || !st.msc || !st.msc_scratch) {
		stop("memory", "the USB path's memory is too small for its state");
		return false;
	}
	/* the enables again (the firmware's driver may turn them off at ExitBootServices), then
	 * whether an IOMMU left on would fault the controller's DMA */
	if ((why = save_pci_resume(io_delay_us)) != NULL) {
		stop("pci", why);
		return false;
	}
	if ((why = save_iommu_check()) != NULL) {
		stop("iommu", why);
		return false;
	}
	intel_routing();
	if (xhci_init(st.xhci, save_plan.mmio, &st.io, &save_plan.dma)) {
		stop("xhci", xhci_error(st.xhci));
		return false;
	}
	st.xhci_up = true;
	if (st.xhci->bios_forced)
		emit_msg(MSG_WARN, "save: the BIOS never released the USB controller (USBLEGSUP); taken after 1 s, its SMIs off");
	if (xhci_find_msc(st.xhci, &save_plan.path, accept_device, 0, st.dev, &ws)) {
		stop("usb_device", none_found(&ws));
		return false;
	}
	return true;
}

/* Where the stick was found: root port, then the port of each hub tier (route string 8.9). */
static void found_text(struct sbuf *sb)
{
	sb_u64(sb, st.dev->root_port);
	for (unsigned t = 1; t < st.dev->tier; t++) {
		sb_putc(sb, '.');
		sb_u64(sb, (st.dev->route >> (4 * (t - 1))) & 0xF);
	}
}

static void emit_live(void)
{
	struct record *r = emit_start("plat");
	char port[24];
	struct sbuf sb;

	sb_init(&sb, port, sizeof(port));
	found_text(&sb);

	rec_str(r, "kind", "save");
	rec_str(r, "status", "live");
	rec_str(r, "file", save_plan.file);
	rec_str(r, "speed", usb_speed_name(st.dev->speed));
	rec_str(r, "vendor", st.msc->vendor);
	rec_str(r, "product", st.msc->product);
	rec_u64(r, "blocks", st.msc->blocks);
	if (st.msc->sync_unsupported)
		rec_str(r, "sync", "refused");
	if (st.msc->start_sent)
		rec_bool(r, "start_unit", true);
	rec_str(r, "usb_port", port);
	rec_u64(r, "lun", st.msc->bot.lun);
	if (st.xhci->bios_forced)
		rec_str(r, "bios_handoff", "forced");
	if (st.intel_routed)
		rec_str(r, "port_routing", "intel_xhci");
	emit_finish();
}

/* Once, before the first write: does the stick confirm a cache flush? A refusal (ILLEGAL
 * REQUEST) is not a success: the records are written, but may sit in its cache when the power
 * goes. The live record says which; a refusal is a warning too. False: the flush failed. */
static bool sync_check(void)
{
	int r = msc_sync(st.msc);

	if (r == MSC_SYNC_UNSUPPORTED) {
		emit_msg(MSG_WARN, "save: the stick refused SYNCHRONIZE CACHE (ILLEGAL REQUEST): the saved "
				   "data may still be in its cache; wait a few seconds before unplugging it");
		return true;
	}
	if (r)
		stop("sync", msc_error(st.msc));
	return r == 0;
}

/* A command that failed and went through after a reset recovery: a record, as it happens. */
static void tell_retries(void)
{
	struct record *r;

	if (!st.msc || st.msc->retries == st.retries_told)
		return;
	st.retries_told = st.msc->retries;
	r = emit_start("plat");
	rec_str(r, "kind", "save");
	rec_str(r, "status", "recovered");
	rec_str(r, "command", st.msc->retry_cmd ? st.msc->retry_cmd : "unknown");
	rec_str(r, "reason", st.msc->retry_why ? st.msc->retry_why : "unknown");
	rec_u64(r, "retries", st.msc->retries);
	emit_finish();
}

void save_start(const struct probe_env *env)
{
	struct sbuf sb;

	if (save_plan.phase != SAVE_PHASE_PLANNED)
		return;
	st.counter_hz = env->counter_hz ? env->counter_hz : FALLBACK_COUNTER_HZ;
	st.io = (struct usb_io){ .read32 = io_read32, .write32 = io_write32, .delay_us = io_delay_us,
				 .dma_to_device = io_to_device, .dma_from_device = io_from_device };
	/* Every buffer on its own cache-writeback granule (drivers/usb/usb_io.h). */
	save_plan.dma.granule = arch_dma_granule();
	if (!open_stick())
		return;
	st.sdev = (struct save_dev){ .max_blocks = USB_MAX_TRANSFER / save_plan.block, .read = dev_read,
				     .write = dev_write, .sync = dev_sync };
	if (!save_log_attach(&save_plan.log, &st.sdev)) {
		stop("identify", save_plan.log.error);
		return;
	}
	if (!sync_check())
		return;
	save_plan.phase = SAVE_PHASE_LIVE;
	sb_init(&sb, st.where, sizeof(st.where));
	sb_puts(&sb, save_plan.file);
	sb_puts(&sb, " on the boot stick");
	emit_live();
	save_flush();
}

void save_flush(void)
{
	if (save_plan.phase != SAVE_PHASE_LIVE)
		return;
	if (!save_log_flush(&save_plan.log, false))
		stop("write", save_plan.log.error);
	else
		tell_retries();
}

/* Linux xhci_shutdown: the controller halted and reset before power-off or reboot, so it does no
 * DMA into memory the firmware reuses, and the stick sees a clean bus reset. Bounded (xhci.h). */
static void controller_shutdown(void)
{
	if (!st.xhci_up)
		return;
	st.xhci_up = false;
	if (xhci_shutdown(st.xhci))
		summary_line(xhci_error(st.xhci));
}

void save_close(void)
{
	if (save_plan.phase != SAVE_PHASE_LIVE) {
		controller_shutdown();
		return;
	}
	/* after the end record: a failure here can only show on the screen */
	if (!save_log_flush(&save_plan.log, true)) {
		save_plan.phase = SAVE_PHASE_FAILED;
		save_plan.why = save_plan.log.error;
		controller_shutdown();
		return;
	}
	if (st.msc->sync_unsupported)
		summary_line("save: the stick refused SYNCHRONIZE CACHE: wait a few seconds before unplugging it");
	controller_shutdown();
	if (!save_plan.log.lost)
		summary_destination(st.where); /* the screen names the file; the only copy is not the screen */
}

const char *save_destination(void)
{
	return save_plan.phase == SAVE_PHASE_LIVE && !save_plan.log.lost ? st.where : NULL;
}
