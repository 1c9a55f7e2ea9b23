tfcrt.arena size 1024 alignment 48
