# Fakes of older CUDA majors (gen/old_major_generator.py): the fake of a
# layer rebuilt with an old soname and version node (libcudart.so.12 and
# cudaMalloc@@libcudart.so.12, ...), the functions that major declares
# otherwise than 13.0 and two it does not declare
# (tests/fake/generated/fake_old_major.c, the section of its layer and
# soname group) taking the place of the generated ones (first definition
# wins), and the programs that call them as a CUDA 12 or 11 program would.
# Included by tests/fakelibs.mk. The programs are built -no-pie: the
# fakes print every argument word whole, the buffer's address included, and
# the bare and the traced runs must print the same.
include tests/fake/generated/old_major.mk
OLD_FAKES := $(sort $(OLD_FAKES_12) $(OLD_FAKES_11))
# The old fake cuBLAS calls the old fake cuBLASLt of its major.
old_libs_libcublas.so.12 := -l:libcublasLt.so.12
old_libs_libcublas.so.11 := -l:libcublasLt.so.11
old_deps_libcublas.so.12 := $(FL)/libcublasLt.so.12
old_deps_libcublas.so.11 := $(FL)/libcublasLt.so.11

define oldfake_rule
$(FL)/$(1): tests/fake/generated/fake_$(old_layer_$(1)).c tests/fake/generated/fake_$(old_layer_$(1)).map \
            tests/fake/generated/fake_old_major.c $(FAKELIB_SRC) $(FAKELIB_HDR) $(old_deps_$(1))
	@mkdir -p $(FL)
	sed 's/^$(subst .,\.,$(old_pinned_$(1))) {/$(1) {/' tests/fake/generated/fake_$(old_layer_$(1)).map >$$@.map
	$(CC) $(TCFLAGS) -O0 -fPIC -shared -fvisibility=hidden -DFAKE_LIB_$(old_layer_$(1)) -DFAKE_GROUP=$(old_group_$(1)) -Wl,-soname,$(1) \
	    -Wl,-Bsymbolic -Wl,--allow-multiple-definition -Wl,--version-script=$$@.map -o $$@ \
	    tests/fake/generated/fake_old_major.c $$< $(FAKELIB_SRC) -L$(FL) $(old_libs_$(1)) -ldl -Wl,-rpath,'$$$$ORIGIN'
endef
$(foreach s,$(OLD_FAKES),$(eval $(call oldfake_rule,$(s))))

OLD_SRC := tests/generated/t_old_major.c tests/old_major_internal.h
define oldprog_rule
$(T)/t_old$(1)_plt: $(OLD_SRC) $(addprefix $(FL)/,$(OLD_FAKES_$(1)))
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -DERA=$(1) -DLINKED -o $$@ $$< -L$(FL) $(addprefix -l:,$(OLD_FAKES_$(1))) -ldl \
	    -Wl,-rpath,'$$$$ORIGIN/../fakelibs'
$(T)/t_old$(1)_dl: $(OLD_SRC)
	@mkdir -p $(T)
	$(CC) $(TCFLAGS) -no-pie -DERA=$(1) -o $$@ $$< -ldl -Wl,-rpath,'$$$$ORIGIN/../fakelibs'
endef
$(foreach e,12 11,$(eval $(call oldprog_rule,$(e))))

TEST_BINS += $(addprefix $(FL)/,$(OLD_FAKES)) $(foreach e,12 11,$(T)/t_old$(e)_plt $(T)/t_old$(e)_dl)
