package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The book's vocabulary, most frequent first (draws favour the start of each list).
var (
	functionWords = strings.Fields(`the and of to a in was he she it that her his with for on as at
		had but they from not by were all their there one when which into out up them would then over`)
	contentWords = strings.Fields(`river lantern house night light road village morning door window
		water mountain winter garden letter silence voice stone harbour forest candle bridge evening
		shadow fire bell field market tower ship wind rain storm snow valley island mill chapel orchard
		kitchen table chair stair cellar attic meadow hill path gate wall roof chimney clock book map
		coin knife rope basket bread salt wine cup plate lamp mirror ribbon coat boots hat cloak
		walked looked turned opened closed waited listened whispered laughed remembered carried
		followed answered wondered watched crossed climbed found lost kept left heard knew felt thought
		old small quiet cold dark bright long narrow heavy empty distant strange warm grey silver
		golden broken hidden slow sudden careful patient tired gentle`)
	people = []string{"Zoë", "Renée", "Åsa", "Mateo", "the ferryman", "old Tomás", "the miller"}
)

// genBook writes book.txt: about 2 MB of prose in 40 chapters headed "CHAPTER N", paragraphs
// wrapped at 72 columns and separated by blank lines, with curly quotes, em dashes and names
// with non-ASCII letters. Chapter 27 holds the sentence "The secret code is AMBER-7319."
func (d *Data) genBook(r *rand.Rand, w *bufio.Writer) {
	var b strings.Builder
	b.WriteString("THE LANTERN AT THE FERRY\n\nA novel\n\n")
	for ch := 1; ch <= 40; ch++ {
		fmt.Fprintf(&b, "\nCHAPTER %d\n\n", ch)
		paras := 60 + r.IntN(80)
		for p := range paras {
			var para strings.Builder
			for s := range 3 + r.IntN(8) {
				if s > 0 {
					para.WriteByte(' ')
				}
				if ch == 27 && p == paras/2 && s == 1 {
					para.WriteString("The secret code is AMBER-7319. ")
				}
				para.WriteString(sentence(r))
			}
			wrap(&b, para.String(), 72)
			b.WriteString("\n")
		}
	}
	w.WriteString(b.String())
	d.Book = b.String()
}

func sentence(r *rand.Rand) string {
	n := 6 + r.IntN(15)
	words := make([]string, n)
	for i := range words {
		switch k := r.IntN(100); {
		case k < 45:
			words[i] = pick(r, functionWords, 2)
		case k < 97:
			words[i] = pick(r, contentWords, 1.7)
		default:
			words[i] = people[r.IntN(len(people))]
		}
		if i > 2 && i < n-2 && r.IntN(12) == 0 {
			words[i] += ","
		}
	}
	if r.IntN(15) == 0 {
		words[n/2] += " —"
	}
	s := strings.Join(words, " ")
	s = strings.ToUpper(s[:1]) + s[1:]
	end := []string{".", ".", ".", "!", "?"}[r.IntN(5)]
	if r.IntN(10) == 0 {
		return "“" + s + end + "”"
	}
	return s + end
}

// wrap writes text as lines of at most width characters, breaking at spaces.
func wrap(b *strings.Builder, text string, width int) {
	line := 0
	for i, word := range strings.Fields(text) {
		n := len([]rune(word))
		if i > 0 && line+1+n > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	b.WriteByte('\n')
}
