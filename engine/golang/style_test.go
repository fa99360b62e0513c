package golang

import "testing"

// TestModelStyle runs constructs models write often, each in a fresh engine.
func TestModelStyle(t *testing.T) {
	cases := []struct{ src, want string }{
		{"import (\n\t\"fmt\"\n\t\"sort\"\n)\ntype kv struct {\n\tk string\n\tv int\n}\ncounts := map[string]int{\"a\": 2, \"b\": 5}\nvar list []kv\nfor k, v := range counts {\n\tlist = append(list, kv{k, v})\n}\nsort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v })\nfmt.Println(list)", "[{b 5} {a 2}]\n"},
		{"import \"strings\"\nvar sb strings.Builder\nfor i := range 3 {\n\tsb.WriteString(strings.Repeat(\"x\", i))\n}\nprint(sb.String(), sb.Len())", "xxx 3\n"},
		{"x, y := 1, 2\nx, y = y, x\nif x > y {\n\tprint(\"swapped\")\n} else {\n\tprint(\"no\")\n}", "swapped\n"},
		{"import \"fmt\"\ndefer fmt.Println(\"done\")\nfmt.Println(\"work\")", "work\ndone\n"},
		{"xs := []int{4, 5, 6}\nfor i := range len(xs) {\n\tprint(i, xs[i])\n}", "0 4\n1 5\n2 6\n"},
		{"n := 0\nfor i, c := range \"héllo\" {\n\tif c == 'l' {\n\t\tn += i\n\t}\n}\nprint(n)", "7\n"},
		{"a := []int{1, 2, 3}\nprint(min(len(a), 10), max(0, len(a)-5))", "3 0\n"},
		{"import (\n\t\"cmp\"\n\t\"slices\"\n)\ntype person struct {\n\tname string\n\tage int\n}\npeople := []person{{\"b\", 30}, {\"a\", 20}}\nslices.SortFunc(people, func(a, b person) int { return cmp.Compare(a.age, b.age) })\nyoung := slices.IndexFunc(people, func(p person) bool { return p.age < 25 })\nprint(people, young)", "[{a 20} {b 30}] 0\n"},
		{"type person struct{ name string }\nfunc Filter[T any](xs []T, keep func(T) bool) []T {\n\tvar out []T\n\tfor _, x := range xs {\n\t\tif keep(x) {\n\t\t\tout = append(out, x)\n\t\t}\n\t}\n\treturn out\n}\nps := Filter([]person{{\"a\"}, {\"bb\"}}, func(p person) bool { return len(p.name) > 1 })\nps = append(ps, person{\"c\"})\nprint(ps)", "[{bb} {c}]\n"},
		{"type Stack[T any] struct{ items []T }\nfunc (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }\ns := &Stack[int]{}\ns.Push(3)\ns.Push(4)\nprint(len(s.items), s.items[1])", "2 4\n"},
		{"import \"encoding/json\"\nb, _ := json.MarshalIndent(map[string][]int{\"a\": {1}}, \"\", \" \")\nprint(string(b))", "{\n \"a\": [\n  1\n ]\n}\n"},
		{"import \"regexp\"\nre := regexp.MustCompile(`(\\w+)=(\\d+)`)\ntotal := 0\nfor _, m := range re.FindAllStringSubmatch(\"a=1 b=22\", -1) {\n\ttotal += len(m[2])\n}\nprint(total)", "3\n"},
		{"res := llm_query_batched([]string{\"a\", \"b\"})\nprint(len(res))", ""},
		{"import (\n\t\"errors\"\n\t\"fmt\"\n)\nerrNo := errors.New(\"no\")\nfind := func(k string) (int, error) {\n\tif k == \"\" {\n\t\treturn 0, errNo\n\t}\n\treturn len(k), nil\n}\nif _, err := find(\"\"); errors.Is(err, errNo) {\n\tfmt.Println(\"not found:\", err)\n}", "not found: no\n"},
		{"total := 0\nadd := func(n int) { total += n }\nfor _, n := range []int{1, 2, 3} {\n\tadd(n)\n}\nprint(total)", "6\n"},
		{"import \"strings\"\nwords := strings.Fields(\"b a c a\")\nseen := map[string]bool{}\nuniq := []string{}\nfor _, w := range words {\n\tif !seen[w] {\n\t\tseen[w] = true\n\t\tuniq = append(uniq, w)\n\t}\n}\nprint(strings.Join(uniq, \",\"))", "b,a,c\n"},
		{"import \"fmt\"\nswitch n := 7; {\ncase n > 5:\n\tfmt.Println(\"big\")\ndefault:\n\tfmt.Println(\"small\")\n}", "big\n"},
		{"import (\n\t\"maps\"\n\t\"slices\"\n)\nm := map[string]int{\"x\": 1, \"y\": 2}\nfor _, k := range slices.Sorted(maps.Keys(m)) {\n\tprint(k, m[k])\n}\nvals := slices.Collect(maps.Values(m))\nslices.Sort(vals)\nprint(vals, slices.Max(vals))", "x 1\ny 2\n[1 2] 2\n"},
		{"import \"fmt\"\ntype Shape interface{ fmt.Stringer }\ntype c struct{ n int }\nfunc (x c) String() string { return fmt.Sprint(\"C\", x.n) }\nshapes := []Shape{c{1}, c{2}}\nfmt.Println(shapes, shapes[1])", "[C1 C2] C2\n"},
		{"import \"fmt\"\nbest, bestN := \"\", -1\nfor w, n := range map[string]int{\"a\": 1, \"b\": 3} {\n\tif n > bestN {\n\t\tbest, bestN = w, n\n\t}\n}\nFINAL(fmt.Sprintf(\"%s=%d\", best, bestN))", ""},
	}
	for i, c := range cases {
		s := newTestSession(t, Config{}, "")
		r := s.run(c.src)
		if r.Err != nil || (c.want != "" && r.Stdout != c.want) {
			t.Errorf("case %d:\n%s\n got: %s\nwant: %q", i, c.src, describe(r), c.want)
		}
	}
}
