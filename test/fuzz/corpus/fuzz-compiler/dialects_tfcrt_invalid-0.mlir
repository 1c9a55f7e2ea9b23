tfcrt.arena size -1 alignment 256
