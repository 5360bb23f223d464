package study

// Entry is a study of the registry: its name on the command line, a one-line summary and the constructor of the
// study with its default settings.
type Entry struct {
	Name, Summary string
	New           func() Study
}

// All lists the studies, sorted by name.
func All() []Entry {
	return []Entry{
		{"orff-fig1a", "ORFF paper, Figure 1A: sup ‖K̃ − K‖₂ vs D, decomposable / curl-free / div-free", func() Study { return NewORFFFig1A() }},
		{"orff-fig1b", "ORFF paper, Figure 1B: variance norm of curl-free ORFF vs D and Proposition 12", func() Study { return NewORFFFig1B() }},
		{"orff-fig2", "ORFF paper, Figure 2: MNIST, decomposable + simplex coding: fit time vs N and test error vs D, ORFF vs exact OVK", func() Study { return NewORFFFig2() }},
		{"orff-fig3", "ORFF paper, Figure 3: 5-D curl-free field: test R² vs D and fit time vs N, curl-free/independent, ORFF/exact", func() Study { return NewORFFFig3() }},
		{"orff-multitask", "ORFF paper, supplement D.2: R²⁰→R⁴ multi-task, decomposable ORFF with A = output covariance vs A = I", func() Study { return NewORFFMultitask() }},
		{"quad-fig2", "quadrature paper, Figure 2: SVM accuracy / ridge R² vs n for every rule (Powerplant, LETTER, USPS)", func() Study { return NewQuadFig2() }},
		{"quad-fig3", "quadrature paper, Figure 3: time to map vs d for G, ORF, GQ, SR-butterfly (LETTER, USPS, MNIST, LEUKEMIA)", func() Study { return NewQuadFig3() }},
		{"rates-deriv", "Sriperumbudur–Szabó Thms 4–5: sup error of kernel-derivative estimates vs m", func() Study { return NewRatesDeriv() }},
		{"rates-diameter", "Sriperumbudur–Szabó Thm 1: sup error vs |S| at fixed m (√log|S| growth)", func() Study { return NewRatesDiameter() }},
		{"rates-lr", "Sriperumbudur–Szabó Thm 2: L^r error (r = 1, 2, 4) vs m, with the bound", func() Study { return NewRatesLr() }},
		{"rates-sup", "Sriperumbudur–Szabó Thm 1: sup error vs m, Gaussian, d = 1, 2, 5, with the bound", func() Study { return NewRatesSup() }},
	}
}

// Find returns the study called name.
func Find(name string) (Entry, bool) {
	for _, e := range All() {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}
