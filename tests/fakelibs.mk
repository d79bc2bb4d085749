# Fake runtime and libraries (gen/lib_fake_generator.py): one shared object
# per layer with a library, $(FL)/<soname>, each with its own copy of the
# core (tests/fake/fake_lib_core.c) and the behaviour of its layer
# (tests/fake/fake_lib_special.c, -DFAKE_LIB_<layer>), every symbol in the
# real library's version node (tests/fake/generated/fake_<layer>.map).
# Included by tests/tests.mk; programs find the fakes through their RUNPATH.
FL := $(BUILD)/fakelibs
include tests/fake/generated/fakelibs.mk
FAKELIB_SRC := tests/fake/fake_lib_core.c tests/fake/fake_lib_special.c
FAKELIB_HDR := tests/fake/fake_lib_internal.h tests/fake/fake_internal.h include/generated/cutap_ids.h
FAKELIBS := $(foreach l,$(FAKELIB_LAYERS),$(FL)/$(fakelib_soname_$(l)))
# The fake cuBLAS calls cublasLtMatmul of the fake cuBLASLt directly.
fakelib_deps_cublas := $(FL)/libcublasLt.so.13
fakelib_libs_cublas := -l:libcublasLt.so.13

define fakelib_rule
$(FL)/$(fakelib_soname_$(1)): tests/fake/generated/fake_$(1).c tests/fake/generated/fake_$(1).map $(FAKELIB_SRC) $(FAKELIB_HDR) $(fakelib_deps_$(1))
	@mkdir -p $(FL)
	$(CC) $(TCFLAGS) -O0 -fPIC -shared -fvisibility=hidden -DFAKE_LIB_$(1) -Wl,-soname,$(fakelib_soname_$(1)) \
	    -Wl,-Bsymbolic -Wl,--version-script=tests/fake/generated/fake_$(1).map -o $$@ $$< $(FAKELIB_SRC) \
	    -L$(FL) $(fakelib_libs_$(1)) -ldl -Wl,-rpath,'$$$$ORIGIN'
endef
$(foreach l,$(FAKELIB_LAYERS),$(eval $(call fakelib_rule,$(l))))

# The nesting program in the linker-mode matrix (linked with the fake
# libcudart.so.13 and libcublas.so.13: versioned PLT references), and
# without them (dlopen only).
T_LIBS_LINK := -DLINKED -L$(FL) -l:libcudart.so.13 -l:libcublas.so.13 -ldl -Wl,-rpath,'$$ORIGIN/../fakelibs'
$(T)/t_libs_lazy: tests/t_libs.c $(FAKELIB_HDR) $(FAKELIBS)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -fno-pie -Wl,-z,lazy -o $@ $< $(T_LIBS_LINK)
$(T)/t_libs_now: tests/t_libs.c $(FAKELIB_HDR) $(FAKELIBS)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -fno-pie -Wl,-z,now -Wl,-z,relro -o $@ $< $(T_LIBS_LINK)
$(T)/t_libs_pie: tests/t_libs.c $(FAKELIB_HDR) $(FAKELIBS)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -fPIE -pie -Wl,-z,lazy -o $@ $< $(T_LIBS_LINK)
$(T)/t_libs_dl: tests/t_libs.c $(FAKELIB_HDR)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -o $@ $< -ldl -Wl,-rpath,'$$ORIGIN/../fakelibs'

# A signal handler's first call of a layer while its thread adopts it
# (tests/cases/api/api_enable_from_signal_handler.sh)
SIG_ADOPT_LIBS := libcudart.so.13 libcufft.so.12 libcurand.so.10 libnccl.so.2 libcusolver.so.12 libcudnn.so.9 \
                  libnvrtc.so.13 libcublasLt.so.13
$(T)/t_sig_adopt: tests/t_sig_refresh.c tests/cuda_min.h tests/sig_timer.h $(FAKELIBS) $(FAKE)/libcuda.so.1
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -DADOPT_LINKED -o $@ $< -L$(FAKE) -lcuda -L$(FL) -Wl,--no-as-needed \
	    $(addprefix -l:,$(SIG_ADOPT_LIBS)) -Wl,--as-needed -ldl -lpthread -Wl,-rpath,'$$ORIGIN/../fakelibs'

# Exact pass-through of every layer function (-O0: a large generated file).
$(T)/exact_lib: tests/exact_lib_main.c tests/generated/exact_lib_calls.c tests/exact_lib_internal.h $(FAKELIB_HDR)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -O0 -Wno-unused-variable -o $@ tests/exact_lib_main.c tests/generated/exact_lib_calls.c -ldl \
	    -Wl,-rpath,'$$ORIGIN/../fakelibs'

TEST_BINS += $(FAKELIBS) $(T)/t_sig_adopt $(T)/t_libs_lazy $(T)/t_libs_now $(T)/t_libs_pie $(T)/t_libs_dl $(T)/exact_lib
include tests/old_major.mk
