MemcpyHtoD,0x00007f5000000000,8192
kernel-1.traceg
kernel-2.traceg
