package rffbeam

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The functions and types of the pipelines are registered for Beam's non-reflective execution, and the
// accumulators and rows get compact binary coders.
func init() {
	register.DoFn3x1[context.Context, string, func(Rows), error](&readFn{})
	register.Emitter1[Rows]()
	register.DoFn3x1[context.Context, []byte, func(*[]byte) bool, error](&writeFn{})
	register.Iter1[[]byte]()
	register.Combiner3[*scanAcc, Rows, []byte](&ScanFn{})
	register.Combiner3[*statsAcc, Rows, []byte](&StatsFn{})
	register.Combiner3[*sampleAcc, Rows, []byte](&SampleFn{})
	beam.RegisterCoder(reflect.TypeOf(Rows{}), encodeRows, decodeRows)
	beam.RegisterCoder(reflect.TypeOf((*scanAcc)(nil)), func(a *scanAcc) []byte { return encodeScanAcc(a) }, decodeScanAcc)
	beam.RegisterCoder(reflect.TypeOf((*statsAcc)(nil)), encodeStatsAcc, decodeStatsAcc)
	beam.RegisterCoder(reflect.TypeOf((*sampleAcc)(nil)), encodeSampleAcc, decodeSampleAcc)
}
