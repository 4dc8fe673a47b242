/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layout of the testbed dropper's two maps, both arrays of __u64 so that
 * scripts/testbed.sh can read and write single entries with bpftool.
 * scripts/testbed.sh mirrors these numbers: change both together.
 */
#ifndef TB_TESTBED_H
#define TB_TESTBED_H

enum tb_mode {
	TB_MODE_OFF = 0,	/* pass everything */
	TB_MODE_LOSS = 1,	/* drop with probability loss_ppm / 10^6 */
	TB_MODE_NTH = 2,	/* drop the nth new segment, its retransmissions */
};

/* tb_config: written by the script, read by the program */
enum tb_config_key {
	TB_CFG_MODE = 0,
	TB_CFG_LOSS_PPM = 1,
	TB_CFG_SEED = 2,
	TB_CFG_NTH = 3,		/* 1-based index of the new segment to drop */
	TB_CFG_RETRANS = 4,	/* how many of its retransmissions to drop */
	TB_CFG_PERIOD = 5,	/* 0: once; else again every PERIOD segments */
	TB_CFG_PORT = 6,	/* 0: any; else TCP source or destination port */
	TB_CFG_L2_NONE = 7,	/* 1: no link-layer header (TUN): IP at 0 */
	TB_CFG_NR,
};

/* tb_state: written by the program; the script zeroes it on a new rule */
enum tb_state_key {
	TB_ST_DATA_SEGS = 0,	/* data segments seen (arrival index) */
	TB_ST_DROPPED = 1,	/* data segments dropped, all rules */
	TB_ST_DROPPED_RETRANS = 2, /* of which retransmissions (nth rule) */
	TB_ST_GSO_SKBS = 3,	/* skbs holding more than one segment */
	TB_ST_TARGET_SEQ = 4,	/* nth rule: first byte of the dropped one */
	TB_ST_RETRANS_LEFT = 5,	/* nth rule: retransmissions still to drop */
	TB_ST_NEW_SEGS = 6,	/* nth rule: segments of new data seen */
	TB_ST_HIGH_SEQ = 7,	/* nth rule: bit 32 valid, low 32 highest end */
	TB_ST_NR,
};

#endif /* TB_TESTBED_H */
