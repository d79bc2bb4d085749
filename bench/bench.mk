# Benchmarks: programs that print side-by-side ratios (no timed assertions).
# Their clock is the library's (cutap_now_ns, src/front/front_internal.h).
BENCH_INC := -Iinclude -Isrc/common -Isrc/front
$(BUILD)/bench/passthrough: bench/passthrough.c bench/bench_util.h src/front/front_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) $(BENCH_INC) -o $@ $< -ldl

# What a fresh page of a trace file costs (faults, populated per chunk, or
# populated beforehand: the recorder's helper thread), in /tmp.
$(BUILD)/bench/pages: bench/pages.c
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -o $@ $<

# What the ioctl layer costs the ioctls, closes and mappings it passes on.
$(BUILD)/bench/ioctl: bench/ioctl.c bench/bench_util.h src/front/front_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) $(BENCH_INC) -o $@ $<

# What recording the NVIDIA libraries' environment lookups costs everyone
# else's getenv (issue #32).
$(BUILD)/bench/getenv: bench/getenv.c bench/bench_util.h src/front/front_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) $(BENCH_INC) -o $@ $< -ldl

$(BUILD)/bench/libnosys.so: bench/nosys.c
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -fPIC -shared -o $@ $<

bench: lib cli $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/passthrough $(BUILD)/bench/pages $(BUILD)/bench/ioctl \
       $(BUILD)/bench/libnosys.so $(BUILD)/bench/sqlite_floor $(BUILD)/bench/getenv $(FAKELIBS)
	$(BUILD)/bench/pages /tmp 128
	$(BUILD)/bench/ioctl
	CUTAP_LIBRARY=$(BUILD)/libcutap.so LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/getenv
	LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/passthrough
	CUTAP_PREFAULT=0 LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/passthrough
	BENCH_LIB=libcudart.so.13 BENCH_SYM=cudaGetDevice LD_LIBRARY_PATH=$(FL):$(BUILD)/fake $(BUILD)/bench/passthrough
	@# pinned to one core (as MPI's --bind-to core): the page helper must not share it
	taskset -c 0 env LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/passthrough
	taskset -c 0 env BENCH_LIB=libcudart.so.13 BENCH_SYM=cudaGetDevice LD_LIBRARY_PATH=$(FL):$(BUILD)/fake \
	    $(BUILD)/bench/passthrough
	bench/readers.sh
	bench/print.sh

# SQLite's own insert rate for rows like the export's calls (the floor
# under export --format sqlite), loaded at run time as the command does.
$(BUILD)/bench/sqlite_floor: bench/sqlite_floor.c cli/sqlite_dl.c cli/sqlite_dl.h cli/dl_table.c cli/dl_table.h \
		cli/export/sqlite_calls.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -Icli -o $@ bench/sqlite_floor.c cli/sqlite_dl.c cli/dl_table.c -ldl

# Each reader's calls per second on a 3 M-call trace, against issue #27's 10 M/s.
bench-readers: lib cli $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/passthrough $(BUILD)/bench/sqlite_floor
	bench/readers.sh

# A static runtime copy's reported call (issue #25), for bench/instructions.sh.
$(BUILD)/bench/rtreport: bench/rtreport.c tests/rt_copy.h tests/cupti_min.h tests/cuda_min.h $(BUILD)/fake/libcuda.so.1
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -Itests -o $@ $< -L$(BUILD)/fake -lcuda

# Instructions per call under valgrind (deterministic; no perf counters needed).
bench-instr: lib $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/passthrough $(BUILD)/bench/rtreport
	bench/instructions.sh

# What cutap adds to every exec of a process that makes no CUDA call
# (fork + exec of /bin/true, a 300-exec shell loop, 15,000 inherited
# descriptors), bare, trace and stat side by side.
$(BUILD)/bench/startup: bench/startup.c bench/bench_util.h src/front/front_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) $(BENCH_INC) -o $@ $<

bench-startup: lib $(BUILD)/bench/startup
	$(BUILD)/bench/startup

# The cache lines one call touches, code and data, per object (valgrind
# lackey), bare, pass-through, stat and trace (issue #27).
$(BUILD)/bench/footprint: bench/footprint.c
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -o $@ $< -ldl

bench-footprint: lib $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/footprint
	bench/footprint.sh

# What a recorded call adds with the program's own work between calls
# (caches cooled), inside one process, against a loop (issue #27).
$(BUILD)/bench/coldcall: bench/coldcall.c bench/bench_util.h src/front/front_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) $(BENCH_INC) -o $@ $< -ldl -lm

bench-cold: lib $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/coldcall
	LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/coldcall
