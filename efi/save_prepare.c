/* The boot stick's copy of the stream, before ExitBootServices (see save.h): the boot device's
 * USB path, the log file created and pre-allocated through the file protocol, its extents read
 * back with our own FAT reader, and the DMA memory of the USB path. */
/* OPT_SMALL: -Os (Makefile): the counter only seeds the log's nonce. */
#include "efi/save.h"

#include <efilib.h>
#include <string.h>

#include "arch/cycles.h"
#include "drivers/storage/fat.h"
#include "efi/efi_util.h"
#include "efi/save_iommu.h"
#include "efi/save_pci.h"
#include "efi/save_state.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/rand.h"

#define MIB (1024ull * 1024)
#define PAGE_BYTES 4096ull
#define SAVE_AUTO_MB 16         /* the default run's stream is ~1.7 MB: ten times that */
#define SAVE_AUTO_PROFILE_MB 64 /* the profiler's samples add a few MB per profiled probe */
#define SAVE_DIR L"\\BAREMETRIC"
#define SAVE_DIR_ASCII "\\BAREMETRIC\\"
#define RUN_MAX 999
#define WRITE_CHUNK (1024 * 1024)
#define DIR_INFO_BYTES 1024
#define FAT_SCRATCH_BYTES (64 * 1024)

static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;
static EFI_GUID block_io_guid = BLOCK_IO_PROTOCOL;
static EFI_GUID fs_info_guid = EFI_FILE_SYSTEM_INFO_ID;

static void not_saving(const char *why)
{
	save_plan.phase = SAVE_PHASE_OFF;
	save_plan.why = why;
}

/* The USB ports (root hub first), the LUN and the partition's start, from the device path of the
 * image's device. The ports are only the walk's first guess (save_stick.c finds the stick by its
 * nonce): UEFI 2.10 10.3.4.5 counts ParentPortNumber from 0, but AMI Aptio 4 writes it 1-based,
 * and a stick may come back on its other-speed port. The Device Logical Unit node (10.3.4.8) is
 * kept: a card reader or U3 stick boots from a LUN other than 0. False with a reason when it is
 * not a USB mass-storage path. */
static bool walk_path(const EFI_DEVICE_PATH *dp)
{
	struct usb_port_path *up = &save_plan.path;
	bool pci = false;

	up->depth = 0;
	save_plan.lun = 0;
	save_plan.lun_known = false;
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if ((UINTN)DevicePathNodeLength(dp) < sizeof(EFI_DEVICE_PATH))
			break;
		if (DevicePathType(dp) == HARDWARE_DEVICE_PATH && DevicePathSubType(dp) == HW_PCI_DP)
			pci = true;
		if (DevicePathType(dp) == MESSAGING_DEVICE_PATH && DevicePathSubType(dp) == MSG_USB_DP) {
			const USB_DEVICE_PATH *u = (const USB_DEVICE_PATH *)dp;

			if (up->depth == USB_PATH_MAX) {
				not_saving("the boot stick is behind more than five USB hubs (USB allows five)");
				return false;
			}
			up->port[up->depth++] = (uint8_t)(u->Port + 1); /* 0-based as the spec says: a hint */
		}
		if (DevicePathType(dp) == MESSAGING_DEVICE_PATH && DevicePathSubType(dp) == MSG_DEVICE_LOGICAL_UNIT_DP &&
		    (UINTN)DevicePathNodeLength(dp) >= sizeof(DEVICE_LOGICAL_UNIT_DEVICE_PATH)) {
			save_plan.lun = ((const DEVICE_LOGICAL_UNIT_DEVICE_PATH *)dp)->Lun;
			save_plan.lun_known = true;
		}
		if (DevicePathType(dp) == MEDIA_DEVICE_PATH && DevicePathSubType(dp) == MEDIA_HARDDRIVE_DP)
			save_plan.part_lba = ((const HARDDRIVE_DEVICE_PATH *)dp)->PartitionStart;
	}
	if (!up->depth || !pci) {
		not_saving("the image was not loaded from a USB mass-storage device");
		return false;
	}
	return true;
}

static uint64_t save_capacity(const struct config *cfg)
{
	uint64_t mb = cfg->save_mb;

	if (!mb)
		mb = cfg->profile[0] ? SAVE_AUTO_PROFILE_MB : SAVE_AUTO_MB;
	return mb * MIB;
}

/* One region the controller reaches below 4 GiB (controllers without 64-bit addressing do), mapped
 * for it by the firmware (efi/save_pci.c): the USB path's memory, the header's two blocks, the
 * stream's mirror. */
static bool reserve_dma(uint64_t capacity)
{
	uint64_t bytes = SAVE_USB_DMA_BYTES + 2ull * save_plan.block + capacity;

	return save_pci_dma((bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES);
}

static void make_nonce(char *out, EFI_HANDLE image)
{
	static const char hex[] = "0123456789abcdef";
	struct rand_state r;
	EFI_TIME t;
	uint64_t mix = cycles_read() ^ (uint64_t)(UINTN)image;

	if (!EFI_ERROR(uefi_call_wrapper(ST->RuntimeServices->GetTime, 2, &t, NULL)))
		mix ^= ((uint64_t)t.Year << 40) ^ ((uint64_t)t.Month << 32) ^ ((uint64_t)t.Day << 24) ^
		       ((uint64_t)t.Hour << 16) ^ ((uint64_t)t.Minute << 8) ^ t.Second ^ ((uint64_t)t.Nanosecond << 20);
	rand_seed(&r, mix);
	for (unsigned i = 0; i < SAVE_LOG_NONCE_HEX; i += 16) {
		uint64_t v = rand_next(&r) ^ cycles_read();

		for (unsigned k = 0; k < 16; k++)
			out[i + k] = hex[(v >> (4 * k)) & 0xF];
	}
	out[SAVE_LOG_NONCE_HEX] = 0;
}

/* RUN_NNN.LOG (any case) -> NNN, else 0. */
static unsigned run_number(const CHAR16 *name)
{
	static const char pre[] = "RUN_", post[] = ".LOG";
	unsigned n = 0, i;

	for (i = 0; i < 4; i++)
		if ((name[i] & ~0x20) != (pre[i] & ~0x20) && name[i] != pre[i])
			return 0;
	for (; i < 7; i++) {
		if (name[i] < L'0' || name[i] > L'9')
			return 0;
		n = n * 10 + (unsigned)(name[i] - L'0');
	}
	for (unsigned k = 0; k < 4; k++, i++)
		if ((name[i] | 0x20) != (post[k] | 0x20))
			return 0;
	return name[i] ? 0 : n;
}

/* The next free run number in the directory (the highest plus one), 0 when all are taken. */
static unsigned next_run(EFI_FILE_HANDLE dir)
{
	uint64_t buf[DIR_INFO_BYTES / 8];
	unsigned highest = 0;

	for (;;) {
		UINTN size = sizeof(buf);
		EFI_FILE_INFO *fi = (EFI_FILE_INFO *)buf;
		unsigned n;

		if (EFI_ERROR(uefi_call_wrapper(dir->Read, 3, dir, &size, buf)) || size == 0)
			break;
		n = run_number(fi->FileName);
		if (n > highest)
			highest = n;
	}
	return highest < RUN_MAX ? highest + 1 : 0;
}

static void run_name(unsigned n, CHAR16 *wide, char *ascii)
{
	static const char fmt[] = "RUN_000.LOG";
	struct sbuf sb;

	for (unsigned i = 0; i < sizeof(fmt); i++)
		wide[i] = (CHAR16)fmt[i];
	wide[4] = (CHAR16)(L'0' + n / 100);
	wide[5] = (CHAR16)(L'0' + n / 10 % 10);
	wide[6] = (CHAR16)(L'0' + n % 10);
	sb_init(&sb, ascii, SAVE_FILE_CHARS);
	sb_puts(&sb, SAVE_DIR_ASCII);
	for (unsigned i = 0; wide[i]; i++)
		sb_putc(&sb, (char)wide[i]);
}

/* Free space on the volume, or UINT64_MAX when the file system does not say. */
static uint64_t free_space(EFI_FILE_HANDLE root)
{
	uint64_t buf[DIR_INFO_BYTES / 8];
	UINTN size = sizeof(buf);

	if (EFI_ERROR(uefi_call_wrapper(root->GetInfo, 4, root, &fs_info_guid, &size, buf)))
		return UINT64_MAX;
	return ((EFI_FILE_SYSTEM_INFO *)buf)->FreeSpace;
}

/* Write both header blocks and then zeros up to the file's full size: the FAT driver allocates
 * every cluster now, so the extents we read afterwards are the file's for good. */
static bool fill_file(EFI_FILE_HANDLE f, uint64_t total)
{
	uint64_t done = 0;

	save_log_format_initial(&save_plan.log, save_plan.log.hdr);
	while (done < total) {
		const void *src = done ? (const void *)save_plan.log.data : (const void *)save_plan.log.hdr;
		UINTN n = done ? (UINTN)(total - done < WRITE_CHUNK ? total - done : WRITE_CHUNK) : SAVE_LOG_HDR_BLOCKS * save_plan.block;

		if (done && n > save_plan.log.capacity)
			n = (UINTN)save_plan.log.capacity;
		if (EFI_ERROR(uefi_call_wrapper(f->Write, 3, f, &n, (void *)src)) || !n)
			return false;
		done += n;
	}
	return !EFI_ERROR(uefi_call_wrapper(f->Flush, 1, f));
}

/* \BAREMETRIC\RUN_NNN.LOG created and filled; false (nothing left behind) with a reason. */
static bool create_file(EFI_HANDLE device, uint64_t total)
{
	EFI_FILE_HANDLE root = efi_open_root(device), dir = NULL, f = NULL;
	CHAR16 name[16];
	unsigned n;
	bool ok = false;

	if (!root) {
		not_saving("the boot device has no file system the firmware can write");
		return false;
	}
	if (free_space(root) < total + MIB) {
		not_saving("the stick has too little free space for the log file (lower save_mb or free space)");
	} else if (EFI_ERROR(uefi_call_wrapper(root->Open, 5, root, &dir, SAVE_DIR,
					       EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, EFI_FILE_DIRECTORY))) {
		not_saving("could not open or create \\BAREMETRIC on the stick (write-protected?)");
	} else if (!(n = next_run(dir))) {
		not_saving("\\BAREMETRIC already holds RUN_999.LOG: move the old runs off the stick");
	} else {
		run_name(n, name, save_plan.file);
		if (EFI_ERROR(uefi_call_wrapper(dir->Open, 5, dir, &f, name,
						EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0))) {
			not_saving("could not create the log file on the stick");
		} else if (!fill_file(f, total)) {
			uefi_call_wrapper(f->Delete, 1, f); /* closes it too */
			f = NULL;
			not_saving("writing the log file's pre-allocation failed (stick full or write-protected?)");
		} else {
			ok = true;
		}
	}
	if (f)
		uefi_call_wrapper(f->Close, 1, f);
	if (dir)
		uefi_call_wrapper(dir->Close, 1, dir);
	uefi_call_wrapper(root->Close, 1, root);
	return ok;
}

struct bio_ctx {
	EFI_BLOCK_IO *bio;
};

static int bio_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	EFI_BLOCK_IO *bio = ((struct bio_ctx *)ctx)->bio;

	return EFI_ERROR(uefi_call_wrapper(bio->ReadBlocks, 5, bio, bio->Media->MediaId, lba,
					   (UINTN)count * bio->Media->BlockSize, buf)) ? -1 : 0;
}

/* The file's blocks on the device, read with our own FAT reader (the extents the USB path may
 * write): relative to the partition through its BlockIo, then moved by the partition's start. */
static bool read_extents(EFI_BLOCK_IO *bio, uint64_t total)
{
	struct bio_ctx ctx = { .bio = bio };
	struct blk_reader rd = { .ctx = &ctx, .block_size = save_plan.block, .read = bio_read };
	struct fat_extent fe[SAVE_LOG_EXTENTS_MAX];
	struct save_extent se[SAVE_LOG_EXTENTS_MAX];
	struct fat_vol vol;
	struct fat_file file;
	unsigned n = 0;
	void *scratch = usb_dma_alloc(&save_plan.dma, FAT_SCRATCH_BYTES, PAGE_BYTES, 0);

	if (!scratch || fat_mount(&vol, &rd, 0, scratch, FAT_SCRATCH_BYTES) ||
	    fat_lookup(&vol, save_plan.file, &file) || fat_extents(&vol, &file, fe, SAVE_LOG_EXTENTS_MAX, &n)) {
		not_saving(scratch ? fat_error(&vol) : "no memory for the FAT reader");
		return false;
	}
	if (file.size != total) {
		not_saving("the log file's size in its directory entry is not the size written");
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		se[i].lba = save_plan.part_lba + fe[i].lba;
		se[i].blocks = fe[i].blocks;
	}
	save_plan.dma.used = 0; /* the FAT reader's scratch is free again for the USB path */
	if (!save_log_set_extents(&save_plan.log, se, n)) {
		not_saving(save_plan.log.error);
		return false;
	}
	return true;
}

static void prepare(EFI_HANDLE image, const struct config *cfg, const struct acpi_info *acpi)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_DEVICE_PATH *dp = NULL;
	EFI_BLOCK_IO *bio = NULL;
	uint64_t capacity = save_capacity(cfg), total;
	uint8_t *hdr;
	char nonce[SAVE_LOG_NONCE_HEX + 1];

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image, &efi_loaded_image_guid, (void **)&li)) || !li ||
	    EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &device_path_guid, (void **)&dp)) || !dp) {
		not_saving("the boot device has no device path");
		return;
	}
	if (!walk_path(dp))
		return;
	save_plan.asked = true;
	if (!save_pci_find(dp, acpi))
		return;
	save_iommu_survey(acpi);
	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, li->DeviceHandle, &block_io_guid, (void **)&bio)) || !bio) {
		not_saving("the boot device has no block I/O protocol");
		return;
	}
	save_plan.block = bio->Media->BlockSize;
	save_plan.dev_blocks = bio->Media->LastBlock + 1;
	if (save_plan.block < SAVE_LOG_HDR_MIN || save_plan.block > 4096 || (save_plan.block & (save_plan.block - 1))) {
		not_saving("the boot device's block size is not one the log supports (512..4096)");
		return;
	}
	capacity = (capacity + save_plan.block - 1) / save_plan.block * save_plan.block;
	total = SAVE_LOG_HDR_BLOCKS * save_plan.block + capacity;
	if (!reserve_dma(capacity))
		return;
	hdr = save_plan.dma.base + SAVE_USB_DMA_BYTES;
	make_nonce(nonce, image);
	save_log_init(&save_plan.log, save_plan.block, hdr, hdr + 2 * save_plan.block, capacity, nonce);
	if (!create_file(li->DeviceHandle, total) || !read_extents(bio, total))
		return;
	save_plan.phase = SAVE_PHASE_PLANNED;
}

void save_prepare(EFI_HANDLE image, const struct config *cfg, const struct acpi_info *acpi)
{
	save_plan.phase = SAVE_PHASE_OFF;
	if (cfg->save == SAVE_OFF) {
		not_saving("save=off");
		return;
	}
	prepare(image, cfg, acpi);
	if (cfg->save == SAVE_USB)
		save_plan.asked = true;
	if (save_plan.phase == SAVE_PHASE_PLANNED)
		efi_con_line("baremetric: results will also be saved to ", save_plan.file);
	else if (save_plan.asked)
		efi_con_line("baremetric: results are not saved to the stick: ", save_plan.why);
}
