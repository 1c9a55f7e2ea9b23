tfcrt.arena size 1024 alignment 256
tfcrt.arena size 2048 alignment 256
