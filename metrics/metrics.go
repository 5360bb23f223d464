// Package metrics scores predictions: RMSE, MAE and R² for regression (one output or several), accuracy and per-class
// counts for classification, and the mean of repeated measurements with its normal 95% interval.
//
// Every function takes predictions before truths, row-major n×p matrices for several outputs, and returns NaN
// (never ±Inf) where a score is undefined: R² of a constant target, any score of no rows, and any score of
// predictions and truths whose lengths do not match (no function here panics on them). Callers print NaN as "n/a"
// or null.
package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// scaleOf returns the exponent e of the largest |v| of the slices, clamped to [−1000, 1000], and s = 2⁻ᵉ. The
// scores are computed on the values times s, which lie within [−1, 1] (or beyond only when all are below 2⁻¹⁰⁰⁰):
// their differences cannot overflow and their squares neither overflow nor underflow where the score itself does
// not, and, s being a power of two, where the unscaled formulas work they give the same bits.
func scaleOf(vs ...[]float64) (s float64, e int) {
	m := 0.0
	for _, v := range vs {
		for _, x := range v {
			m = max(m, math.Abs(x))
		}
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return 1, 0
	}
	_, e = math.Frexp(m)
	e = min(max(e, -1000), 1000)
	return math.Ldexp(1, -e), e
}

// RMSE is the root mean squared error over every entry of pred and truth (equal lengths; NaN otherwise).
func RMSE(pred, truth []float64) float64 {
	if len(truth) == 0 || len(pred) != len(truth) {
		return math.NaN()
	}
	s, x := scaleOf(pred, truth)
	var se float64
	for i, y := range truth {
		e := y*s - pred[i]*s
		se += e * e
	}
	return math.Ldexp(math.Sqrt(se/float64(len(truth))), x)
}

// MAE is the mean absolute error over every entry of pred and truth (equal lengths; NaN otherwise).
func MAE(pred, truth []float64) float64 {
	if len(truth) == 0 || len(pred) != len(truth) {
		return math.NaN()
	}
	s, x := scaleOf(pred, truth)
	var ae float64
	for i, y := range truth {
		ae += math.Abs(y*s - pred[i]*s)
	}
	return math.Ldexp(ae/float64(len(truth)), x)
}

// R2 is the coefficient of determination 1 − Σ(y − ŷ)²/Σ(y − ȳ)² of one output; NaN when the target is constant.
func R2(pred, truth []float64) float64 {
	return MultiR2(pred, truth, len(truth), 1)
}

// MultiR2 is the overall coefficient of determination of n predictions of p outputs (row-major n×p):
// 1 − Σ_all (y − ŷ)² / Σ_all (y − ȳ_a)², ȳ_a the mean of output a. NaN when every output is constant, and when
// pred and truth do not both hold n×p values.
func MultiR2(pred, truth []float64, n, p int) float64 {
	if n <= 0 || p <= 0 || !shape(len(truth), n, p) || len(pred) != len(truth) {
		return math.NaN()
	}
	s, _ := scaleOf(pred, truth) // the ratio does not depend on the scale
	mean := make([]float64, p)
	for i := 0; i < n; i++ {
		for a := 0; a < p; a++ {
			mean[a] += truth[i*p+a] * s
		}
	}
	for a := range mean {
		mean[a] /= float64(n)
	}
	var se, ss float64
	for i := 0; i < n*p; i++ {
		e, c := truth[i]*s-pred[i]*s, truth[i]*s-mean[i%p]
		se += e * e
		ss += c * c
	}
	if !(ss > 0) {
		return math.NaN()
	}
	return 1 - se/ss
}

// Output holds the scores of one output of a regression.
type Output struct {
	Name string  `json:"name"`
	RMSE float64 `json:"rmse"`
	MAE  float64 `json:"mae"`
	R2   float64 `json:"r2"`
}

// Regression holds the scores of a (possibly multi-output) regression: overall over every entry, and per output.
type Regression struct {
	N         int      `json:"n"`
	RMSE      float64  `json:"rmse"`
	MAE       float64  `json:"mae"`
	R2        float64  `json:"r2"`
	PerOutput []Output `json:"per_output,omitempty"`
}

// ScoreRegression scores n predictions of p outputs (row-major n×p) against the truths; names (length p, or nil)
// name the outputs. When pred and truth do not both hold n×p values the scores are NaN and there are no per-output
// scores.
func ScoreRegression(pred, truth []float64, n, p int, names []string) Regression {
	if n < 0 || p < 1 || !shape(len(truth), n, p) || len(pred) != len(truth) {
		nan := math.NaN()
		return Regression{N: max(n, 0), RMSE: nan, MAE: nan, R2: nan}
	}
	r := Regression{N: n, RMSE: RMSE(pred, truth), MAE: MAE(pred, truth), R2: MultiR2(pred, truth, n, p)}
	if p == 1 {
		return r
	}
	pc, tc := make([]float64, n), make([]float64, n)
	for a := 0; a < p; a++ {
		for i := 0; i < n; i++ {
			pc[i], tc[i] = pred[i*p+a], truth[i*p+a]
		}
		o := Output{RMSE: RMSE(pc, tc), MAE: MAE(pc, tc), R2: R2(pc, tc)}
		if a < len(names) {
			o.Name = names[a]
		}
		r.PerOutput = append(r.PerOutput, o)
	}
	return r
}

// Accuracy is the fraction of pred equal to truth (equal lengths); NaN for no rows or lengths that differ.
func Accuracy(pred, truth []int) float64 {
	if len(truth) == 0 || len(pred) != len(truth) {
		return math.NaN()
	}
	c := 0
	for i, t := range truth {
		if pred[i] == t {
			c++
		}
	}
	return float64(c) / float64(len(truth))
}

// Class holds the counts of one class.
type Class struct {
	Label   string `json:"label"`
	Total   int    `json:"total"`
	Correct int    `json:"correct"`
}

// Classification holds the scores of a classifier.
type Classification struct {
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	PerClass []Class `json:"per_class"`
	// Confusion[t][p] counts the rows of true class t predicted as class p.
	Confusion [][]int `json:"confusion"`
	// Invalid counts the rows whose true or predicted index lies outside [0, len(labels)): they are in N and
	// Accuracy but not in PerClass or Confusion. It is 0 for indices from one class coder.
	Invalid int `json:"invalid,omitempty"`
	// LogLoss is the mean negative log-likelihood of the true classes, −(1/n)Σ log p(y_i | x_i) (LogLoss), for a
	// classifier whose scores are log-probabilities up to a constant (the logistic loss); nil for the others.
	LogLoss *float64 `json:"log_loss,omitempty"`
	// CalibrationError is the expected calibration error of such a classifier's probabilities over
	// CalibrationBins bins (CalibrationOf); nil for the others.
	CalibrationError *float64 `json:"calibration_error,omitempty"`
}

// CalibrationBins is the number of bins of [0, 1] the calibration error of a score uses.
const CalibrationBins = 10

// Calibration is the binned calibration of a classifier's probabilities (DeGroot & Fienberg 1983; Niculescu-Mizil &
// Caruana 2005): the rows binned by the probability the model gives its predicted class (its confidence), per
// non-empty bin, in increasing order, the mean confidence, the share of rows predicted correctly and the number of
// rows, and the expected calibration error Σ_b (n_b/n)·|accuracy_b − confidence_b|.
type Calibration struct {
	Confidence []float64 `json:"confidence"`
	Accuracy   []float64 `json:"accuracy"`
	Rows       []int     `json:"rows"`
	Error      float64   `json:"error"`
}

// CalibrationOf bins the rows of the class probabilities probs (n×k, row-major) by their largest probability (the
// first largest on ties) into bins equal parts of [0, 1]. truth holds each row's true class; rows whose true class
// lies outside [0, k), or whose largest probability is not finite, are left out. It returns an error for k < 2,
// bins < 1, probs of another length than len(truth)·k, or no row left.
func CalibrationOf(probs []float64, truth []int, k, bins int) (*Calibration, error) {
	n := len(truth)
	if k < 2 || bins < 1 || !shape(len(probs), n, k) {
		return nil, fmt.Errorf("metrics.CalibrationOf: %d probabilities for %d rows of %d classes, %d bins", len(probs), n, k, bins)
	}
	conf, correct, count := make([]float64, bins), make([]int, bins), make([]int, bins)
	rows := 0
	for i, y := range truth {
		if y < 0 || y >= k {
			continue
		}
		p := probs[i*k : (i+1)*k]
		best := 0
		for j, v := range p {
			if v > p[best] {
				best = j
			}
		}
		if math.IsNaN(p[best]) || math.IsInf(p[best], 0) {
			continue
		}
		b := min(max(int(p[best]*float64(bins)), 0), bins-1)
		conf[b] += p[best]
		count[b]++
		if best == y {
			correct[b]++
		}
		rows++
	}
	if rows == 0 {
		return nil, errors.New("metrics.CalibrationOf: no row with a known class")
	}
	c := &Calibration{}
	for b := range bins {
		if count[b] == 0 {
			continue
		}
		cf, a := conf[b]/float64(count[b]), float64(correct[b])/float64(count[b])
		c.Confidence, c.Accuracy, c.Rows = append(c.Confidence, cf), append(c.Accuracy, a), append(c.Rows, count[b])
		c.Error += float64(count[b]) / float64(rows) * math.Abs(a-cf)
	}
	return c, nil
}

// LogLoss is the mean negative log-likelihood −(1/n) Σ_i log softmax(s_i)_{y_i} of the true classes truth under the
// class scores s (n×k, row-major) of a multinomial logistic model, computed from the scores as
// log Σ_j exp(s_ij − max s_i) + max s_i − s_{i y_i}, so that it is finite even where a probability underflows to 0.
// NaN for no rows, lengths that do not match, a true class outside [0, k), or a score that is not finite.
func LogLoss(scores []float64, truth []int, k int) float64 {
	n := len(truth)
	if n == 0 || k < 1 || !shape(len(scores), n, k) {
		return math.NaN()
	}
	var sum float64
	for i, y := range truth {
		s := scores[i*k : (i+1)*k]
		if y < 0 || y >= k {
			return math.NaN()
		}
		m := math.Inf(-1)
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.NaN()
			}
			m = max(m, v)
		}
		var e float64
		for _, v := range s {
			e += math.Exp(v - m)
		}
		sum += math.Log(e) + m - s[y]
	}
	return sum / float64(n)
}

// ScoreClassification scores predicted class indices against true ones, for the classes named by labels (indices
// lie in [0, len(labels)); rows with other indices are counted in Invalid). When pred and truth have different
// lengths, Accuracy is NaN and no row is counted.
func ScoreClassification(pred, truth []int, labels []string) Classification {
	K := len(labels)
	c := Classification{N: len(truth), Accuracy: Accuracy(pred, truth), PerClass: make([]Class, K), Confusion: make([][]int, K)}
	for k := range c.Confusion {
		c.Confusion[k] = make([]int, K)
		c.PerClass[k].Label = labels[k]
	}
	if len(pred) != len(truth) {
		return c
	}
	for i, t := range truth {
		if t < 0 || t >= K || pred[i] < 0 || pred[i] >= K {
			c.Invalid++
			continue
		}
		c.Confusion[t][pred[i]]++
		c.PerClass[t].Total++
		if pred[i] == t {
			c.PerClass[t].Correct++
		}
	}
	return c
}

// Summary is the mean of repeated measurements with their sample standard deviation and the normal 95% interval of
// the mean, mean ± 1.96·std/√n.
type Summary struct {
	N    int        `json:"n"`
	Mean float64    `json:"mean"`
	Std  float64    `json:"std"`
	CI95 [2]float64 `json:"ci95"`
}

// Summarize returns the mean, sample standard deviation (0 for one value) and 95% interval of v; NaN for no values.
func Summarize(v []float64) Summary {
	k := float64(len(v))
	if len(v) == 0 {
		nan := math.NaN()
		return Summary{Mean: nan, Std: nan, CI95: [2]float64{nan, nan}}
	}
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= k
	var std float64
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - mean) * (x - mean)
		}
		std = math.Sqrt(ss / (k - 1))
	}
	h := 1.96 * std / math.Sqrt(k)
	return Summary{N: len(v), Mean: mean, Std: std, CI95: [2]float64{mean - h, mean + h}}
}

// num is a float64 that encodes NaN and ±Inf as JSON null, which JSON cannot represent otherwise.
type num float64

// MarshalJSON encodes v as a JSON number, or as null when v is NaN or infinite.
func (v num) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// MarshalJSON encodes the scores with undefined ones (NaN) as null.
func (o Output) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name string `json:"name"`
		RMSE num    `json:"rmse"`
		MAE  num    `json:"mae"`
		R2   num    `json:"r2"`
	}{o.Name, num(o.RMSE), num(o.MAE), num(o.R2)})
}

// MarshalJSON encodes the scores with undefined ones (NaN) as null.
func (r Regression) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N         int      `json:"n"`
		RMSE      num      `json:"rmse"`
		MAE       num      `json:"mae"`
		R2        num      `json:"r2"`
		PerOutput []Output `json:"per_output,omitempty"`
	}{r.N, num(r.RMSE), num(r.MAE), num(r.R2), r.PerOutput})
}

// MarshalJSON encodes the accuracy of no rows (NaN) as null.
func (c Classification) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N         int     `json:"n"`
		Accuracy  num     `json:"accuracy"`
		PerClass  []Class `json:"per_class"`
		Confusion [][]int `json:"confusion"`
		Invalid   int     `json:"invalid,omitempty"`
		LogLoss   *num    `json:"log_loss,omitempty"`
		CalError  *num    `json:"calibration_error,omitempty"`
	}{c.N, num(c.Accuracy), c.PerClass, c.Confusion, c.Invalid, (*num)(c.LogLoss), (*num)(c.CalibrationError)})
}

// shape reports whether n×p values, computed without overflow, are exactly l (n, p ≥ 0).
func shape(l, n, p int) bool {
	if n < 0 || p < 0 {
		return false
	}
	if p != 0 && n > math.MaxInt/p {
		return false
	}
	return n*p == l
}
