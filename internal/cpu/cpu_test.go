package cpu

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestAgainstProcCPUInfo cross-checks CPUID with the flags the Linux kernel reports (it lists avx2 and fma only
// when it also saves the YMM state), and checks that FMA is never claimed without AVX2.
func TestAgainstProcCPUInfo(t *testing.T) {
	if FMA && !AVX2 {
		t.Fatal("FMA without AVX2")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || runtime.GOARCH != "amd64" {
		t.Skip("no /proc/cpuinfo on amd64")
	}
	var flags []string
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = strings.Fields(v)
			break
		}
	}
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	wantAVX2 := slices.Contains(flags, "avx2") && isAsm
	wantFMA := wantAVX2 && slices.Contains(flags, "fma")
	if AVX2 != wantAVX2 || FMA != wantFMA {
		t.Errorf("AVX2, FMA = %v, %v; /proc/cpuinfo (and the build) say %v, %v", AVX2, FMA, wantAVX2, wantFMA)
	}
}

func Example() {
	if FMA {
		fmt.Println("AVX2 and FMA3 kernels")
	} else {
		fmt.Println("portable code")
	}
}
