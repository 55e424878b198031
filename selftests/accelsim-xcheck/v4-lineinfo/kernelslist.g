MemcpyHtoD,0x00007f1000000000,4096

kernel-1.traceg
