// Package modeltest builds model files for the tests of the packages that read them.
package modeltest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math"

	"github.com/rffkit/rff/model"
)

// EncodeV1 returns a version-1 model file (model.Encode writes only the current version) with header h and the
// arrays θ, bias and probe (no training rows or α): the magic, the version, the header's length and JSON, each array
// as its count and values, then the SHA-256 of all that. A version-1 file stores the seed of its map, not its
// points.
func EncodeV1(h model.Header, theta, bias, probe []float64) ([]byte, error) {
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(model.Magic)
	b.Write(binary.LittleEndian.AppendUint32(nil, 1))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hdr))))
	b.Write(hdr)
	for _, a := range [][]float64{theta, bias, probe, nil, nil} {
		b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(a))))
		for _, v := range a {
			b.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
		}
	}
	sum := sha256.Sum256(b.Bytes())
	return append(b.Bytes(), sum[:]...), nil
}
