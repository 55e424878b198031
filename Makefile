# mcmgpu: top-level build. 'make' builds modules, tools, selftests, QEMU and
# the guest initramfs; 'make check' runs every test; 'make run' the
# experiments and the report. See README.md.

# The kernel version is resolved in recipes, after deps may have installed it.
KDIR        = /usr/src/linux-headers-$$(tools/scripts/kver.sh)
CACHE       ?= $(HOME)/.cache/mcmgpu
BUILD       := $(CURDIR)/build
LINUX_SRC   := /usr/src/linux-source-6.1.tar.xz
KSFT        := $(BUILD)/linux-src
CFLAGS_TOOL := -O2 -g -Wall -Wextra -Werror -std=gnu11 -Iuapi -Iqemu-device/model -Idrivers/mcmgpu

# The tool: main.c and the device commands beside it, lib/ (what the
# commands and the tests share) and one directory per mechanism.
TOOL_SRCS   := $(wildcard tools/mcmgpu/*.c tools/mcmgpu/*/*.c)
TOOL_HDRS   := $(wildcard tools/mcmgpu/*.h tools/mcmgpu/*/*.h) $(wildcard uapi/*.h)
TOOL_INC    := $(addprefix -I,$(sort $(patsubst %/,%,$(dir $(wildcard tools/mcmgpu/*/*.h)))))
SELFTESTS   := $(patsubst selftests/mcmgpu/%.c,$(BUILD)/selftests/%,$(wildcard selftests/mcmgpu/*_test.c))
HOST_TESTS  := $(patsubst selftests/host/%.c,$(BUILD)/host/%,$(wildcard selftests/host/*_test.c))
# The freestanding device models (qemu-device/model/), one list for QEMU
# (meson.build), the tool, the host tests and the fuzzers.
MODEL_DIR   := qemu-device/model
CORE_SRCS   := $(addprefix $(MODEL_DIR)/,$(shell cat $(MODEL_DIR)/CORES))
MODEL_HDRS  := $(wildcard $(MODEL_DIR)/*.h)
# Cores that live with their kernel module (kernel style), built into the
# module, the tool and the host tests alike.
DRIVER_CORES := drivers/mcmgpu/gpu_alloc.c drivers/iommu/barre/barre_walk.c \
	drivers/mcmgpu/adsm_protocol.c
DRIVER_CORE_HDRS := $(DRIVER_CORES:.c=.h)
# The tool's library (tools/mcmgpu/lib/): the trace formats and parsers,
# each mechanism's replay loop and its host backend (the cores here), and
# the GPU configuration from --config/--set; the host tests and fuzzers
# link it too. The device backends (*_device.c) and the command-line
# helpers are the tool's alone.
CORE_LIBS   := $(addprefix tools/mcmgpu/lib/,barre_trace.c barre_replay.c \
	barre_host.c replay.c fp_replay.c fp_host.c cpe_replay.c cpe_host.c \
	cxl_replay.c adsm_patterns.c adsm_host.c gpu_cli.c gpu_run.c \
	gpu_run_host.c gpu_run_objects.c stats.c)
TEST_HDRS   := $(wildcard selftests/lib/*.h)
# The workloads (tools/mcmgpu/workload/: the program format's text form,
# Accel-Sim import and export, the SIMT executor, statistics and the
# adapters to the replays; tools/mcmgpu/apps/: the applications as
# kernels): all of it but the commands (cmd_*.c), so the host tests and fuzzers
# link the same code the tool runs.
WORKLOAD_LIBS := $(filter-out %/cmd_workload.c %/cmd_adapt.c,$(wildcard tools/mcmgpu/workload/*.c)) \
	$(wildcard tools/mcmgpu/apps/*.c)
CORE_LIBS   += $(WORKLOAD_LIBS)
# The parts of it that need no model core (the guest selftests link them).
TOOL_LIBS   := $(addprefix tools/mcmgpu/lib/,fp_trace.c cpe_seq.c file.c \
	num.c cxl_trace.c json.c)
# libFuzzer targets (selftests/fuzz/): every parser and checker of guest or
# user input. FUZZ_TIME: seconds per target for 'make fuzz'.
FUZZERS     := $(patsubst selftests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard selftests/fuzz/fuzz_*.c))
FUZZ_TIME   ?= 600
MODULES     := $(BUILD)/modules/mcmgpu.ko $(BUILD)/modules/barre_iommu.ko $(BUILD)/modules/gpu_rc.ko

.PHONY: all deps modules tools selftests host-tests qemu guest check run bench \
	lint checkpatch sparse clean distclean fuzzers fuzz debug-kernel \
	debug-modules debug-guest check-debug

all: guest

deps:
	@bash tools/scripts/install-deps.sh

# gpu_rc.ko includes the CXL core's headers of the same kernel source.
CXL_HDRS := drivers/cxl/gpu_rc/linux-cxl/.extracted

$(CXL_HDRS): | deps
	@mkdir -p $(dir $@)
	@tar -xJf $(LINUX_SRC) -C $(dir $@) --strip-components=3 \
		linux-source-6.1/drivers/cxl/cxl.h linux-source-6.1/drivers/cxl/cxlpci.h
	@touch $@

# Everything that reads KVER or the kernel headers runs after deps.
modules: deps $(CXL_HDRS)
	@$(MAKE) -s -C $(KDIR) M=$(CURDIR) CONFIG_DEBUG_INFO_BTF_MODULES= modules
	@mkdir -p $(BUILD)/modules
	@cp drivers/mcmgpu/mcmgpu.ko drivers/iommu/barre/barre_iommu.ko \
		drivers/cxl/gpu_rc/gpu_rc.ko $(BUILD)/modules/

tools: $(BUILD)/tools/mcmgpu

$(BUILD)/tools/mcmgpu: $(TOOL_SRCS) $(TOOL_HDRS) $(CORE_SRCS) $(DRIVER_CORES) $(DRIVER_CORE_HDRS) $(MODEL_HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TOOL) $(TOOL_INC) -o $@ $(TOOL_SRCS) $(CORE_SRCS) $(DRIVER_CORES) -lpci -lm

$(KSFT)/.extracted: | deps
	@mkdir -p $(KSFT)
	@echo "  EXTRACT kselftest headers and checkpatch from linux-source-6.1"
	@tar -xJf $(LINUX_SRC) -C $(KSFT) --strip-components=1 \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

KSFT_CFLAGS := -O2 -g -Wall -Werror -std=gnu11 -D_GNU_SOURCE -Iuapi \
	-I$(MODEL_DIR) -Idrivers/mcmgpu -I$(KSFT)/tools/testing/selftests

selftests: $(SELFTESTS)

$(BUILD)/selftests/%: selftests/mcmgpu/%.c $(wildcard selftests/mcmgpu/*.h) $(TEST_HDRS) $(TOOL_HDRS) $(MODEL_HDRS) $(DRIVER_CORE_HDRS) $(TOOL_LIBS) $(KSFT)/.extracted
	@mkdir -p $(dir $@)
	$(CC) $(KSFT_CFLAGS) $(TOOL_INC) -o $@ $< $(TOOL_LIBS)

host-tests: $(HOST_TESTS)

# The host tests and the fuzzers link one archive each of every core and
# library source, compiled once (not once a test), with their sanitizers.
LIB_SRCS    := $(CORE_SRCS) $(DRIVER_CORES) $(CORE_LIBS) $(TOOL_LIBS)
LIB_HDRS    := $(MODEL_HDRS) $(DRIVER_CORE_HDRS) $(TOOL_HDRS)
HOST_CFLAGS := $(KSFT_CFLAGS) $(TOOL_INC) -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
HOST_LIB    := $(BUILD)/lib/host.a
FUZZ_CFLAGS := -O1 -g -Wall -Werror -std=gnu11 -D_GNU_SOURCE -Iuapi \
	-I$(MODEL_DIR) -Idrivers/mcmgpu $(TOOL_INC) \
	-fno-sanitize-recover=undefined
FUZZ_LIB    := $(BUILD)/lib/fuzz.a

$(BUILD)/obj/host/%.o: %.c $(LIB_HDRS) $(KSFT)/.extracted
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(HOST_LIB): $(patsubst %.c,$(BUILD)/obj/host/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/host/%: selftests/host/%.c $(TEST_HDRS) $(LIB_HDRS) $(HOST_LIB) $(KSFT)/.extracted
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(HOST_LIB) -lm

# cpe_steps_test includes the workload tables' sources it tests.
$(BUILD)/host/cpe_steps_test: tools/mcmgpu/cpelide/cpe_steps.c \
	tools/mcmgpu/cpelide/cpe_workloads.c

fuzzers: $(FUZZERS)

$(BUILD)/obj/fuzz/%.o: %.c $(LIB_HDRS) | deps
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

$(FUZZ_LIB): $(patsubst %.c,$(BUILD)/obj/fuzz/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/%: selftests/fuzz/%.c $(TEST_HDRS) $(LIB_HDRS) $(FUZZ_LIB) | deps
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_LIB) -lm

# Long runs; the corpus and any crash input stay in $(CACHE)/fuzz/.
fuzz: fuzzers tools deps
	@bash tools/scripts/fuzz.sh $(FUZZ_TIME) $(FUZZERS); a=$$?; \
	bash tools/scripts/qemu-fuzz.sh $(FUZZ_TIME); b=$$?; [ $$a = 0 ] && [ $$b = 0 ]

qemu: deps
	@bash tools/scripts/build-qemu.sh >/dev/null

$(BUILD)/initramfs.cpio.gz: modules tools selftests tools/guest/init tools/scripts/mkinitramfs.sh
	@bash tools/scripts/mkinitramfs.sh $@ $(MODULES) -- $(BUILD)/tools/mcmgpu \
		tools/guest/run-selftests -- $(SELFTESTS)

guest: qemu $(BUILD)/initramfs.cpio.gz

# The debug guest kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection),
# built once into $(CACHE); the modules are built against it from a copy of
# the sources, so the Debian-kernel objects in the tree stay as they are.
DEBUG_MODULES := $(addprefix $(BUILD)/debug/modules/,mcmgpu.ko barre_iommu.ko gpu_rc.ko)

debug-kernel: deps
	@bash tools/scripts/build-debug-kernel.sh >/dev/null

debug-modules: debug-kernel $(CXL_HDRS)
	@kdir=$$(bash tools/scripts/build-debug-kernel.sh) && \
	mkdir -p $(BUILD)/debug/src $(BUILD)/debug/modules && \
	cp -r Kbuild uapi drivers qemu-device $(BUILD)/debug/src/ && \
	find $(BUILD)/debug/src/drivers \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete && \
	$(MAKE) -s -C $$kdir M=$(BUILD)/debug/src modules && \
	cp $(BUILD)/debug/src/drivers/mcmgpu/mcmgpu.ko \
		$(BUILD)/debug/src/drivers/iommu/barre/barre_iommu.ko \
		$(BUILD)/debug/src/drivers/cxl/gpu_rc/gpu_rc.ko $(BUILD)/debug/modules/

debug-guest: qemu debug-modules tools selftests
	@bash tools/scripts/mkinitramfs.sh $(BUILD)/debug/initramfs.cpio.gz \
		$(DEBUG_MODULES) -- $(BUILD)/tools/mcmgpu tools/guest/run-selftests \
		-- $(SELFTESTS)

# The guest tests under the debug kernel (see docs/testing.md).
check-debug: debug-guest
	@bash tools/scripts/check-debug.sh

checkpatch: $(KSFT)/.extracted | deps
	@bash tools/scripts/lint.sh checkpatch $(KSFT)/scripts/checkpatch.pl

sparse: deps $(CXL_HDRS)
	@bash tools/scripts/lint.sh sparse $(KDIR)

check: guest host-tests fuzzers debug-guest
	@bash tools/scripts/check.sh

# make run [JOBS=finepack,cxl] [WORKERS=N] [FRESH=1] [TRACES=DIR], from the
# command line only (an environment's JOBS or WORKERS may mean something
# else).
run_arg = $(if $(filter command line,$(origin $(1))),$($(1)))
run: guest
	@bash tools/scripts/run-experiments.sh \
		$(if $(call run_arg,JOBS),--only '$(call run_arg,JOBS)') \
		$(if $(call run_arg,WORKERS),--workers '$(call run_arg,WORKERS)') \
		$(if $(filter 1,$(call run_arg,FRESH)),--fresh) \
		$(if $(call run_arg,TRACES),--traces '$(call run_arg,TRACES)')

bench: guest
	@bash tools/scripts/bench.sh

clean:
	-@$(MAKE) -s -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -rf $(BUILD)

distclean: clean
	rm -rf results
