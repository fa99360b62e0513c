package taskset

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// references computes each task's expected answer from the records the inputs were written
// from. They share no code with the cells and never read the generated files (the book's words
// are defined on its text, so those read Data.Book).
var references = map[string]func(*Data) string{
	"01-log-levels":                 refLogLevels,
	"02-log-errors-by-service":      refErrorsByService,
	"03-log-top-users":              refTopUsers,
	"04-log-p95":                    func(d *Data) string { return fmt.Sprint(nearestRank(latencies(d, ""), 95)) },
	"05-log-p99-by-service":         refP99BySvc,
	"06-log-avg-checkout":           refAvgCheckout,
	"07-log-window":                 refLogWindow,
	"08-log-busiest-minute":         refBusiestMinute,
	"09-log-5xx-rate":               ref5xxRate,
	"10-log-sessions":               func(d *Data) string { return fmt.Sprint(len(logSessions(d))) },
	"11-log-longest-session":        refLongestSession,
	"12-log-teapot":                 refTeapot,
	"13-log-first-error-noon":       refFirstErrorNoon,
	"14-log-peak-hour-users":        refPeakHourUsers,
	"15-orders-revenue-by-category": refRevenueByCategory,
	"16-orders-top-products":        refTopProducts,
	"17-orders-per-month":           refOrdersPerMonth,
	"18-orders-date-range":          refDateRange,
	"19-orders-refund-rate":         refRefundRate,
	"20-orders-repeat-customers":    refRepeatCustomers,
	"21-orders-median-value":        refMedianValue,
	"22-join-country-revenue":       refCountryRevenue,
	"23-join-tier-aov":              refTierAOV,
	"24-join-no-orders":             refNoOrders,
	"25-join-top-spender-name":      refTopSpender,
	"26-events-by-type":             refEventsByType,
	"27-events-duplicates":          func(d *Data) string { return fmt.Sprint(len(d.Events) - len(uniqueEvents(d))) },
	"28-events-funnel":              refFunnel,
	"29-events-avg-purchase":        refAvgPurchase,
	"30-events-dau":                 refDAU,
	"31-events-top-pages":           refTopPages,
	"32-events-biggest-purchase":    refBiggestPurchase,
	"33-events-search-terms":        refSearchTerms,
	"34-crash-top-exception":        func(d *Data) string { return crashMost(d, func(c crashLine) string { return c.Exception }) },
	"35-crash-root-cause":           func(d *Data) string { return crashMost(d, crashLine.rootCause) },
	"36-crash-top-frame":            refTopFrame,
	"37-crash-thread":               refCrashThread,
	"38-crash-window":               refCrashWindow,
	"39-book-top-words":             refTopWords,
	"40-book-longest-chapter":       refLongestChapter,
	"41-book-secret":                func(*Data) string { return "AMBER-7319" },
	"42-book-distinct-words":        func(d *Data) string { return fmt.Sprint(len(wordCounts(d.Book))) },
	"43-metrics-host-avg-cpu":       refHostAvgCPU,
	"44-metrics-over-90":            refOver90,
	"45-log-last-error":             refLastError,
	"46-two-logs-error-minutes":     refTwoLogsErrorMinutes,
	"47-events-yoga-then-purchase":  refYogaThenPurchase,
}

// mustJSON encodes v; the references only encode maps and slices of plain values.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// cents formats an amount in cents with 2 decimals.
func cents(c int) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// round2 formats x rounded half away from zero to 2 decimals.
func round2(x float64) string { return fmt.Sprintf("%.2f", math.Round(x*100)/100) }

// topKeys returns the keys of m by descending count, ties by ascending key, at most k.
func topKeys[K cmp.Ordered](m map[K]int, k int) []K {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b K) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	return keys[:min(k, len(keys))]
}

// unique returns the only key of m with the highest count, and fails when the top is tied: a
// task whose answer depends on tie-breaking it does not state is a generator bug.
func unique[K cmp.Ordered](m map[K]int) (K, int) {
	top := topKeys(m, 2)
	if len(top) == 2 && m[top[0]] == m[top[1]] {
		panic(fmt.Sprintf("taskset: tied top %v and %v (%d)", top[0], top[1], m[top[0]]))
	}
	return top[0], m[top[0]]
}

func nearestRank(xs []int, p int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	r := (p*len(s) + 99) / 100 // ceil(p/100 · n) in integers
	return s[max(r, 1)-1]
}

// ---- server.log

func requests(d *Data) []logLine {
	var out []logLine
	for _, l := range d.Log {
		if l.User != "" {
			out = append(out, l)
		}
	}
	return out
}

func latencies(d *Data, service string) []int {
	var out []int
	for _, l := range requests(d) {
		if service == "" || l.Service == service {
			out = append(out, l.Latency)
		}
	}
	return out
}

func refLogLevels(d *Data) string {
	m := map[string]int{}
	for _, l := range d.Log {
		m[l.Level]++
	}
	return mustJSON(m)
}

func refErrorsByService(d *Data) string {
	m := map[string]int{}
	for _, l := range d.Log {
		if l.Level == "ERROR" {
			m[l.Service]++
		}
	}
	s, n := unique(m)
	return fmt.Sprintf("%s:%d", s, n)
}

func refTopUsers(d *Data) string {
	m := map[string]int{}
	for _, l := range requests(d) {
		m[l.User]++
	}
	return mustJSON(topKeys(m, 5))
}

func refP99BySvc(d *Data) string {
	out := map[string]int{}
	for _, s := range services {
		out[s.name] = nearestRank(latencies(d, s.name), 99)
	}
	return mustJSON(out)
}

func refAvgCheckout(d *Data) string {
	sum, n := 0, 0
	for _, l := range requests(d) {
		if l.Method == "POST" && l.Path == "/api/checkout" {
			sum += l.Latency
			n++
		}
	}
	return round2(float64(sum) / float64(n))
}

func refLogWindow(d *Data) string {
	from := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	n := 0
	for _, l := range requests(d) {
		if !l.T.Before(from) && l.T.Before(from.Add(30*time.Minute)) {
			n++
		}
	}
	return fmt.Sprint(n)
}

func refBusiestMinute(d *Data) string {
	m := map[string]int{}
	for _, l := range d.Log {
		m[l.T.Format("2006-01-02T15:04")]++
	}
	return topKeys(m, 1)[0]
}

func ref5xxRate(d *Data) string {
	reqs := requests(d)
	n := 0
	for _, l := range reqs {
		if l.Status >= 500 {
			n++
		}
	}
	return round2(100 * float64(n) / float64(len(reqs)))
}

type logSession struct {
	user       string
	start, end time.Time
}

// logSessions splits each user's requests at gaps of more than 30 minutes.
func logSessions(d *Data) []logSession {
	open := map[string]*logSession{}
	var out []logSession
	for _, l := range requests(d) {
		s := open[l.User]
		if s != nil && l.T.Sub(s.end) <= 30*time.Minute {
			s.end = l.T
			continue
		}
		if s != nil {
			out = append(out, *s)
		}
		open[l.User] = &logSession{l.User, l.T, l.T}
	}
	for _, s := range open {
		out = append(out, *s)
	}
	return out
}

func refLongestSession(d *Data) string {
	m := map[string]int{} // "user:seconds" → duration in ms, so that unique catches ties
	for _, s := range logSessions(d) {
		key := fmt.Sprintf("%s:%d", s.user, int(s.end.Sub(s.start).Seconds()))
		m[key] = max(m[key], int(s.end.Sub(s.start).Milliseconds()))
	}
	k, _ := unique(m)
	return k
}

func refTeapot(d *Data) string {
	for _, l := range d.Log {
		if l.Status == 418 {
			return l.Req
		}
	}
	panic("taskset: no status 418")
}

func refFirstErrorNoon(d *Data) string {
	noon := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, l := range d.Log {
		if l.Level == "ERROR" && !l.T.Before(noon) {
			return l.Msg
		}
	}
	panic("taskset: no ERROR after noon")
}

func refPeakHourUsers(d *Data) string {
	users := map[int]map[string]bool{}
	for _, l := range requests(d) {
		if l.T.Day() != 14 {
			continue
		}
		if users[l.T.Hour()] == nil {
			users[l.T.Hour()] = map[string]bool{}
		}
		users[l.T.Hour()][l.User] = true
	}
	m := map[string]int{}
	for h, u := range users {
		m[fmt.Sprintf("%02d", h)] = len(u)
	}
	h, n := unique(m)
	return fmt.Sprintf("%s:%d", h, n)
}
