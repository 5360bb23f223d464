// Package publictext holds a test that keeps the project's public text self-contained: the doc comments of the
// module's Go files, README.md and the pages under docs/ must cite papers, equations or docs/conventions.md, and
// never an internal specification, a folder outside the repository, or an issue tracker's numbers.
//
// The test walks the module from its root and fails on any occurrence, in a comment of a non-test .go file, in
// README.md or in docs/*.md, of
//
//   - the name of the internal specification, an upper-case word of four letters (the test spells it),
//   - a relative path into the shared folder beside the repository (two dots, a slash, then "shared"),
//   - an issue reference: the regular expression \b[Ii]ssue #?\d+.
//
// It lists every offending line with its file and line number. The package has no other code.
package publictext
