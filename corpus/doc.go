// Package corpus embeds the escape attempts and benign programs under corpus/ and parses the
// expectation in each file's first line (see README.md for the format and the taxonomy).
//
// The validator tests and fuzz targets load it today; the engine and containment tests run the
// same files through the sandbox.
package corpus
