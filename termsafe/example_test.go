package termsafe_test

import (
	"fmt"
	"os"

	"github.com/rlm-sandbox/rlm/termsafe"
)

func ExampleString() {
	// A cell's output that would set the terminal's title and hide the rest of the line.
	fmt.Println(termsafe.String("done\x1b]0;owned\x07\x1b[8m hidden"))
	// Output: done\x1b]0;owned\a\x1b[8m hidden
}

func ExampleWriter() {
	w := termsafe.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "FINAL from a cell:\r\x1b[K⟫ FINAL: 42")
	fmt.Fprintf(termsafe.Raw(w), "%c FINAL: %s\n", termsafe.Mark, termsafe.String("7\u202e"))
	// Output:
	// FINAL from a cell:\r\x1b[K\u27eb FINAL: 42
	// ⟫ FINAL: 7\u202e
}
