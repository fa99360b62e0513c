package monitor

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Text generators for the synthetic fixtures. They produce plain text; the
// stream builders in gen_test.go tokenize it and attach logprobs.

var (
	nouns = strings.Fields(`system request buffer window token model budget record table query
		cluster worker shard index report answer question document section chapter river mountain
		village market harvest engine circuit signal protocol decision process method theory result
		sample measure pattern surface border language letter garden station journey evidence claim
		argument memory storage network server client session message channel account invoice ledger
		column schema migration library kernel thread lock queue scheduler deadline estimate forecast
		weather season committee council policy budget reform treaty archive museum painting portrait
		orchestra symphony recipe kitchen bridge tunnel harbor vessel cargo`)
	verbs = strings.Fields(`reads writes checks builds returns rejects accepts measures compares
		describes explains confirms reduces increases replaces removes collects stores sends receives
		follows precedes resolves validates parses formats caches retries schedules cancels merges
		splits counts groups sorts filters maps summarises reviews approves publishes archives
		supports contradicts reveals suggests implies requires`)
	adjs = strings.Fields(`large small quiet sudden careful rapid narrow broad ancient modern
		local remote stable fragile empty complete partial strict loose formal informal distant
		nearby hidden visible primary secondary final initial private public internal external
		critical minor regular unusual obvious subtle gradual frequent rare`)
	advs = strings.Fields(`quickly slowly carefully rarely often usually eventually finally
		clearly partly largely mostly barely nearly simply directly`)
	preps  = strings.Fields(`in on under over across through within without near beside after before`)
	dets   = strings.Fields(`the a this that every each one another some no`)
	firsts = strings.Fields(`Ada Grace Alan Edsger Barbara Donald Margaret Ken Dennis Rob Frances
		Radia Leslie Niklaus Tony John Hedy Katherine Linus Guido Bjarne Yukihiro Anders Sophie
		Marek Ingrid Tomasz Amara Kwame Priya Hiroshi Mei Lucia Mateo Olga Farid Nadia`)
	lasts = strings.Fields(`Lovelace Hopper Turing Dijkstra Liskov Knuth Hamilton Thompson Ritchie
		Pike Allen Perlman Lamport Wirth Hoare McCarthy Lamarr Johnson Torvalds Rossum Stroustrup
		Matsumoto Hejlsberg Wilson Nowak Berg Kowalski Okafor Mensah Sharma Tanaka Chen Rossi
		Garcia Ivanova Haddad Karimi`)
	goTypes = strings.Fields(`string int int64 float64 bool []byte error time.Duration *Config
		map[string]int []string *Record Options`)
	tags = strings.Fields(`math engine ops infra billing search ml data web mobile security
		compliance research design legal sales`)
)

type textGen struct{ r *rand.Rand }

func (g *textGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }
func (g *textGen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *textGen) name() string            { return g.pick(firsts) + " " + g.pick(lasts) }

func (g *textGen) sentence() string {
	var w []string
	switch g.r.IntN(5) {
	case 0:
		w = append(w, g.pick(dets), g.pick(adjs), g.pick(nouns), g.pick(verbs), g.pick(dets), g.pick(nouns))
		if g.chance(0.5) {
			w = append(w, g.pick(preps), "the", g.pick(adjs), g.pick(nouns))
		}
	case 1:
		w = append(w, title(g.pick(advs))+",", g.name(), g.pick(verbs), "that", g.pick(dets),
			g.pick(nouns), g.pick(verbs), g.pick(dets), g.pick(nouns))
	case 2:
		w = append(w, "In", fmt.Sprint(1900+g.r.IntN(125))+",", "the", g.pick(nouns), "of", g.name(),
			g.pick(verbs), fmt.Sprint(2+g.r.IntN(900)), g.pick(nouns)+"s")
	case 3:
		w = append(w, "The", g.pick(nouns), g.pick(preps), "the", g.pick(nouns), g.pick(verbs),
			g.pick(advs), "and", g.pick(verbs), "the", g.pick(adjs), g.pick(nouns))
	default:
		w = append(w, "A", g.pick(adjs), g.pick(nouns), "is", "not", "a", g.pick(nouns)+";", "it",
			g.pick(verbs), "every", g.pick(nouns), g.pick(preps), "the", g.pick(nouns))
	}
	if g.chance(0.04) {
		w = append(w, "very,", "very", g.pick(adjs))
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *textGen) paragraph() string {
	var b strings.Builder
	for i, n := 0, 2+g.r.IntN(5); i < n; i++ {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(g.sentence())
	}
	return b.String()
}

func (g *textGen) prose(minBytes int) string {
	var b strings.Builder
	for b.Len() < minBytes {
		b.WriteString(g.paragraph())
		b.WriteString("\n\n")
	}
	return b.String()
}

func (g *textGen) ident() string {
	n := g.pick(nouns)
	if g.chance(0.4) {
		n += title(g.pick(nouns))
	}
	return n
}

func (g *textGen) stmt(ind string) string {
	v, f := g.ident(), title(g.pick(nouns))
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("%s%s := make([]%s, 0, %d)\n", ind, v, g.pick(goTypes), g.r.IntN(64))
	case 1:
		return fmt.Sprintf("%sfor _, %s := range %s.%ss {\n%s\t%s.%s += %d\n%s}\n",
			ind, v, g.ident(), f, ind, v, f, 1+g.r.IntN(9), ind)
	case 2:
		return fmt.Sprintf("%s%s, err := %s.%s(ctx, %q)\n%sif err != nil {\n%s\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)\n%s}\n",
			ind, v, g.ident(), f, g.pick(nouns), ind, ind, g.pick(verbs), g.pick(nouns), ind)
	case 3:
		return fmt.Sprintf("%sif %s.%s > %d && !%s {\n%s\t%s = %s.%s\n%s}\n",
			ind, v, f, g.r.IntN(1000), g.ident(), ind, g.ident(), v, f, ind)
	case 4:
		return fmt.Sprintf("%s// %s %s the %s before %s.\n", ind, title(g.pick(verbs)),
			g.pick(advs), g.pick(nouns), g.pick(nouns))
	case 5:
		s := fmt.Sprintf("%sswitch %s.%s {\n", ind, v, f)
		for i, n := 0, 2+g.r.IntN(3); i < n; i++ {
			s += fmt.Sprintf("%scase %q:\n%s\treturn %s%d\n", ind, g.pick(nouns), ind, f, i)
		}
		return s + ind + "}\n"
	case 6:
		if g.chance(0.3) {
			line := fmt.Sprintf("%s%s.Add(1)\n", ind, g.ident())
			return line + line // a legitimate duplicated line
		}
		return fmt.Sprintf("%sdefer %s.Close()\n", ind, v)
	case 7:
		return fmt.Sprintf("%s%s.%s = append(%s.%s, %s{ID: %d, Name: %q})\n",
			ind, v, f, v, f, f, g.r.IntN(99999), g.pick(firsts))
	default:
		return fmt.Sprintf("%s%s := %s(%s, %d)\n", ind, v, g.pick(verbs), g.ident(), g.r.IntN(512))
	}
}

func (g *textGen) function() string {
	var b strings.Builder
	name := title(g.pick(verbs)) + title(g.pick(nouns))
	if g.chance(0.2) {
		b.WriteString("// " + strings.Repeat("-", 60) + "\n")
	}
	fmt.Fprintf(&b, "// %s %s the %s.\nfunc %s(ctx context.Context, %s %s) (%s, error) {\n",
		name, g.pick(verbs), g.pick(nouns), name, g.ident(), g.pick(goTypes), g.pick(goTypes))
	for i, n := 0, 3+g.r.IntN(6); i < n; i++ {
		b.WriteString(g.stmt("\t"))
	}
	fmt.Fprintf(&b, "\treturn %s, nil\n}\n\n", g.ident())
	return b.String()
}

func (g *textGen) code(minBytes int) string {
	var b strings.Builder
	b.WriteString("package " + g.pick(nouns) + "\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n")
	for b.Len() < minBytes {
		b.WriteString(g.function())
	}
	return b.String()
}

func (g *textGen) jsonItem(id int, compact bool) string {
	first, last := g.pick(firsts), g.pick(lasts)
	if compact {
		return fmt.Sprintf(`{"id": %d, "sku": "%c-%04d", "qty": %d, "ok": %t}`,
			id, 'A'+g.r.IntN(26), g.r.IntN(10000), 1+g.r.IntN(40), g.chance(0.8))
	}
	return fmt.Sprintf(`{"id": %d, "name": "%s %s", "email": "%s.%s@example.com", "age": %d, "score": %.1f, "active": %t, "tags": ["%s", "%s"]}`,
		id, first, last, strings.ToLower(first), strings.ToLower(last), 18+g.r.IntN(60),
		float64(g.r.IntN(1000))/10, g.chance(0.7), g.pick(tags), g.pick(tags))
}

func (g *textGen) json(minBytes int) string {
	var b strings.Builder
	compact := g.chance(0.5)
	id := 1 + g.r.IntN(500)
	b.WriteString("[\n")
	for b.Len() < minBytes {
		b.WriteString("  " + g.jsonItem(id, compact) + ",\n")
		id++
	}
	b.WriteString("  " + g.jsonItem(id, compact) + "\n]\n")
	return b.String()
}

func (g *textGen) markdown(minBytes int) string {
	var b strings.Builder
	for b.Len() < minBytes {
		fmt.Fprintf(&b, "## %s %s\n\n%s\n\n", title(g.pick(adjs)), title(g.pick(nouns)), g.paragraph())
		switch g.r.IntN(3) {
		case 0:
			cols := 3 + g.r.IntN(4)
			var hdr, sep, row []string
			for i := 0; i < cols; i++ {
				hdr, sep = append(hdr, title(g.pick(nouns))), append(sep, "---")
			}
			fmt.Fprintf(&b, "| %s |\n|%s|\n", strings.Join(hdr, " | "), strings.Join(sep, "|"))
			for r := 0; r < 2+g.r.IntN(5); r++ {
				row = row[:0]
				for i := 0; i < cols; i++ {
					row = append(row, fmt.Sprint(g.r.IntN(5000)))
				}
				fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
			}
		case 1:
			for i := 1; i <= 2+g.r.IntN(4); i++ {
				fmt.Fprintf(&b, "%d. **%s**: %s\n", i, title(g.pick(nouns)), g.sentence())
			}
		default:
			b.WriteString("```go\n" + g.stmt("") + g.stmt("") + "```\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// junk returns one piece of high-temperature gibberish: what sampling far
// down a flat distribution over a multilingual BPE vocabulary produces —
// code fragments, numbers, and letter fragments (half of them glued to the
// previous piece) in Latin or in one of several other alphabets.
func (g *textGen) junk() string {
	alphabets := []string{"bcdfghjklmnprstvwxzaeiouy", "бвгдежзиклмнопрстуфхцчшщыэюя",
		"αβγδεζηθικλμνξοπρστυφχψω", "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
		"あいうえおかきくけこさしすせそたちつてと", "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"}
	punct := []string{"));", ".sql", "()->", "::", "_{", "\\n", "\"}", "?>", "';", "[[", "%%", "=>", "#{", "</", "0x"}
	k := g.r.IntN(10)
	switch {
	case k < 2:
		return g.pick(punct)
	case k < 3:
		return fmt.Sprint(g.r.IntN(100000))
	}
	a := []rune(alphabets[0])
	if k >= 6 {
		a = []rune(g.pick(alphabets))
	}
	var b strings.Builder
	if g.chance(0.5) {
		b.WriteByte(' ')
	}
	for i, n := 0, 2+g.r.IntN(5); i < n; i++ {
		r := a[g.r.IntN(len(a))]
		if i == 0 && r < 128 && g.chance(0.2) {
			r -= 32 // capitalised
		}
		b.WriteRune(r)
	}
	return b.String()
}

// title upper-cases the first letter of an ASCII word.
func title(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}
