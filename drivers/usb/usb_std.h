/* USB standard and hub-class request and descriptor codes (USB 2.0 chapters 9 and 11, USB 3.2
 * chapters 9 and 10), named once for the host controller driver and the mass-storage helper. */
#ifndef DRIVERS_USB_USB_STD_H
#define DRIVERS_USB_USB_STD_H

/* 9.3 bmRequestType: direction, type, recipient */
#define USB_DIR_IN 0x80
#define USB_DIR_OUT 0x00
#define USB_TYPE_STANDARD 0x00
#define USB_TYPE_CLASS 0x20
#define USB_RECIP_DEVICE 0x00
#define USB_RECIP_INTERFACE 0x01
#define USB_RECIP_ENDPOINT 0x02
#define USB_RECIP_OTHER 0x03 /* hub class: a port */

/* 9.4 standard requests */
#define USB_REQ_GET_STATUS 0
#define USB_REQ_CLEAR_FEATURE 1
#define USB_REQ_SET_FEATURE 3
#define USB_REQ_GET_DESCRIPTOR 6
#define USB_REQ_SET_CONFIGURATION 9
#define USB_FEATURE_ENDPOINT_HALT 0

/* 9.6 descriptor types and layouts (byte offsets) */
#define USB_DT_DEVICE 1
#define USB_DT_CONFIG 2
#define USB_DT_INTERFACE 4
#define USB_DT_ENDPOINT 5
#define USB_DT_SS_EP_COMPANION 0x30
#define USB_DT_HUB 0x29    /* USB 2.0 11.23.2.1 */
#define USB_DT_SS_HUB 0x2a /* USB 3.2 10.15.2.1 */
#define USB_DESC_LEN 0
#define USB_DESC_TYPE 1
#define USB_DEV_DESC_SIZE 18
#define USB_DEV_CLASS 4
#define USB_DEV_MPS0 7
#define USB_CFG_DESC_SIZE 9
#define USB_CFG_TOTAL_LEN 2
#define USB_CFG_VALUE 5
#define USB_IF_NUMBER 2
#define USB_IF_ALT 3
#define USB_IF_CLASS 5
#define USB_IF_SUBCLASS 6
#define USB_IF_PROTOCOL 7
#define USB_EP_ADDR 2
#define USB_EP_ATTR 3
#define USB_EP_MPS 4
#define USB_EP_ADDR_IN 0x80
#define USB_EP_NUM_MASK 0x0f
#define USB_EP_XFER_MASK 0x03
#define USB_EP_XFER_BULK 2
#define USB_EP_MPS_MASK 0x7ff
#define USB_SSC_MAX_BURST 2
#define USB_HUB_NPORTS 2
#define USB_HUB_CHARACTERISTICS 3
#define USB_HUB_PWR_ON_2_GOOD 5 /* in 2 ms units */
#define USB_HUB_TTT_SHIFT 5      /* wHubCharacteristics 6:5: TT think time */
#define USB_HUB_TTT_MASK 3

/* Classes */
#define USB_CLASS_MASS_STORAGE 8
#define USB_MSC_SUBCLASS_SCSI 6
#define USB_MSC_PROTO_BULK_ONLY 0x50
#define USB_CLASS_HUB 9

/* Hub class requests and port features (USB 2.0 11.24.2, USB 3.2 10.16.2) */
#define USB_HUB_REQ_SET_HUB_DEPTH 12
#define USB_PORT_FEAT_RESET 4
#define USB_PORT_FEAT_POWER 8
#define USB_PORT_FEAT_C_CONNECTION 16
#define USB_PORT_FEAT_C_RESET 20
/* wPortStatus / wPortChange bits (the first four are the same for USB 2 and USB 3 hubs) */
#define USB_PORT_STAT_CONNECTION 0x0001
#define USB_PORT_STAT_ENABLE 0x0002
#define USB_PORT_STAT_RESET 0x0010
#define USB_PORT_STAT_LOW_SPEED 0x0200  /* USB 2 hubs only */
#define USB_PORT_STAT_HIGH_SPEED 0x0400 /* USB 2 hubs only */
#define USB_PORT_STAT_C_CONNECTION 0x0001
#define USB_PORT_STAT_C_RESET 0x0010

#endif
