MemcpyHtoD,0x00007f4a80000000,65536
kernel-1.traceg
kernel-2.traceg
MemcpyDtoH,0x00007f4a80000000,4096
