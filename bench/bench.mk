# Benchmarks: programs that print side-by-side ratios (no timed assertions).
$(BUILD)/bench/passthrough: bench/passthrough.c bench/bench_util.h src/core/clock_internal.h
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -g $(WARN) -o $@ $< -ldl

bench: lib $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/passthrough $(FAKELIBS)
	LD_LIBRARY_PATH=$(BUILD)/fake $(BUILD)/bench/passthrough
	BENCH_LIB=libcudart.so.13 BENCH_SYM=cudaGetDevice LD_LIBRARY_PATH=$(FL):$(BUILD)/fake $(BUILD)/bench/passthrough

# Instructions per call under valgrind (deterministic; no perf counters needed).
bench-instr: lib $(BUILD)/fake/libcuda.so.1 $(BUILD)/bench/passthrough
	bench/instructions.sh
