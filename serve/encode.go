package serve

import (
	"strconv"
	"unicode/utf8"

	"github.com/rffkit/rff"
)

// appendString appends s as a JSON string: quotes, backslashes and control characters escaped, invalid UTF-8
// replaced by U+FFFD, and U+2028, U+2029, <, > and & escaped as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFloats appends the values as a JSON array body (no brackets), each in the shortest form that reads back
// as the same float64 (strconv 'g', -1), so a client decoding them gets the model's bits.
func appendFloats(b []byte, v []float64) []byte {
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return b
}

// outputSet says which output tensors a response holds.
type outputSet struct{ predictions, labels, scores, probabilities, std bool }

// appendTensorHead appends the start of an output tensor object up to the opening bracket of its data.
func appendTensorHead(b []byte, first bool, name, datatype string, shape ...int) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	b = append(b, `","datatype":"`...)
	b = append(b, datatype...)
	b = append(b, `","shape":[`...)
	for i, d := range shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(d), 10)
	}
	return append(b, `],"data":[`...)
}

// appendInferResponse appends the inference response for prediction p of model e, with the class probabilities probs
// and the predictive standard deviations std when want has them.
func appendInferResponse(b []byte, e *entry, req *request, p *rff.Prediction, probs, std []float64, want outputSet) []byte {
	b = append(b, `{"model_name":`...)
	b = append(b, e.quoted...)
	b = append(b, `,"model_version":"`...)
	b = append(b, e.version...)
	b = append(b, '"')
	if req.hasID {
		b = append(b, `,"id":`...)
		b = appendString(b, req.id)
	}
	b = append(b, `,"outputs":[`...)
	first := true
	if want.predictions {
		b = appendTensorHead(b, first, OutputPredictions, "FP64", p.N, p.Outputs)
		b = append(appendFloats(b, p.Values), "]}"...)
		first = false
	}
	if want.labels {
		b = appendTensorHead(b, first, OutputLabels, "BYTES", p.N)
		for i, c := range p.Classes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, e.labels[c]...)
		}
		b = append(b, "]}"...)
		first = false
	}
	if want.scores {
		b = appendTensorHead(b, first, OutputScores, "FP64", p.N, p.Outputs)
		b = append(appendFloats(b, p.Values), "]}"...)
		first = false
	}
	if want.probabilities {
		b = appendTensorHead(b, first, OutputProbabilities, "FP64", p.N, p.Outputs)
		b = append(appendFloats(b, probs), "]}"...)
		first = false
	}
	if want.std {
		b = appendTensorHead(b, first, OutputStd, "FP64", p.N, p.Outputs)
		b = append(appendFloats(b, std), "]}"...)
	}
	return append(b, "]}\n"...)
}
