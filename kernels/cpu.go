package kernels

import "golang.org/x/sys/cpu"

// cpuFeatures records, once at start-up, the CPU features the assembly
// implementations need. golang.org/x/sys/cpu reports false for every field
// of another architecture, so this file needs no build tags.
var cpuFeatures = struct {
	// amd64. The AVX2 level needs AVX2 and FMA, F16C for fp16 loads and
	// BMI2 (RORX, SHRX) in the KV cache codecs; x/sys/cpu sets the vector
	// ones only when the OS saves the YMM state.
	AVX2, FMA, F16C, BMI2 bool
	// The AVX-512 level needs F, BW and VL (byte ops on 256/512-bit lanes)
	// and the AVX-512 VNNI level VNNI too (VPDPBUSD, VPDPWSSD).
	AVX512F, AVX512BW, AVX512VL, AVX512VNNI bool
	// arm64. ASIMD (NEON) is always present on arm64. ASIMDDP is the
	// dot-product extension (SDOT/UDOT), despite x/sys/cpu's field comment
	// calling it "double precision". I8MM adds SMMLA.
	ASIMD, ASIMDDP, I8MM bool
}{
	AVX2:       cpu.X86.HasAVX2,
	FMA:        cpu.X86.HasFMA,
	F16C:       cpu.X86.HasF16C,
	BMI2:       cpu.X86.HasBMI2,
	AVX512F:    cpu.X86.HasAVX512F,
	AVX512BW:   cpu.X86.HasAVX512BW,
	AVX512VL:   cpu.X86.HasAVX512VL,
	AVX512VNNI: cpu.X86.HasAVX512VNNI,
	ASIMD:      cpu.ARM64.HasASIMD,
	ASIMDDP:    cpu.ARM64.HasASIMDDP,
	I8MM:       cpu.ARM64.HasI8MM,
}

// hasAVX2 and friends are what the levels (level.go) need of the CPU.
func hasAVX2() bool {
	return cpuFeatures.AVX2 && cpuFeatures.FMA && cpuFeatures.F16C && cpuFeatures.BMI2
}

func hasAVX512() bool {
	return hasAVX2() && cpuFeatures.AVX512F && cpuFeatures.AVX512BW && cpuFeatures.AVX512VL
}

func hasNEON() bool { return cpuFeatures.ASIMD }

// CPUFeatures lists, by their usual lower-case names, the features of this
// CPU that the kernel levels depend on and that it has (empty on an
// architecture the kernels do not look at).
func CPUFeatures() []string {
	var names []string
	for _, f := range []struct {
		name string
		has  bool
	}{
		{"avx2", cpuFeatures.AVX2}, {"fma", cpuFeatures.FMA}, {"f16c", cpuFeatures.F16C}, {"bmi2", cpuFeatures.BMI2},
		{"avx512f", cpuFeatures.AVX512F}, {"avx512bw", cpuFeatures.AVX512BW}, {"avx512vl", cpuFeatures.AVX512VL},
		{"avx512vnni", cpuFeatures.AVX512VNNI},
		{"asimd", cpuFeatures.ASIMD}, {"asimddp", cpuFeatures.ASIMDDP}, {"i8mm", cpuFeatures.I8MM},
	} {
		if f.has {
			names = append(names, f.name)
		}
	}
	return names
}
