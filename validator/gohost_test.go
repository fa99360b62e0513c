package validator_test

import (
	"testing"

	"github.com/rlm-sandbox/rlm/source"
)

// TestGoHostValues: the host's own memory (package variables, and what crc32.MakeTable and
// Location return) may be read but never reach a place that writes through it or hands it back
// (issue 17, finding 6b: json.Unmarshal(b, unicode.Letter) passed, because every argument of a
// package function counted as read-only).
func TestGoHostValues(t *testing.T) {
	const imp = "import (\"bytes\"; \"container/heap\"; \"encoding/base64\"; \"encoding/json\"; \"errors\"; \"fmt\"; \"hash/crc32\"; \"io\"; \"slices\"; \"sort\"; \"strconv\"; \"strings\"; \"time\"; \"unicode\")\nvar b []byte\nvar err error\nvar h heap.Interface\nvar s []*unicode.RangeTable\nvar t time.Time\n"
	const line = "7:"
	checkRules(t, source.Go, []ruleCase{
		// Functions that write through an argument, or keep it within the cell's reach.
		{imp + "json.Unmarshal(b, unicode.Letter)", []string{line + "19 package-var"}},
		{imp + "json.Unmarshal(b, crc32.IEEETable)", []string{line + "19 package-var"}},
		{imp + "json.Unmarshal(b, (base64.StdEncoding))", []string{line + "19 package-var"}},
		{imp + "fmt.Sscan(\"1\", unicode.Upper)", []string{line + "16 package-var"}},
		{imp + "errors.As(err, io.EOF)", []string{line + "16 package-var"}},
		{imp + "heap.Push(h, unicode.Letter)", []string{line + "14 package-var"}},
		{imp + "s = slices.Insert(s, 0, unicode.Letter)", []string{line + "25 package-var"}},
		{imp + "sort.Slice(unicode.CaseRanges, func(i, j int) bool { return i > j })", []string{line + "12 package-var"}},
		{imp + "io.WriteString(io.Discard, \"x\")", []string{line + "16 package-var"}},
		{imp + "fmt.Fprintln(io.Discard, 1)", []string{line + "14 package-var"}},
		{imp + "var w bytes.Buffer\nio.Copy(&w, bytes.NewReader(crc32.IEEETable[:]))", []string{"8:29 package-var"}},
		// Methods that write their receiver, and method arguments (whose callee is unknown).
		{imp + "io.Discard.Write(b)", []string{line + "1 package-var"}},
		{imp + "t = t.In(time.UTC)", []string{line + "10 package-var"}},
		// Calls whose result can be the host's own memory, used as a value.
		{imp + "tab := crc32.MakeTable(crc32.IEEE)\n(*tab)[1] = 7", []string{line + "8 package-var"}},
		{imp + "loc := t.Location()\n*loc = *time.FixedZone(\"X\", 3600)", []string{line + "8 package-var"}},
		{imp + "*t.Location() = time.Location{}", []string{line + "2 package-var"}},
		{imp + "json.Unmarshal(b, crc32.MakeTable(crc32.Castagnoli))", []string{line + "19 package-var"}},
		// Reads pass.
		{imp + "_ = unicode.Is(unicode.Han, 'x') || unicode.In('x', unicode.Latin, unicode.Greek) || unicode.IsOneOf(s, 'x')", nil},
		{imp + "fmt.Println(base64.StdEncoding.EncodeToString(b), base64.URLEncoding.Strict().EncodedLen(3))", nil},
		{imp + "r := base64.NewDecoder(base64.StdEncoding, strings.NewReader(\"aGk=\"))\n_ = r", nil},
		{imp + "_ = errors.Is(err, io.EOF) || err == io.EOF || errors.Unwrap(err) == strconv.ErrRange", nil},
		{imp + "switch err {\ncase io.EOF, io.ErrUnexpectedEOF:\n}", nil},
		{imp + "fmt.Println(strconv.ErrRange, fmt.Errorf(\"read: %w\", io.EOF), fmt.Sprint(time.UTC))", nil},
		{imp + "t = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)\nt2, _ := time.ParseInLocation(time.DateOnly, \"2026-01-02\", time.Local)\n_ = t2", nil},
		{imp + "fmt.Println(t.Location(), t.Location().String(), time.Date(2026, 1, 2, 0, 0, 0, 0, t.Location()))", nil},
		{imp + "_ = t.Location() == time.UTC", nil},
		{imp + "_ = crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) + crc32.Checksum(b, crc32.IEEETable)", nil},
		{imp + "_ = strings.ToUpperSpecial(unicode.TurkishCase, \"i\") + string(unicode.TurkishCase.ToUpper('i'))", nil},
		{imp + "out, _ := json.Marshal(unicode.Upper)\n_ = out", nil},
	})
}
