package validator_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/validator"
)

// redteamLevels builds k levels of a parenthesised arrow parameter list nested in a default
// value, each level at a statement start behind `debugger` and a line break: goja's ASI makes the
// '(' start an expression (and re-read the list when => follows), while the pre-scan takes the
// word `debugger` for a name that ends an expression and the '(' for a call.
func redteamLevels(k int, before string) string {
	s := "0"
	for i := 0; i < k; i++ {
		s = "(a = () => {" + before + s + "\n}) => 0"
	}
	return before + s
}

// TestRedteamJSReparseHidden: set RT_K to the levels (default 16).
func TestRedteamJSReparseHidden(t *testing.T) {
	k := 16
	if v, err := strconv.Atoi(os.Getenv("RT_K")); err == nil {
		k = v
	}
	for _, before := range []string{"debugger\n", "x++\n", ";"} {
		src := redteamLevels(k, before)
		start := time.Now()
		res, err := validator.Validate(validator.JS, "rt.js", []byte(src), validator.Policy{})
		took := time.Since(start)
		rule := "none"
		if err == nil && len(res.Findings) > 0 {
			rule = fmt.Sprintf("%s: %s", res.Findings[0].Rule, res.Findings[0].Message)
		}
		t.Logf("before %q, k=%d, %d bytes: %v, first finding %s, err %v", strings.TrimSpace(before), k, len(src), took, rule, err)
	}
}
