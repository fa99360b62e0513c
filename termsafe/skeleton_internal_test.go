package termsafe

import (
	"testing"
	"unicode/utf8"
)

// TestSkeletonTable: the generated table is sorted (skeletonOf searches it) and maps each
// character to printable ASCII or to Mark.
func TestSkeletonTable(t *testing.T) {
	for i, e := range skeletons {
		if i > 0 && skeletons[i-1].r >= e.r {
			t.Fatalf("skeletons[%d] = %U follows %U: not sorted", i, e.r, skeletons[i-1].r)
		}
		if e.s == string(Mark) {
			continue
		}
		for j := 0; j < len(e.s); j++ {
			if e.s[j] < 0x20 || e.s[j] > 0x7e {
				t.Errorf("%U reads as %q: neither printable ASCII nor the mark", e.r, e.s)
			}
		}
	}
	for _, tc := range []struct {
		r    rune
		want string
	}{
		{'r', "r"}, {'m', "rn"}, {'1', "l"}, {'\u2113', "l"}, {'\u0196', "l"}, {'\u212f', "e"},
		{'\ua4fd', ":"}, {'\u02f8', ":"}, {'\u23a1', "["}, {'\u27e6', "["}, {'\u3011', "]"},
		{'\u23f5', string(Mark)}, {'\u02c3', string(Mark)}, {'\u226b', string(Mark)}, {'\u00a0', " "},
		{'\uff52', "r"}, {'\U0001d42b', "r"}, {'\u0155', "r"}, {'日', "日"}, {'«', "«"},
	} {
		if got := skeletonOf(tc.r); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("skeletonOf(%q) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
