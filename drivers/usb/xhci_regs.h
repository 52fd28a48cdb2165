/* xHCI register, context and TRB layouts (eXtensible Host Controller Interface 1.2, sections 5, 6
 * and 7): offsets, fields and codes, named once for the driver (and nothing else: the unit tests'
 * controller model spells the spec out on its own). */
#ifndef DRIVERS_USB_XHCI_REGS_H
#define DRIVERS_USB_XHCI_REGS_H

/* ---- 5.3 Capability registers (offsets from the MMIO base) ---- */
#define XHCI_CAP_CAPLENGTH 0x00 /* bits 7:0 CAPLENGTH, 31:16 HCIVERSION */
#define XHCI_CAP_HCSPARAMS1 0x04
#define XHCI_CAP_HCSPARAMS2 0x08
#define XHCI_CAP_HCCPARAMS1 0x10
#define XHCI_CAP_DBOFF 0x14
#define XHCI_CAP_RTSOFF 0x18
#define XHCI_CAPLENGTH_MASK 0xffu
#define XHCI_HCIVERSION_SHIFT 16
#define XHCI_HCIVERSION_1_0 0x100
#define XHCI_HCS1_MAX_SLOTS(v) ((v) & 0xffu)
#define XHCI_HCS1_MAX_PORTS(v) (((v) >> 24) & 0xffu)
/* 5.3.4 Table 5-13: Max Scratchpad Buffers, a 10-bit count in two halves: Hi (its bits 9:5) in
 * HCSPARAMS2 bits 25:21, Lo (its bits 4:0) in bits 31:27. */
#define XHCI_HCS2_SCRATCH_HI_SHIFT 21
#define XHCI_HCS2_SCRATCH_LO_SHIFT 27
#define XHCI_HCS2_SCRATCH_HALF 0x1fu
#define XHCI_HCS2_SCRATCH(v) \
	(((((v) >> XHCI_HCS2_SCRATCH_HI_SHIFT) & XHCI_HCS2_SCRATCH_HALF) << 5) | \
	 (((v) >> XHCI_HCS2_SCRATCH_LO_SHIFT) & XHCI_HCS2_SCRATCH_HALF))
#define XHCI_HCC1_AC64 (1u << 0) /* 64-bit addressing */
#define XHCI_HCC1_CSZ (1u << 2)  /* 64-byte contexts */
#define XHCI_HCC1_PPC (1u << 3)  /* port power control */
#define XHCI_HCC1_XECP(v) (((v) >> 16) & 0xffffu) /* in dwords from the base */
#define XHCI_DBOFF_MASK 0xfffffffcu
#define XHCI_RTSOFF_MASK 0xffffffe0u

/* ---- 5.4 Operational registers (offsets from base + CAPLENGTH) ---- */
#define XHCI_OP_USBCMD 0x00
#define XHCI_OP_USBSTS 0x04
#define XHCI_OP_PAGESIZE 0x08
#define XHCI_OP_CRCR_LO 0x18
#define XHCI_OP_CRCR_HI 0x1c
#define XHCI_OP_DCBAAP_LO 0x30
#define XHCI_OP_DCBAAP_HI 0x34
#define XHCI_OP_CONFIG 0x38
#define XHCI_OP_PORTSC(n) (0x400 + 0x10 * ((n) - 1)) /* n: 1-based port number (5.4.8) */

#define XHCI_CMD_RS (1u << 0)
#define XHCI_CMD_HCRST (1u << 1)
#define XHCI_CMD_INTE (1u << 2)
#define XHCI_STS_HCH (1u << 0)
#define XHCI_STS_HSE (1u << 2)
#define XHCI_STS_CNR (1u << 11)
#define XHCI_STS_HCE (1u << 12)
#define XHCI_CRCR_RCS (1u << 0)
#define XHCI_CRCR_CA (1u << 2)
#define XHCI_CRCR_CRR (1u << 3)
#define XHCI_CONFIG_SLOTS_MASK 0xffu
#define XHCI_PAGESIZE_MASK 0xffffu /* bit n set: pages of 2^(n+12) bytes */

/* 5.4.8 PORTSC. RW1C: PED and the change bits (writing 1 clears, so they are written as 0 unless
 * meant); RW1S: PR, WPR; RWS kept across writes: PP, PIC, LWS-gated PLS, WCE, WDE, WOE. */
#define XHCI_PORTSC_CCS (1u << 0)
#define XHCI_PORTSC_PED (1u << 1)
#define XHCI_PORTSC_PR (1u << 4)
#define XHCI_PORTSC_PLS_SHIFT 5
#define XHCI_PORTSC_PLS_MASK 0xfu
#define XHCI_PORTSC_PP (1u << 9)
#define XHCI_PORTSC_SPEED_SHIFT 10
#define XHCI_PORTSC_SPEED_MASK 0xfu
#define XHCI_PORTSC_PIC_MASK (3u << 14)
#define XHCI_PORTSC_CSC (1u << 17)
#define XHCI_PORTSC_PEC (1u << 18)
#define XHCI_PORTSC_WRC (1u << 19)
#define XHCI_PORTSC_OCC (1u << 20)
#define XHCI_PORTSC_PRC (1u << 21)
#define XHCI_PORTSC_PLC (1u << 22)
#define XHCI_PORTSC_CEC (1u << 23)
#define XHCI_PORTSC_WCE (1u << 25)
#define XHCI_PORTSC_WDE (1u << 26)
#define XHCI_PORTSC_WOE (1u << 27)
#define XHCI_PORTSC_WPR (1u << 31)
#define XHCI_PORTSC_KEEP (XHCI_PORTSC_PP | XHCI_PORTSC_PIC_MASK | XHCI_PORTSC_WCE | XHCI_PORTSC_WDE | XHCI_PORTSC_WOE)
#define XHCI_PORTSC_CHANGES (XHCI_PORTSC_CSC | XHCI_PORTSC_PEC | XHCI_PORTSC_WRC | XHCI_PORTSC_OCC | \
			     XHCI_PORTSC_PRC | XHCI_PORTSC_PLC | XHCI_PORTSC_CEC)
/* PLS values (5.4.8 table 5-27). */
#define XHCI_PLS_U0 0
#define XHCI_PLS_DISABLED 4
#define XHCI_PLS_INACTIVE 6
#define XHCI_PLS_POLLING 7
#define XHCI_PLS_COMPLIANCE 10
/* Default Protocol Speed IDs (7.2.2.1.1): PORTSC speed and the slot context's Speed field. */
#define XHCI_PSI_FULL 1
#define XHCI_PSI_LOW 2
#define XHCI_PSI_HIGH 3
#define XHCI_PSI_SUPER 4
#define XHCI_PSI_SUPER_PLUS 5

/* ---- 5.5 Runtime registers: interrupter 0 at RTSOFF + 0x20 ---- */
#define XHCI_RT_IR0 0x20
#define XHCI_IR_IMAN 0x00
#define XHCI_IR_IMOD 0x04
#define XHCI_IR_ERSTSZ 0x08
#define XHCI_IR_ERSTBA_LO 0x10
#define XHCI_IR_ERSTBA_HI 0x14
#define XHCI_IR_ERDP_LO 0x18
#define XHCI_IR_ERDP_HI 0x1c
#define XHCI_IMAN_IP (1u << 0)
#define XHCI_ERDP_EHB (1u << 3) /* RW1C: event handler busy */

/* ---- 7 Extended capabilities ---- */
#define XHCI_XCAP_ID(v) ((v) & 0xffu)
#define XHCI_XCAP_NEXT(v) (((v) >> 8) & 0xffu) /* in dwords from this capability, 0: last */
#define XHCI_XCAP_LEGACY 1
#define XHCI_XCAP_PROTOCOL 2
/* 7.1 USB Legacy Support: USBLEGSUP then USBLEGCTLSTS. */
#define XHCI_LEGSUP_BIOS_OWNED (1u << 16)
#define XHCI_LEGSUP_OS_OWNED (1u << 24)
#define XHCI_LEGCTLSTS 4
/* 7.1.2: SMI enables (bits 0, 4, 13, 14, 15) and the RW1C SMI status bits (29, 30, 31). */
#define XHCI_LEGCTL_SMI_ENABLES ((1u << 0) | (1u << 4) | (1u << 13) | (1u << 14) | (1u << 15))
#define XHCI_LEGCTL_SMI_STATUS_RW1C ((1u << 29) | (1u << 30) | (1u << 31))
/* 7.2 Supported Protocol: dword 0 major revision 31:24; dword 2 compatible port offset 7:0 and
 * count 15:8; dword 3 Protocol Slot Type 4:0. */
#define XHCI_PROTO_MAJOR(v) (((v) >> 24) & 0xffu)
#define XHCI_PROTO_PORT_OFF(v) ((v) & 0xffu)
#define XHCI_PROTO_PORT_CNT(v) (((v) >> 8) & 0xffu)
#define XHCI_PROTO_SLOT_TYPE(v) ((v) & 0x1fu)

/* ---- 6.4 TRBs: dword 3 (control) ---- */
#define XHCI_TRB_CYCLE (1u << 0)
#define XHCI_TRB_TC (1u << 1)  /* Link: toggle cycle */
#define XHCI_TRB_ISP (1u << 2) /* interrupt on short packet */
#define XHCI_TRB_CH (1u << 4)  /* chain */
#define XHCI_TRB_IOC (1u << 5)
#define XHCI_TRB_IDT (1u << 6) /* immediate data (Setup Stage) */
#define XHCI_TRB_BSR (1u << 9) /* Address Device: block SET_ADDRESS */
#define XHCI_TRB_TYPE_SHIFT 10
#define XHCI_TRB_TYPE(t) ((uint32_t)(t) << XHCI_TRB_TYPE_SHIFT)
#define XHCI_TRB_GET_TYPE(c) (((c) >> XHCI_TRB_TYPE_SHIFT) & 0x3fu)
#define XHCI_TRB_DIR_IN (1u << 16)   /* Data/Status Stage direction */
#define XHCI_TRB_TRT_SHIFT 16        /* Setup Stage transfer type */
#define XHCI_TRT_NO_DATA 0
#define XHCI_TRT_OUT 2
#define XHCI_TRT_IN 3
#define XHCI_TRB_EP_SHIFT 16         /* endpoint id (DCI) of commands and events */
#define XHCI_TRB_SLOT_SHIFT 24       /* slot id of commands and events */
#define XHCI_TRB_SLOT_TYPE_SHIFT 16  /* Enable Slot */
/* dword 2 (status) */
#define XHCI_TRB_LEN_MASK 0x1ffffu
#define XHCI_TRB_TD_SIZE_SHIFT 17
#define XHCI_TRB_TD_SIZE_MAX 31u
#define XHCI_EVT_CC_SHIFT 24
#define XHCI_EVT_LEN_MASK 0xffffffu
#define XHCI_SETUP_LEN 8
#define XHCI_TRB_MAX_BYTES 0x10000u /* a TRB's buffer never crosses a 64 KiB boundary (6.4.1) */

/* 6.4.6 TRB types */
#define XHCI_TRB_NORMAL 1
#define XHCI_TRB_SETUP 2
#define XHCI_TRB_DATA 3
#define XHCI_TRB_STATUS 4
#define XHCI_TRB_LINK 6
#define XHCI_TRB_ENABLE_SLOT 9
#define XHCI_TRB_DISABLE_SLOT 10
#define XHCI_TRB_ADDRESS_DEVICE 11
#define XHCI_TRB_CONFIGURE_EP 12
#define XHCI_TRB_EVALUATE_CTX 13
#define XHCI_TRB_RESET_EP 14
#define XHCI_TRB_STOP_EP 15
#define XHCI_TRB_SET_TR_DEQ 16
#define XHCI_TRB_EV_TRANSFER 32
#define XHCI_TRB_EV_CMD_DONE 33
#define XHCI_TRB_EV_PORT 34

/* 6.4.5 completion codes */
#define XHCI_CC_SUCCESS 1
#define XHCI_CC_BABBLE 3
#define XHCI_CC_TRANSACTION 4
#define XHCI_CC_TRB 5
#define XHCI_CC_STALL 6
#define XHCI_CC_SHORT_PACKET 13
#define XHCI_CC_CONTEXT_STATE 19
#define XHCI_CC_STOPPED 26
#define XHCI_CC_STOPPED_LEN_INVALID 27

/* ---- 6.2 Contexts (32 bytes each, 64 when HCCPARAMS1.CSZ) ---- */
#define XHCI_CTX_DWORDS 8
/* 6.2.5.1 Input control context: dword 0 drop flags, dword 1 add flags (bit n: context n). */
#define XHCI_ICC_DROP 0
#define XHCI_ICC_ADD 1
#define XHCI_ADD_SLOT (1u << 0)
#define XHCI_ADD_EP(dci) (1u << (dci))
/* 6.2.2 Slot context */
#define XHCI_SLOT_ROUTE_MASK 0xfffffu
#define XHCI_SLOT_SPEED_SHIFT 20
#define XHCI_SLOT_MTT (1u << 25)
#define XHCI_SLOT_HUB (1u << 26)
#define XHCI_SLOT_ENTRIES_SHIFT 27
#define XHCI_SLOT_ROOT_PORT_SHIFT 16 /* dword 1 */
#define XHCI_SLOT_NPORTS_SHIFT 24    /* dword 1 */
#define XHCI_SLOT_TT_PORT_SHIFT 8    /* dword 2; TT hub slot id in 7:0 */
#define XHCI_SLOT_TTT_SHIFT 16       /* dword 2 */
/* 6.2.3 Endpoint context */
#define XHCI_EP_STATE_MASK 0x7u
#define XHCI_EP_CERR_SHIFT 1 /* dword 1 */
#define XHCI_EP_CERR_MAX 3u
#define XHCI_EP_TYPE_SHIFT 3
#define XHCI_EP_BURST_SHIFT 8
#define XHCI_EP_MPS_SHIFT 16
#define XHCI_EP_DCS 1u       /* dword 2: dequeue cycle state */
#define XHCI_EP_TYPE_BULK_OUT 2
#define XHCI_EP_TYPE_CONTROL 4
#define XHCI_EP_TYPE_BULK_IN 6
/* 4.14.1.1: average TRB length hints. */
#define XHCI_AVG_TRB_CONTROL 8
#define XHCI_AVG_TRB_BULK 3072

/* Device context index of an endpoint: EP0 is 1, endpoint n OUT 2n, IN 2n + 1 (4.5.1). */
#define XHCI_DCI_EP0 1
#define XHCI_DCI(epnum, in) ((uint8_t)(2 * (epnum) + ((in) ? 1 : 0)))

#endif
