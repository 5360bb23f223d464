package dataset

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MachineMemory returns the most memory this process can ever hold, in bytes: the machine's memory and swap
// (MemTotal + SwapTotal in /proc/meminfo), lowered to the memory limit of the process's cgroup when that is less;
// -1 when it is not known (on other systems, or when these files cannot be read).
func MachineMemory() int64 {
	total := meminfo("/proc/meminfo", "MemTotal:")
	if total <= 0 {
		return -1
	}
	if swap := meminfo("/proc/meminfo", "SwapTotal:"); swap > 0 {
		total += swap
	}
	if limit := cgroupLimit(); limit >= 0 && limit < total {
		total = limit
	}
	return total
}

// CapBudget returns the memory budget that b bytes stand for, a negative b meaning no limit: b, or MachineMemory
// when b is negative or more than that (and it is known); a negative b on a machine whose memory is unknown is
// math.MaxInt64. Work that needs more than the machine's memory cannot
// run, and a budget that promised more would let it end in the Go runtime's fatal out-of-memory error instead of
// being refused; the budgets of this module's functions are capped so.
func CapBudget(b int64) int64 {
	if m := MachineMemory(); m > 0 && (b < 0 || b > m) {
		return m
	}
	if b < 0 {
		return math.MaxInt64
	}
	return b
}

// memoryAvailable is availableMemory; tests replace it.
var memoryAvailable = availableMemory

// availableMemory returns the memory available to the process in bytes, or -1 when it is not known.
func availableMemory() int64 {
	avail := memAvailable("/proc/meminfo")
	if avail <= 0 {
		return -1
	}
	if room := cgroupRoom(); room >= 0 && room < avail {
		avail = room
	}
	return avail
}

// memAvailable reads MemAvailable from a meminfo file, in bytes; -1 if absent.
func memAvailable(path string) int64 { return meminfo(path, "MemAvailable:") }

// meminfo reads the value of key ("MemTotal:") from a meminfo file, in bytes; -1 if absent or unreadable.
func meminfo(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return -1
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64>>10 {
			return -1
		}
		if len(f) > 1 && f[1] != "kB" {
			return -1
		}
		return kb << 10
	}
	return -1
}

// cgroupRoom returns the memory the process's cgroup still allows (limit − usage) in bytes, or -1 when there is
// no limit or it cannot be read.
func cgroupRoom() int64 {
	return cgroup(func(limit, usage int64) int64 { return max(0, limit-max(0, usage)) })
}

// cgroupLimit returns the memory limit of the process's cgroup in bytes, or -1 when there is none or it cannot be
// read.
func cgroupLimit() int64 {
	return cgroup(func(limit, _ int64) int64 { return limit })
}

// cgroup returns the least of f(limit, usage) over the memory limits of the process's cgroups, or -1 when there is
// no limit or it cannot be read. It looks at cgroup v2 (memory.max, memory.current) and v1 (memory.limit_in_bytes,
// memory.usage_in_bytes; usage is -1 when it cannot be read).
func cgroup(f func(limit, usage int64) int64) int64 {
	fh, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return -1
	}
	defer fh.Close()
	least := int64(-1)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dirs []string
		var limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dirs = []string{filepath.Join("/sys/fs/cgroup", parts[2]), "/sys/fs/cgroup"}
			limitFile, usageFile = "memory.max", "memory.current"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			dirs = []string{filepath.Join("/sys/fs/cgroup/memory", parts[2]), "/sys/fs/cgroup/memory"}
			limitFile, usageFile = "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for _, dir := range dirs {
			limit := readInt(filepath.Join(dir, limitFile))
			if limit < 0 {
				continue
			}
			if limit >= 1<<60 { // "no limit" in cgroup v1 is a huge number
				break
			}
			if v := f(limit, readInt(filepath.Join(dir, usageFile))); least < 0 || v < least {
				least = v
			}
			break
		}
	}
	return least
}

// readInt reads a file holding one non-negative integer; -1 if it cannot (as for cgroup v2's "max").
func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || v < 0 {
		return -1
	}
	return v
}
