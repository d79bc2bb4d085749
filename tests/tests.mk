# Test build: the fake driver, end-to-end programs in a linker-mode matrix,
# test libraries and plugins. `make test` builds it all and runs tests/run.sh.
T        := $(BUILD)/tests
FAKE     := $(BUILD)/fake
TCFLAGS  := -O1 -g $(WARN) -Iinclude -Itests -Itests/fake
FAKE_SRC := tests/fake/fake_core.c tests/fake/fake_tools.c tests/fake/fake_gpu.c tests/fake/fake_maps.c tests/fake/generated/fake_driver.c \
            src/common/integrity_hash.c

$(FAKE)/libcuda.so.1: $(FAKE_SRC) src/common/integrity_hash.h tests/fake/fake_internal.h tests/fake/fake_activity.h \
                      tests/fake/fake_nvkernel.c include/generated/cutap_ids.h
	@mkdir -p $(FAKE)
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -o $@ $(FAKE_SRC) -ldl -lpthread
	ln -sf libcuda.so.1 $(FAKE)/libcuda.so

# A fake libcupti (CUPTI's subscriber API; the driver hands it the runtime
# copies' reports, tests/fake/fake_tools.c), for --runtime=cupti and for
# a CUPTI client beside cutap; and its activity API, for trace --gpu
# (fake_cupti_activity.c: the driver tells it its calls and their GPU work,
# tests/fake/fake_gpu.c).
$(FAKE)/libcupti.so.13: tests/fake/fake_cupti.c tests/fake/fake_cupti_activity.c tests/fake/fake_activity.h tests/cupti_min.h
	@mkdir -p $(FAKE)
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libcupti.so.13 -o $@ tests/fake/fake_cupti.c tests/fake/fake_cupti_activity.c \
	    -ldl -lpthread

# A shared libcudart that also reports to CUPTI, and a program calling it:
# with --runtime=cupti each of its calls must be recorded once.
$(T)/cudart/libcudart.so.13: tests/lib_cudart_cupti.c tests/rt_copy.h tests/cupti_min.h tests/cuda_min.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)/cudart
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libcudart.so.13 -o $@ $< -L$(FAKE) -lcuda -ldl
# Issue #14: the same shared runtime reporting through the driver's tools
# hook (tests/rt_copy.h), a library with its own static runtime copy
# reporting the same way, and a program using both from many threads.
$(T)/cudart_hook/libcudart.so.13: tests/lib_cudart_cupti.c tests/rt_copy.h tests/cupti_min.h tests/cuda_min.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)/cudart_hook
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libcudart.so.13 -o $@ $< -L$(FAKE) -lcuda -ldl
$(T)/dnn/libfakednn.so: tests/lib_dnn_static_rt.c tests/rt_copy.h tests/cupti_min.h tests/cuda_min.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)/dnn
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libfakednn.so -o $@ $< -L$(FAKE) -lcuda
$(T)/t_rt_mix: tests/t_rt_mix.c $(T)/cudart_hook/libcudart.so.13 $(T)/dnn/libfakednn.so
	$(CC) $(TCFLAGS) -o $@ $< $(T)/cudart_hook/libcudart.so.13 $(T)/dnn/libfakednn.so -L$(FAKE) -lcuda -lpthread \
	    -Wl,-rpath,'$$ORIGIN/cudart_hook:$$ORIGIN/dnn'
# Issue #25: a CUPTI client in the traced process (the fake libcupti's
# subscriber), as nsys or a profiler is.
$(T)/t_static_rt $(T)/t_shared_rt: tests/rt_copy.h tests/cupti_min.h
$(T)/t_bad_report: tests/cupti_min.h
$(T)/t_tls_between: tests/t_tls_between.c tests/cuda_min.h $(T)/dnn/libfakednn.so
	$(CC) $(TCFLAGS) -o $@ $< $(T)/dnn/libfakednn.so -L$(FAKE) -lcuda -Wl,-rpath,'$$ORIGIN/dnn'
$(T)/libcupti_client.so: tests/lib_cupti_client.c tests/cupti_min.h
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
$(T)/t_shared_rt: tests/t_shared_rt.c $(T)/cudart/libcudart.so.13
	$(CC) $(TCFLAGS) -o $@ $< $(T)/cudart/libcudart.so.13 -L$(FAKE) -lcuda -ldl -Wl,-rpath,'$$ORIGIN/cudart'

# A second export variant: another file name, symbols versioned (for
# dlvsym), opened only by absolute path by a program that never links it.
$(BUILD)/fake-alt/libcuda-alt.so: $(FAKE_SRC) tests/fake/fake_internal.h tests/fake/fake_activity.h tests/fake/fake_nvkernel.c \
                                  tests/fake/alt.map
	@mkdir -p $(BUILD)/fake-alt
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libcuda-alt.so -Wl,-Bsymbolic -Wl,--version-script=tests/fake/alt.map \
	    -o $@ $(FAKE_SRC) -ldl -lpthread

# Linker modes of the main end-to-end program: lazy non-PIE, -z now with
# full RELRO, PIE.
$(T)/t_paths_lazy: tests/t_paths.c tests/cuda_min.h src/common/integrity_hash.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -fno-pie -Wl,-z,lazy -o $@ $< src/common/integrity_hash.c -L$(FAKE) -lcuda -ldl -lpthread
$(T)/t_paths_now: tests/t_paths.c tests/cuda_min.h src/common/integrity_hash.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -fno-pie -Wl,-z,now -Wl,-z,relro -o $@ $< src/common/integrity_hash.c -L$(FAKE) -lcuda -ldl -lpthread
$(T)/t_paths_pie: tests/t_paths.c tests/cuda_min.h src/common/integrity_hash.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIE -pie -Wl,-z,lazy -o $@ $< src/common/integrity_hash.c -L$(FAKE) -lcuda -ldl -lpthread

$(T)/exact: tests/exact_main.c tests/generated/exact_calls.c tests/exact_internal.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -Wno-unused-variable -o $@ tests/exact_main.c tests/generated/exact_calls.c -L$(FAKE) -lcuda -ldl

$(T)/t_%: tests/t_%.c tests/cuda_min.h tests/one_pointer_fns.h tests/sig_timer.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread

$(T)/libnext_a.so: tests/lib_next_a.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
$(T)/libnext_b.so: tests/lib_next_b.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
$(T)/t_rtldnext: tests/t_rtldnext.c $(T)/libnext_a.so $(T)/libnext_b.so $(FAKE)/libcuda.so.1
	$(CC) $(TCFLAGS) -o $@ $< -L$(T) -Wl,--no-as-needed -lnext_b -lnext_a -L$(FAKE) -lcuda -ldl -Wl,-rpath,'$$ORIGIN'

$(T)/libshim.so: tests/lib_shim.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl

# Issue #11: a filesystem without fallocate (preloaded), and a statically
# linked program (no PT_INTERP).
$(T)/libnofalloc.so: tests/lib_nofalloc.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
$(T)/t_static: tests/t_static.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -static -o $@ $< || $(CC) $(TCFLAGS) -o $@.dyn $<

$(T)/libearly.so: tests/lib_early.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
$(T)/t_early: tests/t_early.c $(T)/libearly.so $(FAKE)/libcuda.so.1
	$(CC) $(TCFLAGS) -o $@ $< -L$(T) -Wl,--no-as-needed -learly -L$(FAKE) -lcuda -Wl,-rpath,'$$ORIGIN'

# LLVM OpenMP (libomp-14-dev): its OMPT tool lookup uses dlsym(RTLD_NEXT).
$(T)/t_omp: tests/t_omp.c
	@mkdir -p $(T)
	clang -O1 -fopenmp=libomp -o $@ $< || { echo "t_omp: clang -fopenmp unavailable; its test is skipped"; rm -f $@; }

$(T)/apitest.so: tests/plugins/apitest.c include/cutap.h
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<

$(T)/argnames.so: tests/plugins/argnames.c include/cutap.h
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fvisibility=hidden -fPIC -shared -o $@ $<

$(T)/observer.so: tests/plugins/observer.c include/cutap.h
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fvisibility=hidden -fPIC -shared -o $@ $<

$(BUILD)/examples/memlimit.so: examples/memlimit/memlimit.c include/cutap.h
	@mkdir -p $(BUILD)/examples
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -lpthread
$(T)/t_memlimit: examples/memlimit/t_memlimit.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda

$(T)/t_dlonly: tests/t_dlonly.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -ldl

# Issue #24: probes for CUDA in every lookup form and through weak
# references, linked against no CUDA library.
$(T)/t_probe: tests/t_probe.c tests/dl_util.h $(FAKE)/libcuda.so.1 $(FAKELIBS) $(T)/libprobe_local.so
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -ldl
$(T)/libprobe_local.so: tests/lib_probe_local.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -Wl,--no-as-needed -L$(FAKE) -lcuda -ldl

$(T)/t_nodriver: tests/t_nodriver.c $(BUILD)/libcutap.so
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(BUILD) -lcutap -Wl,-rpath,'$$ORIGIN/..'

$(BUILD)/examples/demo: examples/demo/demo.c
	@mkdir -p $(BUILD)/examples
	$(CC) $(TCFLAGS) -o $@ $< -ldl

# The README's first command: build (on every CPU: the generated wrappers
# are large; 7 minutes one file at a time on 2 cores), then trace the demo
# on the fake driver with the cutap command, and show the summary and the
# per-call dump. Each command is printed as it can be pasted.
NPROC := $(shell nproc 2>/dev/null || echo 2)
demo:
	@$(MAKE) --no-print-directory -j$(NPROC) lib cli $(FAKE)/libcuda.so.1 $(BUILD)/examples/demo
	@rm -rf $(BUILD)/demo-trace
	@echo "== LD_LIBRARY_PATH=$(FAKE) $(BUILD)/cutap trace -o $(BUILD)/demo-trace -- $(BUILD)/examples/demo   (the fake driver: no GPU needed)"
	@LD_LIBRARY_PATH=$(FAKE) $(BUILD)/cutap trace -o $(BUILD)/demo-trace -- $(BUILD)/examples/demo
	@echo "== $(BUILD)/cutap report $(BUILD)/demo-trace"
	@$(BUILD)/cutap report $(BUILD)/demo-trace
	@echo "== $(BUILD)/cutap dump $(BUILD)/demo-trace"
	@$(BUILD)/cutap dump $(BUILD)/demo-trace

# AddressSanitizer + UBSan builds: the cutap command from the sources of
# $(BUILD)/cutap (the case cli_under_asan), and the trace-reader fuzzer,
# tests/fuzz_reader.c, linked with all of them but cli/main.c
# (the case reader_fuzz_asan); the fuzzer replaces the reader's mmap with heap
# copies (see the file). A compiler without -fsanitize=address builds
# neither and both cases are skipped.
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_INC   := -Iinclude -Icli -Isrc/common
san_ok = rm -f $@.probe; echo 'int main(void){return 0;}' | $(CC) $(SAN_FLAGS) -x c - -o $@.probe 2>/dev/null \
         && rm -f $@.probe
san_none = rm -f $@ $@.probe; echo "$@: $(CC) has no -fsanitize=address; its test is skipped"

$(T)/fuzz_reader: tests/fuzz_reader.c tests/fuzz_reader_mutate.c tests/fuzz_reader.h $(CLI_C) $(CLI_H)
	@mkdir -p $(T)
	@if $(san_ok); then set -x; \
	    $(CC) $(SAN_FLAGS) $(WARN) $(SAN_INC) -o $@ $< tests/fuzz_reader_mutate.c $(filter-out cli/main.c,$(CLI_C)) -ldl \
	        -Wl,--wrap=mmap,--wrap=munmap; \
	else $(san_none); fi

$(BUILD)/asan/cutap: $(CLI_C) $(CLI_H)
	@mkdir -p $(BUILD)/asan
	@if $(san_ok); then set -x; \
	    $(CC) $(SAN_FLAGS) $(WARN) $(SAN_INC) -o $@ $(CLI_C) -ldl; \
	else $(san_none); fi

TEST_BINS := $(T)/libshim.so $(T)/argnames.so $(T)/t_nodriver $(T)/t_probe $(T)/t_fds $(T)/t_tsc $(BUILD)/examples/demo $(FAKE)/libcuda.so.1 $(BUILD)/fake-alt/libcuda-alt.so $(T)/t_dlonly $(T)/t_paths_lazy $(T)/t_paths_now $(T)/t_paths_pie $(T)/exact \
             $(T)/t_threads $(T)/t_first_names $(T)/t_sig_calls $(T)/t_sig_refresh $(T)/t_fork $(T)/t_rtldnext $(T)/t_early $(T)/t_omp $(T)/t_api $(T)/apitest.so $(T)/observer.so \
             $(BUILD)/examples/memlimit.so $(T)/t_memlimit $(T)/t_record $(BUILD)/cutap

TEST_BINS += $(T)/fuzz_reader $(BUILD)/asan/cutap
# Issue #31 (trace --gpu): GPU work on the fake driver, seen by the fake
# libcupti's activity API, with a runtime copy of its own (tests/t_gpu.c).
$(T)/t_gpu: tests/rt_copy.h tests/cupti_min.h
$(T)/t_gpu_own_client: tests/t_gpu_own_client.c tests/cuda_min.h $(FAKE)/libcuda.so.1 $(FAKE)/libcupti.so.13
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -l:libcupti.so.13 -ldl
$(T)/libcupti_forward.so: tests/lib_cupti_forward.c
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
$(T)/libcupti_ctor.so: tests/lib_cupti_ctor.c
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -L$(FAKE) -l:libcupti.so.13 -ldl
$(T)/libembedded_cupti.so: tests/lib_embedded_cupti.c
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
TEST_BINS += $(T)/t_gpu $(T)/t_gpu_own_client $(T)/t_gpu_embedded $(T)/libembedded_cupti.so $(FAKE)/libcupti.so.13 \
	$(T)/libcupti_forward.so $(T)/libcupti_ctor.so
TEST_BINS += $(T)/libnofalloc.so $(T)/t_static $(T)/t_thread_churn
TEST_BINS += $(FAKE)/libcupti.so.13 $(T)/t_static_rt $(T)/t_shared_rt $(T)/t_rt_mix $(T)/libcupti_client.so $(T)/t_bad_report $(T)/t_tls_between $(T)/t_table_tail $(BUILD)/bench/rtreport

# NVTX annotations for the nvtx_* cases: nvtx3 is header-only (the CUDA
# toolkit's); without the header t_nvtx is not built and they are skipped.
NVTX_INC ?= /usr/local/cuda/include
$(T)/t_nvtx: tests/t_nvtx.c tests/cuda_min.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	@if [ -f $(NVTX_INC)/nvtx3/nvToolsExt.h ]; then set -x; \
	    $(CC) $(TCFLAGS) -isystem $(NVTX_INC) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread; \
	else rm -f $@; echo "$@: no $(NVTX_INC)/nvtx3/nvToolsExt.h; the nvtx cases are skipped"; fi
TEST_BINS += $(T)/t_nvtx

include tests/fakelibs.mk

# Stand-ins for the runtime and two libraries (tests/lib_layers.c), each
# with the soname cutap takes its layer from, and a program linked with
# them: decoding, errors, nesting and layer filters of the layers above
# the driver (the layers_* cases).
LAYERS_LIB_SRC := tests/lib_layers.c tests/cuda_min.h
$(T)/rt/libcudart.so.13: $(LAYERS_LIB_SRC) $(FAKE)/libcuda.so.1
	@mkdir -p $(T)/rt
	$(CC) $(TCFLAGS) -DLAYER_RUNTIME -fPIC -shared -Wl,-soname,libcudart.so.13 -o $@ $< -L$(FAKE) -lcuda
$(T)/rt/libcublas.so.13: $(LAYERS_LIB_SRC)
	@mkdir -p $(T)/rt
	$(CC) $(TCFLAGS) -DLAYER_CUBLAS -fPIC -shared -Wl,-soname,libcublas.so.13 -o $@ $<
$(T)/rt/libnccl.so.2: $(LAYERS_LIB_SRC)
	@mkdir -p $(T)/rt
	$(CC) $(TCFLAGS) -DLAYER_NCCL -fPIC -shared -Wl,-soname,libnccl.so.2 -o $@ $<
LAYERS_LIBS := $(T)/rt/libcudart.so.13 $(T)/rt/libcublas.so.13 $(T)/rt/libnccl.so.2
$(T)/t_layers: tests/t_layers.c $(LAYERS_LIBS)
	$(CC) $(TCFLAGS) -o $@ $< $(LAYERS_LIBS) -Wl,-rpath-link,$(FAKE) -Wl,-rpath,'$$ORIGIN/rt'
TEST_BINS += $(T)/t_layers

# Crafted trace files for the reader's cases (tests/mk_trace.c).
$(T)/mk_trace: tests/mk_trace.c include/cutap_format.h
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $<
TEST_BINS += $(T)/mk_trace

# The coverage-guided fuzz target (tests/fuzz/fuzz_trace.c): clang's
# libFuzzer with AddressSanitizer and UBSan, over cli/ but main.c. Without
# clang or its fuzzer runtime it is not built and reader_libfuzzer skips.
FUZZ_CC    ?= $(shell command -v clang-14 || command -v clang)
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
              -Wall -Wextra -std=gnu11
$(T)/fuzz_trace: tests/fuzz/fuzz_trace.c $(CLI_C) $(CLI_H)
	@mkdir -p $(T)
	@rm -f $@; if [ -n "$(FUZZ_CC)" ] && echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' \
	    | $(FUZZ_CC) $(FUZZ_FLAGS) -x c - -o $@.probe 2>/dev/null; then rm -f $@.probe; set -x; \
	    $(FUZZ_CC) $(FUZZ_FLAGS) $(SAN_INC) -o $@ $< $(filter-out cli/main.c,$(CLI_C)) -ldl; \
	else rm -f $@.probe; echo "$@: no clang with -fsanitize=fuzzer; reader_libfuzzer is skipped"; fi
TEST_BINS += $(T)/fuzz_trace

.PHONY: test-build
# test-build's prerequisites are fixed when make reads its rule: it comes
# last in this file (after every TEST_BINS +=), see the end.
test: test-build
	@CUTAP_TEST_BUILD=$(abspath $(BUILD)) tests/run.sh $(TESTS)

# A layer's library of another major arriving late (tests/t_old_late.c),
# with minimal cuBLAS libraries of both majors (tests/lib_cublas_min.c),
# each alone in its directory.
$(T)/min12/libcublas.so.12: tests/lib_cublas_min.c
	@mkdir -p $(T)/min12
	$(CC) $(TCFLAGS) -fPIC -shared -fvisibility=hidden -Wl,-soname,libcublas.so.12 -o $@ $<
$(T)/min13/libcublas.so.13: tests/lib_cublas_min.c
	@mkdir -p $(T)/min13
	$(CC) $(TCFLAGS) -DPINNED -fPIC -shared -fvisibility=hidden -Wl,-soname,libcublas.so.13 -o $@ $<
$(T)/t_old_late: tests/t_old_late.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -ldl -lpthread
TEST_BINS += $(T)/min12/libcublas.so.12 $(T)/min13/libcublas.so.13 $(T)/t_old_late

# The real CUDA 11.8 runtime where the machine has one (tests/t_real_rt11.c
# opens it at run time: nothing of CUDA 11.8 is needed to build).
$(T)/t_real_rt11: tests/t_real_rt11.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -ldl
TEST_BINS += $(T)/t_real_rt11
$(T)/libnowx.so: tests/lib_nowx.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
TEST_BINS += $(T)/libnowx.so
$(T)/libnothreads.so: tests/lib_nothreads.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
TEST_BINS += $(T)/libnothreads.so
# Write and fdatasync errors on demand in a cutap command (export_write_errors).
$(T)/libwritefail.so: tests/lib_write_fail.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $< -ldl
TEST_BINS += $(T)/libwritefail.so
$(T)/libnosetaffinity.so: tests/lib_nosetaffinity.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
TEST_BINS += $(T)/libnosetaffinity.so

# The plugin ABI by name (tests/plugins/abi_names.c): the ids of "another
# build" (every id one higher, as after a header update that added a
# function early), included ahead of cutap.h; a plugin asking by name, and
# one with the id compiled in from those tables (it must watch the wrong
# function: the case proves it can fail); a plugin of API version 1.
$(T)/prev/cutap_ids.h: include/generated/cutap_ids.h
	@mkdir -p $(T)/prev
	awk '{ if (match($$0, /^    CUTAP_ID_[A-Za-z0-9_]+ = [0-9]+,$$/)) { split($$0, a, " = "); n = a[2] + 1; print a[1] " = " n ","; } else print }' $< >$@
$(T)/abi_names.so: tests/plugins/abi_names.c include/cutap.h $(T)/prev/cutap_ids.h
	$(CC) $(TCFLAGS) -fPIC -shared -DBY_NAME -DLABEL='"names"' -include $(T)/prev/cutap_ids.h -o $@ $<
$(T)/abi_numbers.so: tests/plugins/abi_names.c include/cutap.h $(T)/prev/cutap_ids.h
	$(CC) $(TCFLAGS) -fPIC -shared -DLABEL='"numbers"' -include $(T)/prev/cutap_ids.h -o $@ $<
$(T)/api_v1.so: tests/plugins/api_v1.c
	$(CC) $(TCFLAGS) -fPIC -shared -o $@ $<
TEST_BINS += $(T)/abi_names.so $(T)/abi_numbers.so $(T)/api_v1.so

# C unit tests (tests/unit, harness in unit.h): in-process, on pure
# functions of the filter language (src/common/filter_expr.c), of the
# reader (cli/read/, linked as the command links it: escaping,
# UTF-8, loss texts, layers by name), the readers' integer formatting
# (cli/textfmt.c), the readers' memo keys (cli/memo.c) and record
# checks, of src/common's lookups (the NVIDIA ioctl tables among them)
# and of the older majors' modes table (issue #28); each case of
# tests/cases/unit runs one suite.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_LIB := $(wildcard cli/read/*.c) cli/textfmt.c cli/memo.c src/common/filter_expr.c src/common/path_search.c src/common/export_tables.c \
            src/common/nv_ioctl.c src/common/generated/nv_ioctl_tables.c src/common/integrity_hash.c \
            src/generated/older_modes.c
$(T)/unit: $(UNIT_SRC) tests/unit/unit.h $(UNIT_LIB) $(CLI_H)
	@mkdir -p $(T)
	$(CC) -O1 -g $(WARN) -Iinclude -Icli -Isrc/common -Itests/unit -o $@ $(UNIT_SRC) $(UNIT_LIB)
TEST_BINS += $(T)/unit

# The ioctl layer (issue #15): a fake NVIDIA kernel driver (an ioctl
# preloaded after libcutap: tests/fake/fake_nvkernel.c says how) that the
# fake libcuda talks to when FAKE_NV_DEVDIR is set, and a program making
# requests through the fake libcuda, directly, and on other files
# (tests/t_ioctl.c; it includes the fake kernel's parameter layouts).
$(FAKE)/libfakenvkernel.so: tests/fake/fake_nvkernel.c
	@mkdir -p $(FAKE)
	$(CC) $(TCFLAGS) -fPIC -shared -Wl,-soname,libfakenvkernel.so -o $@ $< -ldl -lpthread
$(T)/t_ranks: tests/t_ranks.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -ldl
TEST_BINS += $(T)/t_ranks
$(T)/t_ring: tests/t_ring.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread
TEST_BINS += $(T)/t_ring
$(T)/t_inject: tests/t_inject.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread
TEST_BINS += $(T)/t_inject
$(T)/t_ring_nvtx: tests/t_ring.c $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	@if [ -f $(NVTX_INC)/nvtx3/nvToolsExt.h ]; then set -x; \
	    $(CC) $(TCFLAGS) -DWITH_NVTX -isystem $(NVTX_INC) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread; \
	else rm -f $@; echo "$@: no $(NVTX_INC)/nvtx3/nvToolsExt.h; the NVTX capture range is not tested"; fi
TEST_BINS += $(T)/t_ring_nvtx
$(T)/t_ioctl_harm: tests/t_ioctl_harm.c
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -lpthread
TEST_BINS += $(T)/t_ioctl_harm
TEST_BINS += $(T)/t_exec_fault
$(T)/t_ioctl: tests/t_ioctl.c tests/fake/fake_nvkernel.c tests/cuda_min.h $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda -ldl -lpthread
TEST_BINS += $(FAKE)/libfakenvkernel.so $(T)/t_ioctl

# Last: every TEST_BINS += above is in.
test-build: lib $(TEST_BINS)
