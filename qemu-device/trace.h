#include "trace/trace-hw_mcmgpu.h"
