package cpu

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
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
	info := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, seen := info[k]; !seen {
			info[k] = strings.TrimSpace(v)
		}
		if k == "flags" && flags == nil {
			flags = strings.Fields(v)
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
	wantAVX512 := wantFMA
	for _, f := range []string{"avx512f", "avx512cd", "avx512dq", "avx512bw", "avx512vl"} {
		wantAVX512 = wantAVX512 && slices.Contains(flags, f)
	}
	if AVX512 != wantAVX512 {
		t.Errorf("AVX512 = %v; /proc/cpuinfo (and the build) say %v", AVX512, wantAVX512)
	}
	if !isAsm {
		return
	}
	name, family, model := Name()
	if want := info["model name"]; want != "" && name != want {
		t.Errorf("Name() = %q; /proc/cpuinfo says %q", name, want)
	}
	if want := info["cpu family"]; want != "" && strconv.Itoa(family) != want {
		t.Errorf("family %d; /proc/cpuinfo says %s", family, want)
	}
	if want := info["model"]; want != "" && strconv.Itoa(model) != want {
		t.Errorf("model %d; /proc/cpuinfo says %s", model, want)
	}
}

// TestFeatures: the list follows the flags, and AVX-512 implies FMA, which implies AVX2.
func TestFeatures(t *testing.T) {
	got := Features()
	want := map[string]bool{"avx2": AVX2, "fma": FMA, "avx512": AVX512}
	for k, v := range want {
		if slices.Contains(got, k) != v {
			t.Errorf("Features() = %v, but %s is %v", got, k, v)
		}
	}
	if AVX512 && !FMA || FMA && !AVX2 {
		t.Errorf("AVX512, FMA, AVX2 = %v, %v, %v: inconsistent", AVX512, FMA, AVX2)
	}
}

func Example() {
	if FMA {
		fmt.Println("AVX2 and FMA3 kernels")
	} else {
		fmt.Println("portable code")
	}
}

func ExampleFeatures() {
	// Features lists what the flags say, e.g. [avx2 fma avx512] on an AMD Zen 4 or 5, [avx2 fma] on a Zen 3.
	f := Features()
	fmt.Println(slices.Contains(f, "avx512") == AVX512, slices.Contains(f, "fma") == FMA)
	// Output: true true
}

func ExampleName() {
	// Name is the brand string, e.g. "AMD EPYC 9B45" (or "AMD EPYC" under some hypervisors), family 26 for Zen 5.
	name, family, _ := Name()
	fmt.Println(len(name) < 49, family >= 0)
	// Output: true true
}
