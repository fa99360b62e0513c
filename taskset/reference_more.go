package taskset

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ---- orders.csv and customers.csv

func completed(d *Data) []order {
	var out []order
	for _, o := range d.Orders {
		if o.Status == "completed" {
			out = append(out, o)
		}
	}
	return out
}

func refRevenueByCategory(d *Data) string {
	c := map[string]int{}
	for _, o := range completed(d) {
		c[o.Category] += o.total()
	}
	out := map[string]jsonNumber{}
	for k, v := range c {
		out[k] = jsonNumber(cents(v))
	}
	return mustJSON(out)
}

// jsonNumber is a number written as given.
type jsonNumber string

func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func refTopProducts(d *Data) string {
	m := map[string]int{}
	for _, o := range completed(d) {
		m[o.Product] += o.Qty
	}
	top := topKeys(m, 4)
	if m[top[2]] == m[top[3]] {
		panic("taskset: top products tied")
	}
	return mustJSON(top[:3])
}

func refOrdersPerMonth(d *Data) string {
	m := map[string]int{}
	for _, o := range d.Orders {
		m[o.Date.Format("2006-01")]++
	}
	return mustJSON(m)
}

func refDateRange(d *Data) string {
	from, to := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 14, 0, 0, 0, 0, time.UTC)
	sum := 0
	for _, o := range completed(d) {
		if !o.Date.Before(from) && !o.Date.After(to) {
			sum += o.total()
		}
	}
	return cents(sum)
}

func refRefundRate(d *Data) string {
	all, ref := map[string]int{}, map[string]int{}
	for _, o := range d.Orders {
		all[o.Category]++
		if o.Status == "refunded" {
			ref[o.Category]++
		}
	}
	best, rate := "", -1.0
	for c, n := range all {
		if r := 100 * float64(ref[c]) / float64(n); r > rate {
			best, rate = c, r
		}
	}
	return best + ":" + round2(rate)
}

func ordersPerCustomer(d *Data) map[string]int {
	m := map[string]int{}
	for _, o := range d.Orders {
		m[o.Customer]++
	}
	return m
}

func refRepeatCustomers(d *Data) string {
	n := 0
	for _, c := range ordersPerCustomer(d) {
		if c >= 5 {
			n++
		}
	}
	return fmt.Sprint(n)
}

func refMedianValue(d *Data) string {
	var v []int
	for _, o := range completed(d) {
		v = append(v, o.total())
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return cents(v[m])
	}
	return round2(float64(v[m-1]+v[m]) / 200)
}

func customerByID(d *Data) map[string]customer {
	m := map[string]customer{}
	for _, c := range d.Customers {
		m[c.ID] = c
	}
	return m
}

func refCountryRevenue(d *Data) string {
	cs := customerByID(d)
	m := map[string]int{}
	for _, o := range completed(d) {
		m[cs[o.Customer].Country] += o.total()
	}
	c, v := unique(m)
	return c + ":" + cents(v)
}

func refTierAOV(d *Data) string {
	cs := customerByID(d)
	sum, n := map[string]int{}, map[string]int{}
	for _, o := range completed(d) {
		t := cs[o.Customer].Tier
		sum[t] += o.total()
		n[t]++
	}
	out := map[string]jsonNumber{}
	for t := range sum {
		out[t] = jsonNumber(round2(float64(sum[t]) / float64(n[t]) / 100))
	}
	return mustJSON(out)
}

func refNoOrders(d *Data) string {
	per := ordersPerCustomer(d)
	n := 0
	for _, c := range d.Customers {
		if per[c.ID] == 0 {
			n++
		}
	}
	return fmt.Sprint(n)
}

func refTopSpender(d *Data) string {
	m := map[string]int{}
	for _, o := range completed(d) {
		m[o.Customer] += o.total()
	}
	id, _ := unique(m)
	return customerByID(d)[id].Name
}

// ---- events.jsonl

func uniqueEvents(d *Data) []event {
	seen := map[string]bool{}
	var out []event
	for _, e := range d.Events {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}

func refEventsByType(d *Data) string {
	m := map[string]int{}
	for _, e := range uniqueEvents(d) {
		m[e.Type]++
	}
	return mustJSON(m)
}

func refFunnel(d *Data) string {
	evs := uniqueEvents(d)
	slices.SortStableFunc(evs, func(a, b event) int { return a.T.Compare(b.T) })
	byUser := map[string][]event{}
	for _, e := range evs {
		byUser[e.User] = append(byUser[e.User], e)
	}
	n := 0
	for _, es := range byUser {
		// the earliest page_view, then the earliest add_to_cart strictly after it, then a
		// purchase strictly after that: greedy earliest choices are optimal.
		view, cart := time.Time{}, time.Time{}
		found := false
		for _, e := range es {
			switch {
			case e.Type == "page_view" && view.IsZero():
				view = e.T
			case e.Type == "add_to_cart" && !view.IsZero() && cart.IsZero() && e.T.After(view):
				cart = e.T
			case e.Type == "purchase" && !cart.IsZero() && e.T.After(cart):
				found = true
			}
		}
		if found {
			n++
		}
	}
	return fmt.Sprint(n)
}

func refAvgPurchase(d *Data) string {
	sum, n := 0, 0
	for _, e := range uniqueEvents(d) {
		if e.Type == "purchase" && e.Amount >= 0 {
			sum += e.Amount
			n++
		}
	}
	return round2(float64(sum) / float64(n) / 100)
}

func refDAU(d *Data) string {
	users := map[string]map[string]bool{}
	for _, e := range d.Events {
		day := e.T.Format(time.DateOnly)
		if users[day] == nil {
			users[day] = map[string]bool{}
		}
		users[day][e.User] = true
	}
	m := map[string]int{}
	for day, u := range users {
		m[day] = len(u)
	}
	return mustJSON(m)
}

func refTopPages(d *Data) string {
	m := map[string]int{}
	for _, e := range uniqueEvents(d) {
		if e.Type == "page_view" {
			m[e.Page]++
		}
	}
	return mustJSON(topKeys(m, 3))
}

func refBiggestPurchase(d *Data) string {
	m := map[string]int{}
	for _, e := range uniqueEvents(d) {
		if e.Type == "purchase" && e.Amount >= 0 {
			key := e.User + ":" + cents(e.Amount)
			m[key] = max(m[key], e.Amount)
		}
	}
	// unique on the amount: the largest amount must not be shared by two purchases
	best, second := 0, 0
	for _, a := range m {
		if a > best {
			best, second = a, best
		} else if a > second {
			second = a
		}
	}
	if best == second {
		panic("taskset: largest purchase tied")
	}
	for k, a := range m {
		if a == best {
			return k
		}
	}
	panic("unreachable")
}

func refSearchTerms(d *Data) string {
	m := map[string]int{}
	for _, e := range uniqueEvents(d) {
		if e.Type == "search" {
			m[strings.ToLower(e.Query)]++
		}
	}
	return mustJSON(topKeys(m, 5))
}

// ---- crash.log

func crashMost(d *Data, key func(crashLine) string) string {
	m := map[string]int{}
	for _, c := range d.Crash {
		if c.Exception != "" {
			m[key(c)]++
		}
	}
	k, n := unique(m)
	return fmt.Sprintf("%s:%d", k, n)
}

func refTopFrame(d *Data) string {
	s := crashMost(d, func(c crashLine) string { return c.TopFrame })
	return s[:strings.LastIndexByte(s, ':')]
}

func refCrashThread(d *Data) string {
	m := map[string]int{}
	for _, c := range d.Crash {
		if c.Level == "ERROR" {
			m[c.Thread]++
		}
	}
	t, n := unique(m)
	return fmt.Sprintf("%s:%d", t, n)
}

func refCrashWindow(d *Data) string {
	from := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	n := 0
	for _, c := range d.Crash {
		if c.Level == "ERROR" && !c.T.Before(from) && c.T.Before(from.Add(15*time.Minute)) {
			n++
		}
	}
	return fmt.Sprint(n)
}

// ---- book.txt

// words splits text into the task's words: maximal runs of a–z after lowercasing.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' })
}

func wordCounts(text string) map[string]int {
	m := map[string]int{}
	for _, w := range words(text) {
		m[w]++
	}
	return m
}

func refTopWords(d *Data) string {
	m := wordCounts(d.Book)
	top := topKeys(m, 10)
	return mustJSON(top)
}

func refLongestChapter(d *Data) string {
	m := map[int]int{}
	ch := 0
	for _, line := range strings.Split(d.Book, "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "CHAPTER %d", &n); err == nil && line == fmt.Sprintf("CHAPTER %d", n) {
			ch = n
			continue
		}
		if ch > 0 {
			m[ch] += len(words(line))
		}
	}
	c, _ := unique(m)
	return fmt.Sprint(c)
}

// ---- metrics.csv

func refHostAvgCPU(d *Data) string {
	sum, n := map[string]int{}, map[string]int{}
	for _, s := range d.Metrics {
		sum[s.Host] += s.CPU
		n[s.Host]++
	}
	best, avg := "", -1.0
	for h := range sum {
		if a := float64(sum[h]) / float64(n[h]) / 10; a > avg {
			best, avg = h, a
		}
	}
	return best + ":" + round2(avg)
}

func refOver90(d *Data) string {
	m := map[string]int{}
	for _, s := range d.Metrics {
		m[s.Host] += 0
		if s.CPU > 900 {
			m[s.Host]++
		}
	}
	return mustJSON(m)
}
