package taskset

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// logLine is one line of server.log: a request (User set) or a DEBUG note (User empty).
type logLine struct {
	T       time.Time
	Level   string
	Service string
	User    string
	Req     string
	Method  string
	Path    string
	Status  int
	Latency int
	Msg     string
}

func (l logLine) text() string {
	ts := l.T.Format("2006-01-02T15:04:05.000Z")
	if l.User == "" {
		return fmt.Sprintf("%s %-5s %s %s", ts, l.Level, l.Service, l.Msg)
	}
	s := fmt.Sprintf("%s %-5s %s user=%s req=%s method=%s path=%s status=%d latency_ms=%d",
		ts, l.Level, l.Service, l.User, l.Req, l.Method, l.Path, l.Status, l.Latency)
	if l.Msg != "" {
		s += fmt.Sprintf(" msg=%q", l.Msg)
	}
	return s
}

type service struct {
	name    string
	weight  int
	latency float64 // median latency in ms
	routes  []string
}

var services = []service{
	{"api-gateway", 30, 35, []string{"GET /api/health", "GET /api/config", "GET /api/session"}},
	{"auth", 12, 60, []string{"POST /api/login", "POST /api/logout", "POST /api/token/refresh"}},
	{"orders", 15, 120, []string{"GET /api/orders", "GET /api/orders/recent", "POST /api/checkout", "POST /api/orders"}},
	{"payments", 8, 240, []string{"POST /api/payments", "GET /api/payments/status", "POST /api/checkout"}},
	{"search", 18, 90, []string{"GET /api/search", "GET /api/search/suggest"}},
	{"inventory", 10, 70, []string{"GET /api/stock", "PUT /api/stock"}},
	{"notifications", 7, 45, []string{"POST /api/notify", "GET /api/inbox"}},
}

var (
	errorMsgs = []string{"upstream timeout", "connection reset by peer", "database deadlock detected",
		"circuit breaker open", "null response from backend", "disk quota exceeded"}
	warnMsgs  = []string{"invalid token", "rate limited", "validation failed", "not found", "forbidden"}
	debugMsgs = []string{"cache refresh keys=%d", "gc pause %dms", "pool size=%d", "config reloaded rev=%d"}
)

// genLog writes server.log: about 31,000 requests from 300 users in bursty sessions over one
// day, and about 3,000 DEBUG lines, in time order. Exactly one request has status 418.
func (d *Data) genLog(r *rand.Rand, w *bufio.Writer) {
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	users := make([]string, 300)
	for i := range users {
		users[i] = fmt.Sprintf("u%04d", i+1)
	}
	r.Shuffle(len(users), func(i, j int) { users[i], users[j] = users[j], users[i] })
	weights := make([]int, len(services))
	for i, s := range services {
		weights[i] = s.weight
	}
	var lines []logLine
	for range 2300 {
		user := pick(r, users, 2)
		t := day.Add(ms(r.IntN(82800 * 1000)))
		for n := 1 + int(r.ExpFloat64()*12); n > 0; n-- {
			lines = append(lines, request(r, t, user, weights))
			t = t.Add(ms(3000 + r.IntN(240_000)))
		}
	}
	for range 3000 {
		s := services[r.IntN(len(services))].name
		msg := fmt.Sprintf(debugMsgs[r.IntN(len(debugMsgs))], 1+r.IntN(5000))
		lines = append(lines, logLine{T: day.Add(ms(r.IntN(86400 * 1000))), Level: "DEBUG", Service: s, Msg: msg})
	}
	slices.SortStableFunc(lines, func(a, b logLine) int { return a.T.Compare(b.T) })
	seen := map[string]bool{}
	var reqs []int
	for i := range lines {
		if lines[i].User == "" {
			continue
		}
		reqs = append(reqs, i)
		for seen[lines[i].Req] || lines[i].Req == "" {
			lines[i].Req = fmt.Sprintf("%08x", r.Uint32())
		}
		seen[lines[i].Req] = true
	}
	teapot := &lines[reqs[len(reqs)/3+r.IntN(len(reqs)/3)]]
	teapot.Status, teapot.Level, teapot.Msg = 418, "WARN", "short and stout"
	for _, l := range lines {
		w.WriteString(l.text())
		w.WriteByte('\n')
	}
	d.Log = lines
}

func request(r *rand.Rand, t time.Time, user string, weights []int) logLine {
	s := services[weighted(r, weights)]
	route := s.routes[r.IntN(len(s.routes))]
	l := logLine{T: t, Service: s.name, User: user, Level: "INFO"}
	l.Method, l.Path = splitRoute(route)
	l.Latency = max(1, int(s.latency*math.Exp(r.NormFloat64()*0.6)))
	switch k := r.IntN(1000); {
	case k < 22:
		l.Status = []int{500, 502, 503}[r.IntN(3)]
		l.Level, l.Msg = "ERROR", errorMsgs[r.IntN(len(errorMsgs))]
		l.Latency += 1000 + r.IntN(4000)
	case k < 70:
		l.Status = []int{400, 401, 403, 404, 429}[r.IntN(5)]
		l.Level, l.Msg = "WARN", warnMsgs[r.IntN(len(warnMsgs))]
	case k < 120:
		l.Status = []int{201, 204, 301}[r.IntN(3)]
	default:
		l.Status = 200
	}
	return l
}

func splitRoute(route string) (method, path string) {
	for i := range len(route) {
		if route[i] == ' ' {
			return route[:i], route[i+1:]
		}
	}
	return "GET", route
}
