package evalset

import (
	"regexp"
	"strconv"
	"strings"
)

// The solutions are templates: {{RE}} is a regex literal for the task's key or category,
// {{A}} and {{B}} are the two compared categories, {{LABELS}} the list of categories.
var solutions = map[string]map[string]string{
	"go": {
		KindNeedle: `import "strings"

hits := search(context, {{RE}})
fmt.Println("hits:", len(hits))
if len(hits) == 0 {
	FINAL("not found")
} else {
	words := strings.Fields(hits[0].Text)
	FINAL(words[len(words)-1])
}
`,
		KindCount: `n := count(context, {{RE}})
fmt.Println("count:", n)
FINAL(n)
`,
		KindMostFrequent: `labels := []string{ {{LABELS}} }
best, bestN := "", -1
for _, label := range labels {
	n := count(context, "\\| "+label+" \\|")
	fmt.Println(label, n)
	if n > bestN {
		best, bestN = label, n
	}
}
FINAL(best)
`,
		KindCompare: `a := count(context, "\\| "+{{A}}+" \\|")
b := count(context, "\\| "+{{B}}+" \\|")
fmt.Println({{A}}, a, {{B}}, b)
switch {
case a > b:
	FINAL({{A}})
case a < b:
	FINAL({{B}})
default:
	FINAL("same")
}
`,
	},
	"js": {
		KindNeedle: `const hits = search(context, {{RE}});
print("hits:", hits.length);
if (hits.length === 0) {
  FINAL("not found");
} else {
  FINAL(hits[0].text.split(" ").pop());
}
`,
		KindCount: `const n = count(context, {{RE}});
print("count:", n);
FINAL(n);
`,
		KindMostFrequent: `const labels = [{{LABELS}}];
let best = "", bestN = -1;
for (const label of labels) {
  const n = count(context, "\\| " + label + " \\|");
  print(label, n);
  if (n > bestN) {
    best = label;
    bestN = n;
  }
}
FINAL(best);
`,
		KindCompare: `const a = count(context, "\\| " + {{A}} + " \\|");
const b = count(context, "\\| " + {{B}} + " \\|");
print({{A}}, a, {{B}}, b);
FINAL(a > b ? {{A}} : a < b ? {{B}} : "same");
`,
	},
}

func solution(task Task, lang string) string {
	tmpl := solutions[lang][task.Kind]
	if tmpl == "" || len(task.Labels) == 0 {
		return ""
	}
	var re string
	if task.Kind == KindNeedle {
		re = "special magic number for " + regexp.QuoteMeta(task.Labels[0]) + " is [0-9]+"
	} else {
		re = `\| ` + regexp.QuoteMeta(task.Labels[0]) + ` \|`
	}
	quoted := make([]string, len(task.Labels))
	for i, l := range task.Labels {
		quoted[i] = strconv.Quote(l)
	}
	b := quoted[0]
	if len(quoted) > 1 {
		b = quoted[1]
	}
	return strings.NewReplacer("{{RE}}", strconv.Quote(re), "{{A}}", quoted[0], "{{B}}", b,
		"{{LABELS}}", strings.Join(quoted, ", ")).Replace(tmpl)
}
