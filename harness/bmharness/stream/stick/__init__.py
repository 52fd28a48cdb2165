"""Reading the firmware's run logs from the stick it booted from (docs/harness.md, "Runs on the
boot stick"): device.py opens an image file or block device read-only, parttable.py finds the
partitions (GPT, MBR or none), fat.py reads a FAT12/16/32 file system, runlog.py checks a
RUN_NNN.LOG header and runs.py lists the runs and hands one run's record stream to the parser.
Nothing here writes to the stick or needs it mounted."""
