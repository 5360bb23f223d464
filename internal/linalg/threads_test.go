package linalg

import (
	"io/fs"
	"runtime"
	"testing"
)

// TestThreadsFor: the CPUs, lowered to a cgroup limit rounded up to a whole
// number of at least 2, as the Go runtime chooses its default GOMAXPROCS.
func TestThreadsFor(t *testing.T) {
	for _, c := range []struct {
		ncpu  int
		limit float64
		want  int
	}{
		{8, 0, 8}, {8, 2, 2}, {8, 2.5, 3}, {8, 0.5, 2}, {8, 1, 2}, {1, 0.5, 1}, {4, 16, 4}, {0, 0, 1},
	} {
		if got := threadsFor(c.ncpu, c.limit); got != c.want {
			t.Errorf("threadsFor(%d, %v) = %d, want %d", c.ncpu, c.limit, got, c.want)
		}
	}
	if n := DefaultThreads(); n < 1 || n > runtime.NumCPU() {
		t.Errorf("DefaultThreads() = %d with %d CPUs", n, runtime.NumCPU())
	}
}

// TestCgroupCPULimit reads the CPU limit from fake cgroup v1 and v2 trees: the
// smallest quota along the path, missing directories skipped, "max" and −1
// meaning no limit, and anything unreadable no limit.
func TestCgroupCPULimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  float64
	}{
		{"no /proc/self/cgroup", map[string]string{}, 0},
		{"v2 unlimited", map[string]string{
			"/proc/self/cgroup":            "0::/\n",
			"/sys/fs/cgroup/cpu.max":       "max 100000\n",
			"/sys/fs/cgroup/other/cpu.max": "100000 100000\n",
		}, 0},
		{"v2 namespaced container", map[string]string{
			"/proc/self/cgroup":      "0::/\n",
			"/sys/fs/cgroup/cpu.max": "250000 100000\n",
		}, 2.5},
		{"v2 nested: the parent is tighter", map[string]string{
			"/proc/self/cgroup": "0::/system.slice/app.service\n",
			"/sys/fs/cgroup/system.slice/app.service/cpu.max": "400000 100000\n",
			"/sys/fs/cgroup/system.slice/cpu.max":             "150000 100000\n",
		}, 1.5},
		{"v2 path of the host, own cgroup at the root", map[string]string{
			"/proc/self/cgroup":      "0::/kubepods/pod1/abc\n",
			"/sys/fs/cgroup/cpu.max": "300000 100000\n",
		}, 3},
		{"v1", map[string]string{
			"/proc/self/cgroup": "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n",
			"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "200000\n",
			"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
		}, 2},
		{"v1 unlimited", map[string]string{
			"/proc/self/cgroup":                            "4:cpu,cpuacct:/\n",
			"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "-1\n",
			"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		}, 0},
		{"v1 memory controller only", map[string]string{
			"/proc/self/cgroup": "12:memory:/docker/abc\n",
			"/sys/fs/cgroup/memory/docker/abc/cpu.cfs_quota_us":  "200000\n",
			"/sys/fs/cgroup/memory/docker/abc/cpu.cfs_period_us": "100000\n",
		}, 0},
		{"garbage", map[string]string{
			"/proc/self/cgroup":      "0::/\n",
			"/sys/fs/cgroup/cpu.max": "lots 0\n",
		}, 0},
	} {
		read := func(name string) ([]byte, error) {
			if s, ok := c.files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		if got := cgroupCPULimit(read); got != c.want {
			t.Errorf("%s: limit %v, want %v", c.name, got, c.want)
		}
	}
}
