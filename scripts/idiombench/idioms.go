package main

import "strings"

// An idiom is one cell written the way a model writes it, over the input in the variable data,
// that prints one line: its checksum. Py is the same computation in Python over data (a str);
// it prints the same line.
//
// A Go idiom is Imports, Decls (types and functions) and Body (statements). The rlm cell is
// all three, in that order, as a model would send it; the native program puts Decls at package
// level and Body in a function of data. A JS idiom is Body: the rlm cell as it is, and under
// node the body of a function of data, with print writing a line.
type idiom struct {
	Name    string
	Lang    string // "go" or "js"
	Input   string // "log", "csv" or "jsonl" (inputs.go)
	Imports []string
	Decls   string
	Body    string
	Py      string
	Note    string // what the cell does besides its idiom, or how its size was chosen
	// Div divides n for this idiom (0 = 1): it runs over n/Div and 4n/Div bytes. The idioms
	// that take rlm over a second at 4n = 4 MiB have one, so that the default run stays under
	// three minutes on two cores; -nodiv runs every idiom at n.
	Div int
}

func (d idiom) div() int { return max(d.Div, 1) }

// cell is the source rlm runs.
func (d idiom) cell() string {
	if d.Lang == "js" {
		return d.Body
	}
	var b strings.Builder
	b.WriteString("import (\n")
	for _, p := range d.Imports {
		b.WriteString("\t\"" + p + "\"\n")
	}
	b.WriteString(")\n\n")
	if d.Decls != "" {
		b.WriteString(d.Decls + "\n\n")
	}
	b.WriteString(d.Body)
	return b.String()
}

// The Python computations shared by a Go idiom and a JS idiom.
const (
	pyRunes = `runes = non_ascii = total = 0
for ch in data:
    runes += 1
    c = ord(ch)
    if c > 127:
        non_ascii += 1
    total += c
print(runes, non_ascii, total)`

	pyIndex = `spaces = digits = eqs = 0
for i in range(len(data)):
    c = data[i]
    if c == " ":
        spaces += 1
    elif "0" <= c <= "9":
        digits += 1
    elif c == "=":
        eqs += 1
print(spaces, digits, eqs)`

	pyLines = `lines = data.split("\n")
errs = slow = tokyo = 0
for line in lines:
    if " ERROR " in line:
        errs += 1
for line in lines:
    if "latency_ms=19" in line:
        slow += 1
for i, line in enumerate(lines):
    if i % 2 == 0 and line.endswith("東京"):
        tokyo += 1
nums = [i * 7 % 1000 for i in range(len(lines))]
total = 0
for v in nums:
    total += v
print(len(lines), errs, slow, tokyo, total)`

	pyByReq = `by_req = {}
for line in data.split("\n"):
    i = line.find("req=")
    if i >= 0:
        by_req[line[i + 4:i + 12]] = line
errs = digits = 0
for rid, line in by_req.items():
    if " ERROR " in line:
        errs += 1
    digits += ord(rid[-1]) - 48
print(len(by_req), errs, digits)`

	pySplitCSV = `rows = cells = noted = 0
for line in data.split("\n")[1:]:
    if line == "":
        continue
    parts = line.split(",")
    rows += 1
    cells += len(parts)
    if parts[5] != "":
        noted += 1
print(rows, cells, noted)`

	pyWordCount = `counts = {}
for line in data.split("\n"):
    for w in line.split():
        k = w.lower()
        counts[k] = counts.get(k, 0) + 1
total = most = 0
for n in counts.values():
    total += n
    most = max(most, n)
print(len(counts), total, most)`

	pyUsers = `matches = re.findall(r"user=u[0-9]+", data)
users = set()
for m in matches:
    users.add(m)
print(len(matches), len(users))`

	pyKeyValues = `sums = {"status": 0, "latency_ms": 0}
for key, val in re.findall(r"(status|latency_ms)=([0-9]+)", data):
    sums[key] += int(val)
print(sums["status"], sums["latency_ms"])`

	pyOrders = `orders = []
for line in data.strip().split("\n")[1:]:
    p = line.split(",")
    orders.append((int(p[0]), int(p[3]), p[2]))
orders.sort(key=lambda o: (-o[1], o[0]))
print(len(orders), orders[0][0], orders[len(orders) // 2][0], orders[-1][0], orders[0][2])`

	pyJSON = `n = failed = latency = tags = 0
for line in data.split("\n"):
    if not line:
        continue
    ev = json.loads(line)
    n += 1
    if ev["status"] >= 500:
        failed += 1
    latency += ev["latency_ms"]
    tags += len(ev["tags"])
print(n, failed, latency, tags)`
)

var goIdioms = []idiom{
	{
		Name: "range-string", Div: 4, Input: "log", Imports: []string{"fmt"},
		Body: `runes, nonASCII, sum := 0, 0, 0
for _, r := range data {
	runes++
	if r > 127 {
		nonASCII++
	}
	sum += int(r)
}
fmt.Println(runes, nonASCII, sum)`,
		Py: pyRunes,
	},
	{
		Name: "range-bytes", Input: "log", Imports: []string{"fmt"},
		Body: `lines, digits, sum := 0, 0, 0
for _, c := range []byte(data) {
	if c == '\n' {
		lines++
	} else if c >= '0' && c <= '9' {
		digits++
	}
	sum += int(c)
}
fmt.Println(lines, digits, sum)`,
		Py: `lines = digits = total = 0
for c in data.encode():
    if c == 10:
        lines += 1
    elif 48 <= c <= 57:
        digits += 1
    total += c
print(lines, digits, total)`,
	},
	{
		Name: "range-runes", Div: 4, Input: "log", Imports: []string{"fmt", "unicode"},
		Body: `rs := []rune(data)
upper, repeats := 0, 0
for i, r := range rs {
	if unicode.IsUpper(r) {
		upper++
	}
	if i > 0 && rs[i-1] == r {
		repeats++
	}
}
fmt.Println(len(rs), upper, repeats)`,
		Py: `rs = list(data)
upper = repeats = 0
for i, r in enumerate(rs):
    if r.isupper():
        upper += 1
    if i > 0 and rs[i - 1] == r:
        repeats += 1
print(len(rs), upper, repeats)`,
	},
	{
		Name: "range-slice", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "three passes over the lines (strings.Contains, HasSuffix) and one over an []int",
		Body: `lines := strings.Split(data, "\n")
errs, slow, tokyo := 0, 0, 0
for _, line := range lines {
	if strings.Contains(line, " ERROR ") {
		errs++
	}
}
for _, line := range lines {
	if strings.Contains(line, "latency_ms=19") {
		slow++
	}
}
for i, line := range lines {
	if i%2 == 0 && strings.HasSuffix(line, "東京") {
		tokyo++
	}
}
nums := make([]int, len(lines))
for i := range nums {
	nums[i] = i * 7 % 1000
}
total := 0
for _, v := range nums {
	total += v
}
fmt.Println(len(lines), errs, slow, tokyo, total)`,
		Py: pyLines,
	},
	{
		Name: "range-map", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "builds a map of request id to line, then ranges over it",
		Body: `byReq := map[string]string{}
for _, line := range strings.Split(data, "\n") {
	if i := strings.Index(line, "req="); i >= 0 {
		byReq[line[i+4:i+12]] = line
	}
}
errs, digits := 0, 0
for id, line := range byReq {
	if strings.Contains(line, " ERROR ") {
		errs++
	}
	digits += int(id[len(id)-1] - '0')
}
fmt.Println(len(byReq), errs, digits)`,
		Py: pyByReq,
	},
	{
		Name: "index-string", Input: "log", Imports: []string{"fmt"},
		Body: `spaces, digits, eqs := 0, 0, 0
for i := 0; i < len(data); i++ {
	switch c := data[i]; {
	case c == ' ':
		spaces++
	case c >= '0' && c <= '9':
		digits++
	case c == '=':
		eqs++
	}
}
fmt.Println(spaces, digits, eqs)`,
		Py: pyIndex,
	},
	{
		Name: "strings-split", Input: "csv", Imports: []string{"fmt", "strings"},
		Body: `rows, cells, noted := 0, 0, 0
for _, line := range strings.Split(data, "\n")[1:] {
	if line == "" {
		continue
	}
	parts := strings.Split(line, ",")
	rows++
	cells += len(parts)
	if parts[5] != "" {
		noted++
	}
}
fmt.Println(rows, cells, noted)`,
		Py: pySplitCSV,
	},
	{
		Name: "strings-fields", Input: "log", Imports: []string{"fmt", "strings"},
		Body: `words, most := 0, 0
for _, line := range strings.Split(data, "\n") {
	f := strings.Fields(line)
	words += len(f)
	most = max(most, len(f))
}
fmt.Println(words, most)`,
		Py: `words = most = 0
for line in data.split("\n"):
    f = line.split()
    words += len(f)
    most = max(most, len(f))
print(words, most)`,
	},
	{
		Name: "strings-builder", Div: 8, Input: "log", Imports: []string{"fmt", "strings"},
		Note: "WriteByte/WriteRune per character (digits masked); Python: a list of characters and join",
		Body: `var sb strings.Builder
for _, r := range data {
	if r >= '0' && r <= '9' {
		sb.WriteByte('#')
	} else {
		sb.WriteRune(r)
	}
}
out := sb.String()
fmt.Println(strings.Count(out, "#"), strings.Count(out, "u####"))`,
		Py: `parts = []
for ch in data:
    if "0" <= ch <= "9":
        parts.append("#")
    else:
        parts.append(ch)
out = "".join(parts)
print(out.count("#"), out.count("u####"))`,
	},
	{
		Name: "string-plus-eq", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "+= builds one short string per line (its key=value fields, about 100 bytes), so the copying is bounded and no contender is quadratic",
		Body: `rows, total := 0, 0
for _, line := range strings.Split(data, "\n") {
	row := ""
	for _, f := range strings.Fields(line) {
		if strings.Contains(f, "=") {
			row += f + ";"
		}
	}
	if row != "" {
		rows++
	}
	total += len(row)
}
fmt.Println(rows, total)`,
		Py: `rows = total = 0
for line in data.split("\n"):
    row = ""
    for f in line.split():
        if "=" in f:
            row += f + ";"
    if row != "":
        rows += 1
    total += len(row)
print(rows, total)`,
	},
	{
		Name: "append", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "append(words, fields...) per line, then append of the key=value words; Python: extend and append",
		Body: `var words, keys []string
for _, line := range strings.Split(data, "\n") {
	words = append(words, strings.Fields(line)...)
}
for _, w := range words {
	if strings.Contains(w, "=") {
		keys = append(keys, w)
	}
}
fmt.Println(len(words), len(keys), keys[len(keys)-1])`,
		Py: `words, keys = [], []
for line in data.split("\n"):
    words.extend(line.split())
for w in words:
    if "=" in w:
        keys.append(w)
print(len(words), len(keys), keys[-1])`,
	},
	{
		Name: "sort-slice", Input: "csv", Imports: []string{"fmt", "sort", "strings"},
		Note: "sorts the CSV rows as strings with a less closure; Python: list.sort()",
		Body: `rows := strings.Split(strings.TrimSpace(data), "\n")[1:]
sort.Slice(rows, func(i, j int) bool { return rows[i] < rows[j] })
first := func(row string) string { return row[:strings.IndexByte(row, ',')] }
fmt.Println(len(rows), first(rows[0]), first(rows[len(rows)/2]), first(rows[len(rows)-1]))`,
		Py: `rows = data.strip().split("\n")[1:]
rows.sort()
def first(row):
    return row[:row.index(",")]
print(len(rows), first(rows[0]), first(rows[len(rows) // 2]), first(rows[-1]))`,
	},
	{
		Name: "slices-sortfunc", Input: "csv", Imports: []string{"cmp", "fmt", "slices", "strconv", "strings"},
		Note: "parses the rows into structs (Split, Atoi), then sorts them by quantity and id",
		Decls: `type order struct {
	id, qty int
	city    string
}`,
		Body: `var orders []order
for _, line := range strings.Split(strings.TrimSpace(data), "\n")[1:] {
	p := strings.Split(line, ",")
	id, _ := strconv.Atoi(p[0])
	qty, _ := strconv.Atoi(p[3])
	orders = append(orders, order{id, qty, p[2]})
}
slices.SortFunc(orders, func(a, b order) int {
	return cmp.Or(cmp.Compare(b.qty, a.qty), cmp.Compare(a.id, b.id))
})
fmt.Println(len(orders), orders[0].id, orders[len(orders)/2].id, orders[len(orders)-1].id, orders[0].city)`,
		Py: pyOrders,
	},
	{
		Name: "map-count", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "the word count of scripts/bench-wordcount.sh: Split, Fields, ToLower, counts[w]++",
		Body: `counts := map[string]int{}
for _, line := range strings.Split(data, "\n") {
	for _, w := range strings.Fields(line) {
		counts[strings.ToLower(w)]++
	}
}
total, most := 0, 0
for _, n := range counts {
	total += n
	most = max(most, n)
}
fmt.Println(len(counts), total, most)`,
		Py: pyWordCount,
	},
	{
		Name: "regexp-findall", Input: "log", Imports: []string{"fmt", "regexp"},
		Body: `re := regexp.MustCompile(` + "`user=u[0-9]+`" + `)
matches := re.FindAllString(data, -1)
users := map[string]bool{}
for _, m := range matches {
	users[m] = true
}
fmt.Println(len(matches), len(users))`,
		Py: pyUsers,
	},
	{
		Name: "regexp-submatch", Input: "log", Imports: []string{"fmt", "regexp", "strconv"},
		Body: `re := regexp.MustCompile(` + "`(status|latency_ms)=([0-9]+)`" + `)
sums := map[string]int{}
for _, m := range re.FindAllStringSubmatch(data, -1) {
	n, _ := strconv.Atoi(m[2])
	sums[m[1]] += n
}
fmt.Println(sums["status"], sums["latency_ms"])`,
		Py: pyKeyValues,
	},
	{
		Name: "strconv-parse", Input: "csv", Imports: []string{"fmt", "strconv", "strings"},
		Note: "Split per row, Atoi and ParseFloat per row",
		Body: `qty, total := 0, 0.0
for _, line := range strings.Split(strings.TrimSpace(data), "\n")[1:] {
	p := strings.Split(line, ",")
	q, err := strconv.Atoi(p[3])
	if err != nil {
		continue
	}
	price, err := strconv.ParseFloat(p[4], 64)
	if err != nil {
		continue
	}
	qty += q
	total += price
}
fmt.Printf("%d %.2f\n", qty, total)`,
		Py: `qty, total = 0, 0.0
for line in data.strip().split("\n")[1:]:
    p = line.split(",")
    try:
        q = int(p[3])
        price = float(p[4])
    except ValueError:
        continue
    qty += q
    total += price
print("%d %.2f" % (qty, total))`,
	},
	{
		Name: "json-struct", Input: "jsonl", Imports: []string{"encoding/json", "fmt", "strings"},
		Note:  "json.Unmarshal of each line into a struct with tags",
		Decls: "type event struct {\n\tUser      string   `json:\"user\"`\n\tStatus    int      `json:\"status\"`\n\tLatencyMS int      `json:\"latency_ms\"`\n\tTags      []string `json:\"tags\"`\n}",
		Body: `n, failed, latency, tags := 0, 0, 0, 0
for _, line := range strings.Split(data, "\n") {
	if line == "" {
		continue
	}
	var ev event
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		continue
	}
	n++
	if ev.Status >= 500 {
		failed++
	}
	latency += ev.LatencyMS
	tags += len(ev.Tags)
}
fmt.Println(n, failed, latency, tags)`,
		Py: pyJSON,
	},
	{
		Name: "json-map", Input: "jsonl", Imports: []string{"encoding/json", "fmt", "strings"},
		Note: "json.Unmarshal of each line into a map[string]any",
		Body: `n, failed, latency, tags := 0, 0, 0, 0
for _, line := range strings.Split(data, "\n") {
	if line == "" {
		continue
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		continue
	}
	n++
	if ev["status"].(float64) >= 500 {
		failed++
	}
	latency += int(ev["latency_ms"].(float64))
	tags += len(ev["tags"].([]any))
}
fmt.Println(n, failed, latency, tags)`,
		Py: pyJSON,
	},
	{
		Name: "sprintf", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "fmt.Sprintf per line into a slice, then strings.Join",
		Body: `var out []string
for i, line := range strings.Split(data, "\n") {
	f := strings.Fields(line)
	if len(f) < 9 {
		continue
	}
	out = append(out, fmt.Sprintf("%d:%s:%s", i%100, f[2], f[5]))
}
joined := strings.Join(out, "\n")
fmt.Println(len(out), len(joined))`,
		Py: `out = []
for i, line in enumerate(data.split("\n")):
    f = line.split()
    if len(f) < 9:
        continue
    out.append("%d:%s:%s" % (i % 100, f[2], f[5]))
joined = "\n".join(out)
print(len(out), len(joined))`,
	},
	{
		Name: "closures", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "three closures (a counter that captures a map and an int, a predicate, a field getter) called per line",
		Body: `counts := map[string]int{}
total := 0
add := func(key string) {
	counts[key]++
	total++
}
isErr := func(line string) bool { return strings.Contains(line, " ERROR ") }
level := func(line string) string {
	f := strings.SplitN(line, " ", 4)
	if len(f) < 4 {
		return ""
	}
	return f[2]
}
for _, line := range strings.Split(data, "\n") {
	if isErr(line) {
		add("error")
	}
	add(level(line))
}
fmt.Println(total, counts["error"], counts["INFO"], counts["WARN"], counts[""])`,
		Py: `counts = {}
total = 0
def add(key):
    nonlocal total
    counts[key] = counts.get(key, 0) + 1
    total += 1
def is_err(line):
    return " ERROR " in line
def level(line):
    f = line.split(" ", 3)
    if len(f) < 4:
        return ""
    return f[2]
for line in data.split("\n"):
    if is_err(line):
        add("error")
    add(level(line))
print(total, counts.get("error", 0), counts.get("INFO", 0), counts.get("WARN", 0), counts.get("", 0))`,
	},
	{
		Name: "call-package", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "four calls of package functions per line on short strings, and little else: the cost of a call from interpreted code into compiled Go",
		Body: `errs, pays, slash, upper := 0, 0, 0, 0
for _, line := range strings.Split(data, "\n") {
	if len(line) < 30 {
		continue
	}
	if strings.HasPrefix(line[24:], "ERROR") {
		errs++
	}
	if strings.Contains(line[24:40], "pay") {
		pays++
	}
	slash += strings.IndexByte(line[60:], '/')
	upper += len(strings.ToUpper(line[24:28]))
}
fmt.Println(errs, pays, slash, upper)`,
		Py: `errs = pays = slash = upper = 0
for line in data.split("\n"):
    if len(line) < 30:
        continue
    if line[24:].startswith("ERROR"):
        errs += 1
    if "pay" in line[24:40]:
        pays += 1
    slash += line[60:].find("/")
    upper += len(line[24:28].upper())
print(errs, pays, slash, upper)`,
	},
	{
		Name: "call-func", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "two small functions the cell declares, called per line: the cost of a call of interpreted code",
		Decls: `func isLevel(line, level string) bool {
	return len(line) > 24+len(level) && line[24:24+len(level)] == level
}

func width(line string) int {
	if len(line) > 100 {
		return 100
	}
	return len(line)
}`,
		Body: `errs, warns, total := 0, 0, 0
for _, line := range strings.Split(data, "\n") {
	if isLevel(line, "ERROR") {
		errs++
	}
	if isLevel(line, "WARN") {
		warns++
	}
	total += width(line)
}
fmt.Println(errs, warns, total)`,
		Py: `def is_level(line, level):
    return len(line) > 24 + len(level) and line[24:24 + len(level)] == level

def width(line):
    if len(line) > 100:
        return 100
    return len(line)

errs = warns = total = 0
for line in data.split("\n"):
    if is_level(line, "ERROR"):
        errs += 1
    if is_level(line, "WARN"):
        warns += 1
    total += width(line)
print(errs, warns, total)`,
	},
	{
		Name: "generics", Input: "log", Imports: []string{"fmt", "strings"},
		Note: "generic Map and Filter with function arguments over the lines",
		Decls: `func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}`,
		Body: `lines := strings.Split(data, "\n")
words := Map(lines, func(l string) int { return len(strings.Fields(l)) })
long := Filter(words, func(n int) bool { return n > 12 })
errs := Filter(lines, func(l string) bool { return strings.Contains(l, " ERROR ") })
users := Map(errs, func(l string) string { return strings.Fields(l)[5] })
fmt.Println(len(words), len(long), len(errs), users[len(users)-1])`,
		Py: `def map_(xs, f):
    return [f(x) for x in xs]
def filter_(xs, keep):
    return [x for x in xs if keep(x)]
lines = data.split("\n")
words = map_(lines, lambda l: len(l.split()))
long = filter_(words, lambda n: n > 12)
errs = filter_(lines, lambda l: " ERROR " in l)
users = map_(errs, lambda l: l.split()[5])
print(len(words), len(long), len(errs), users[-1])`,
	},
	{
		Name: "struct-methods", Input: "log", Imports: []string{"fmt", "strconv", "strings"},
		Note: "a struct per line (Fields, Atoi) passed to a pointer method that calls a value method",
		Decls: `type Event struct {
	Level, User string
	Status      int
}

func (e Event) Failed() bool { return e.Status >= 500 }

type Stats struct {
	ByLevel map[string]int
	Users   map[string]int
	Failed  int
}

func (s *Stats) Add(e Event) {
	s.ByLevel[e.Level]++
	s.Users[e.User]++
	if e.Failed() {
		s.Failed++
	}
}`,
		Body: `st := &Stats{ByLevel: map[string]int{}, Users: map[string]int{}}
for _, line := range strings.Split(data, "\n") {
	f := strings.Fields(line)
	if len(f) < 9 {
		continue
	}
	status, _ := strconv.Atoi(strings.TrimPrefix(f[6], "status="))
	st.Add(Event{Level: f[2], User: strings.TrimPrefix(f[5], "user="), Status: status})
}
fmt.Println(st.Failed, len(st.Users), st.ByLevel["ERROR"], st.ByLevel["INFO"])`,
		Py: `class Event:
    def __init__(self, level, user, status):
        self.level, self.user, self.status = level, user, status
    def failed(self):
        return self.status >= 500
class Stats:
    def __init__(self):
        self.by_level, self.users, self.failed = {}, {}, 0
    def add(self, e):
        self.by_level[e.level] = self.by_level.get(e.level, 0) + 1
        self.users[e.user] = self.users.get(e.user, 0) + 1
        if e.failed():
            self.failed += 1
st = Stats()
for line in data.split("\n"):
    f = line.split()
    if len(f) < 9:
        continue
    status = int(f[6].removeprefix("status="))
    st.add(Event(f[2], f[5].removeprefix("user="), status))
print(st.failed, len(st.users), st.by_level.get("ERROR", 0), st.by_level.get("INFO", 0))`,
	},
}

var jsIdioms = []idiom{
	{
		Name: "for-of-string", Div: 8, Input: "log",
		Body: `let runes = 0, nonAscii = 0, sum = 0;
for (const ch of data) {
  const c = ch.codePointAt(0);
  runes++;
  if (c > 127) nonAscii++;
  sum += c;
}
print(runes, nonAscii, sum);`,
		Py: pyRunes,
	},
	{
		Name: "index-string", Div: 4, Input: "log",
		Body: `let spaces = 0, digits = 0, eqs = 0;
for (let i = 0; i < data.length; i++) {
  const c = data[i];
  if (c === " ") spaces++;
  else if (c >= "0" && c <= "9") digits++;
  else if (c === "=") eqs++;
}
print(spaces, digits, eqs);`,
		Py: pyIndex,
	},
	{
		Name: "charCodeAt", Div: 4, Input: "log",
		Body: `let lines = 0, upper = 0, sum = 0;
for (let i = 0; i < data.length; i++) {
  const c = data.charCodeAt(i);
  if (c === 10) lines++;
  else if (c >= 65 && c <= 90) upper++;
  sum += c;
}
print(lines, upper, sum);`,
		Py: `lines = upper = total = 0
for i in range(len(data)):
    c = ord(data[i])
    if c == 10:
        lines += 1
    elif 65 <= c <= 90:
        upper += 1
    total += c
print(lines, upper, total)`,
	},
	{
		Name: "for-of-array", Input: "log",
		Note: "three passes over the lines (includes, endsWith) and one over a number array",
		Body: `const lines = data.split("\n");
let errs = 0, slow = 0, tokyo = 0;
for (const line of lines) {
  if (line.includes(" ERROR ")) errs++;
}
for (const line of lines) {
  if (line.includes("latency_ms=19")) slow++;
}
for (const [i, line] of lines.entries()) {
  if (i % 2 === 0 && line.endsWith("東京")) tokyo++;
}
const nums = lines.map((_, i) => i * 7 % 1000);
let total = 0;
for (const v of nums) total += v;
print(lines.length, errs, slow, tokyo, total);`,
		Py: pyLines,
	},
	{
		Name: "for-of-map", Input: "log",
		Note: "builds a Map of request id to line, then iterates its entries",
		Body: `const byReq = new Map();
for (const line of data.split("\n")) {
  const i = line.indexOf("req=");
  if (i >= 0) byReq.set(line.slice(i + 4, i + 12), line);
}
let errs = 0, digits = 0;
for (const [id, line] of byReq) {
  if (line.includes(" ERROR ")) errs++;
  digits += id.charCodeAt(id.length - 1) - 48;
}
print(byReq.size, errs, digits);`,
		Py: pyByReq,
	},
	{
		Name: "split", Input: "csv",
		Body: `let rows = 0, cells = 0, noted = 0;
for (const line of data.split("\n").slice(1)) {
  if (line === "") continue;
  const parts = line.split(",");
  rows++;
  cells += parts.length;
  if (parts[5] !== "") noted++;
}
print(rows, cells, noted);`,
		Py: pySplitCSV,
	},
	{
		Name: "match-global", Input: "log",
		Body: `const matches = data.match(/user=u[0-9]+/g) ?? [];
const users = new Set(matches);
print(matches.length, users.size);`,
		Py: pyUsers,
	},
	{
		Name: "matchAll", Input: "log",
		Body: `const sums = { status: 0, latency_ms: 0 };
for (const m of data.matchAll(/(status|latency_ms)=([0-9]+)/g)) {
  sums[m[1]] += Number(m[2]);
}
print(sums.status, sums.latency_ms);`,
		Py: pyKeyValues,
	},
	{
		Name: "replace", Input: "log",
		Note: "a global regex replaced by a string",
		Body: `const masked = data.replace(/[0-9]+/g, "#");
print(masked.length, masked.split("#").length - 1);`,
		Py: `masked = re.sub(r"[0-9]+", "#", data)
print(len(masked), masked.count("#"))`,
	},
	{
		Name: "replace-fn", Input: "log",
		Note: "a global regex replaced by a function's result",
		Body: "const out = data.replace(/user=u([0-9]+)/g, (m, id) => `user=${Number(id) % 97}`);\nprint(out.length);",
		Py: `out = re.sub(r"user=u([0-9]+)", lambda m: f"user={int(m.group(1)) % 97}", data)
print(len(out))`,
	},
	{
		Name: "map-count", Div: 2, Input: "log",
		Note: "the word count of scripts/bench-wordcount.sh: split lines, split(/\\s+/), toLowerCase, a Map",
		Body: `const counts = new Map();
for (const line of data.split("\n")) {
  for (const w of line.split(/\s+/)) {
    if (w === "") continue;
    const k = w.toLowerCase();
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
}
let total = 0, most = 0;
for (const n of counts.values()) {
  total += n;
  most = Math.max(most, n);
}
print(counts.size, total, most);`,
		Py: pyWordCount,
	},
	{
		Name: "set", Input: "log",
		Note: "two Sets: the users and the message words",
		Body: `const users = new Set(), words = new Set();
for (const line of data.split("\n")) {
  const f = line.split(" ");
  if (f.length < 11) continue;
  users.add(f[5]);
  for (const w of f.slice(10)) words.add(w);
}
print(users.size, words.size, users.has("user=u0042") ? 1 : 0);`,
		Py: `users, words = set(), set()
for line in data.split("\n"):
    f = line.split(" ")
    if len(f) < 11:
        continue
    users.add(f[5])
    for w in f[10:]:
        words.add(w)
print(len(users), len(words), 1 if "user=u0042" in users else 0)`,
	},
	{
		Name: "object-count", Input: "log",
		Note: "counting users in a plain object",
		Body: `const counts = {};
for (const line of data.split("\n")) {
  const f = line.split(" ");
  if (f.length < 9) continue;
  counts[f[5]] = (counts[f[5]] || 0) + 1;
}
const keys = Object.keys(counts);
let most = 0;
for (const k of keys) most = Math.max(most, counts[k]);
print(keys.length, most, counts["user=u0042"] ?? 0);`,
		Py: `counts = {}
for line in data.split("\n"):
    f = line.split(" ")
    if len(f) < 9:
        continue
    counts[f[5]] = counts.get(f[5], 0) + 1
most = 0
for k in counts:
    most = max(most, counts[k])
print(len(counts), most, counts.get("user=u0042", 0))`,
	},
	{
		Name: "sort-comparator", Div: 2, Input: "csv",
		Note: "parses the rows into objects (split, Number), then sorts them by quantity and id",
		Body: `const orders = data.trim().split("\n").slice(1).map((line) => {
  const p = line.split(",");
  return { id: Number(p[0]), qty: Number(p[3]), city: p[2] };
});
orders.sort((a, b) => b.qty - a.qty || a.id - b.id);
print(orders.length, orders[0].id, orders[orders.length >> 1].id, orders[orders.length - 1].id, orders[0].city);`,
		Py: pyOrders,
	},
	{
		Name: "json-parse", Input: "jsonl",
		Body: `let n = 0, failed = 0, latency = 0, tags = 0;
for (const line of data.split("\n")) {
  if (!line) continue;
  const ev = JSON.parse(line);
  n++;
  if (ev.status >= 500) failed++;
  latency += ev.latency_ms;
  tags += ev.tags.length;
}
print(n, failed, latency, tags);`,
		Py: pyJSON,
	},
	{
		Name: "template", Input: "log",
		Note: "a template string per line, pushed and joined",
		Body: "const out = [];\nfor (const line of data.split(\"\\n\")) {\n  const f = line.split(\" \");\n  if (f.length < 9) continue;\n  out.push(`${f[2]}:${f[5].slice(5)}@${f[1]} (${f[7]})`);\n}\nconst joined = out.join(\"\\n\");\nprint(out.length, joined.length);",
		Py: `out = []
for line in data.split("\n"):
    f = line.split(" ")
    if len(f) < 9:
        continue
    out.append(f"{f[2]}:{f[5][5:]}@{f[1]} ({f[7]})")
joined = "\n".join(out)
print(len(out), len(joined))`,
	},
	{
		Name: "spread", Input: "log",
		Note: "object spread and array spread per line, then [...set].sort()",
		Body: `const base = { source: "log", version: 2 };
const seen = new Set();
let recs = 0, fields = 0;
for (const line of data.split("\n")) {
  const f = line.split(" ");
  if (f.length < 11) continue;
  const rec = { ...base, level: f[2], user: f[5] };
  const all = [...f.slice(0, 4), ...f.slice(10), "end"];
  fields += all.length + Object.keys(rec).length;
  seen.add(rec.user);
  recs++;
}
const users = [...seen].sort();
print(recs, fields, users.length, users[0], users[users.length - 1]);`,
		Py: `base = {"source": "log", "version": 2}
seen = set()
recs = fields = 0
for line in data.split("\n"):
    f = line.split(" ")
    if len(f) < 11:
        continue
    rec = {**base, "level": f[2], "user": f[5]}
    all_ = [*f[:4], *f[10:], "end"]
    fields += len(all_) + len(rec)
    seen.add(rec["user"])
    recs += 1
users = sorted(seen)
print(recs, fields, len(users), users[0], users[-1])`,
	},
	{
		Name: "reduce", Input: "log",
		Note: "map + reduce to a sum, and reduce into an object",
		Body: `const lines = data.split("\n").filter((l) => l !== "");
const words = lines.map((l) => l.split(" ").length).reduce((a, b) => a + b, 0);
const byLevel = lines.reduce((acc, l) => {
  const level = l.split(" ", 3)[2];
  acc[level] = (acc[level] ?? 0) + 1;
  return acc;
}, {});
print(lines.length, words, byLevel.ERROR, byLevel.INFO);`,
		Py: `def add_level(acc, l):
    level = l.split(" ", 3)[2]
    acc[level] = acc.get(level, 0) + 1
    return acc
lines = [l for l in data.split("\n") if l != ""]
words = functools.reduce(lambda a, b: a + b, map(lambda l: len(l.split(" ")), lines), 0)
by_level = functools.reduce(add_level, lines, {})
print(len(lines), words, by_level["ERROR"], by_level["INFO"])`,
	},
}

func init() {
	for i := range goIdioms {
		goIdioms[i].Lang = "go"
	}
	for i := range jsIdioms {
		jsIdioms[i].Lang = "js"
	}
}
