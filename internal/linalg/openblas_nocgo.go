//go:build !cgo || !linux

package linalg

import "errors"

// Without cgo (CGO_ENABLED=0, or no C compiler at build time) or off Linux the
// library cannot be opened: the package runs on gonum's pure-Go code.

func cpuFeatures() cpuInfo { return cpuInfo{} }

func loadOpenBLAS() (nativeLib, error) {
	return nil, errors.New("openblas: not available in this build (needs cgo on linux; built with CGO_ENABLED=0 or another OS)")
}

func loadedCoreType() (value, source, note string) { return "", coreNone, "" }

func loadedThreadTimeout() string { return "" }

func cGetenv(k string) (string, bool) { return "", false }
