package main

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/rlm-sandbox/rlm/taskset"
)

// The goals of issue 19.
const (
	goalMedian = 1.5
	goalMax    = 10.0
)

func report(w io.Writer, cells []*cell, floors map[string]*floor, runs int, loadStart, loadEnd string) {
	fmt.Fprintf(w, "taskset whole-process benchmark: %s, commit %s\n", machine(), strings.TrimSpace(output("git", "rev-parse", "--short", "HEAD")))
	fmt.Fprintf(w, "load (/proc/loadavg) at start %s, at end %s; median of %d runs, rlm and native alternating\n", loadStart, loadEnd, runs)
	fmt.Fprintf(w, "x = rlm wall time / native wall time, whole processes; beyond floor = (rlm - rlm floor) / (native - native floor)\n")
	fmt.Fprintf(w, "floors (an empty cell, whole process, over server.log):")
	for _, lang := range taskset.Langs {
		if f := floors[lang]; f != nil {
			fmt.Fprintf(w, "  %s: rlm %.1f ms, native %.1f ms", lang, ms(f.rlmT.median()), ms(f.natT.median()))
		}
	}
	fmt.Fprintln(w)
	var measured []*cell
	for _, lang := range taskset.Langs {
		f := floors[lang]
		if f == nil {
			continue
		}
		lc := slices.DeleteFunc(slices.Clone(cells), func(x *cell) bool { return x.lang != lang || x.skip != "" })
		measured = append(measured, lc...)
		table(w, lang, lc, f)
	}
	slices.SortFunc(measured, func(a, b *cell) int { return cmp.Compare(b.ratio(), a.ratio()) })
	fmt.Fprintf(w, "\nworst 5:")
	for _, x := range measured[:min(5, len(measured))] {
		fmt.Fprintf(w, "  %s %.1fx;", x.key(), x.ratio())
	}
	fmt.Fprintln(w)
	var skipped []string
	for _, x := range cells {
		if x.skip != "" {
			skipped = append(skipped, fmt.Sprintf("  %s: %s", x.key(), x.skip))
		}
	}
	fmt.Fprintf(w, "\nskipped: %d\n", len(skipped))
	for _, s := range skipped {
		fmt.Fprintln(w, s)
	}
}

// table prints one language's cells, then its median and max ratio and the cells over 10×.
func table(w io.Writer, lang string, cells []*cell, f *floor) {
	const row = "%-4s  %-30s  %-18s  %8s  %9s  %7s  %12s  %s\n"
	fmt.Fprintf(w, "\n"+row, "lang", "task", "calls", "rlm ms", "native ms", "x", "beyond floor", "")
	var ratios []float64
	for _, x := range cells {
		r := x.ratio()
		ratios = append(ratios, r)
		flag := ""
		switch {
		case r > goalMax:
			flag = "> 10x"
		case r > goalMedian:
			flag = "> 1.5x"
		}
		fmt.Fprintf(w, row, lang, x.task.Name, x.access, fmt.Sprintf("%.1f", ms(x.rlmT.median())), fmt.Sprintf("%.1f", ms(x.natT.median())),
			fmt.Sprintf("%.2f", r), beyond(x, f), flag)
	}
	if len(cells) == 0 {
		fmt.Fprintf(w, "%s: no cell measured\n", lang)
		return
	}
	s := slices.Clone(ratios)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	worst := cells[slices.Index(ratios, s[len(s)-1])]
	over := 0
	for _, r := range ratios {
		if r > goalMedian {
			over++
		}
	}
	fmt.Fprintf(w, "%s: %d cells; median %.2fx (goal ≤ %.1fx: %s); max %.2fx, %s (goal ≤ %.0fx: %s); %d over %.1fx\n",
		lang, len(cells), med, goalMedian, verdict(med <= goalMedian), s[len(s)-1], worst.task.Name, goalMax, verdict(s[len(s)-1] <= goalMax), over, goalMedian)
	for _, x := range cells {
		if x.ratio() > goalMax {
			fmt.Fprintf(w, "  over 10x: %s %.1fx: %s\n", x.task.Name, x.ratio(), reason(x, f))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func beyond(x *cell, f *floor) string {
	nat := overhead(x.natT.median(), f.natT.median())
	if nat < 1 {
		return "-"
	}
	return fmt.Sprintf("%.2f", overhead(x.rlmT.median(), f.rlmT.median())/nat)
}

// reason says what a cell over 10× spends its time on, as far as the times show it.
func reason(x *cell, f *floor) string {
	rlm, nat := ms(x.rlmT.median()), ms(x.natT.median())
	rf, nf := ms(f.rlmT.median()), ms(f.natT.median())
	if nat < rf {
		return fmt.Sprintf("start-up dominates: native takes %.0f ms in all, less than rlm's floor of %.0f ms; rlm spends %.0f ms beyond it", nat, rf, rlm-rf)
	}
	why := fmt.Sprintf("the engine: rlm spends %.0f ms beyond its floor, native %.0f ms beyond its own (calls: %s)", rlm-rf, nat-nf, x.access)
	if m := callback.FindAllStringSubmatch(x.task.Cells[x.lang], -1); x.lang == "go" && m != nil {
		var fns []string
		for _, f := range m {
			if !slices.Contains(fns, f[1]) {
				fns = append(fns, f[1])
			}
		}
		why += "; compiled " + strings.Join(fns, ", ") + " call the cell's func literal back once per character, each call interpreted"
	}
	return why
}

// callback finds a library function given a func literal of a rune: strings.FieldsFunc(s,
// func(r rune) bool {…}) calls it once per character.
var callback = regexp.MustCompile(`(\w+\.\w+Func)\(.*?,\s*func\(\w+ rune\)`)
