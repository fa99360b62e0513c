package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// event is one line of events.jsonl. Amount is in cents, -1 when the purchase has none.
type event struct {
	ID, User, Type string
	T              time.Time
	Page, Query    string
	Amount         int
	Line           string // the line as written
}

var (
	pages   = []string{"/home", "/deals", "/p/1042", "/p/2210", "/p/3307", "/search", "/cart", "/p/4471", "/help", "/p/5120", "/about", "/p/6632"}
	queries = []string{"Headphones", "yoga mat", "lamp", "Gift ideas", "usb-c cable", "kettle", "puzzle", "Desk Lamp", "socks", "board game"}
)

// genEvents writes events.jsonl: about 28,000 events of 2,000 users over seven days, in time
// order, with about 2% delivered twice (the copy a few lines later).
func (d *Data) genEvents(r *rand.Rand, w *bufio.Writer) {
	start := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	var evs []event
	for range 7000 {
		user := fmt.Sprintf("u%04d", 1+int(r.Float64()*r.Float64()*2000))
		t := start.Add(ms(r.IntN(7*86400*1000 - 3600*1000)))
		step := func(typ string) event {
			t = t.Add(ms(500 + r.IntN(90_000)))
			return event{User: user, Type: typ, T: t, Amount: -1}
		}
		if r.IntN(20) == 0 {
			evs = append(evs, step("signup"))
		}
		for range 1 + r.IntN(6) {
			e := step([]string{"page_view", "click", "search"}[weighted(r, []int{6, 3, 1})])
			e.Page = pick(r, pages, 1.4)
			if e.Type == "search" {
				e.Page, e.Query = "", queries[r.IntN(len(queries))]
			}
			evs = append(evs, e)
		}
		if r.IntN(100) < 35 {
			evs = append(evs, step("add_to_cart"))
			if r.IntN(100) < 45 {
				e := step("purchase")
				if r.IntN(25) != 0 {
					e.Amount = 500 + r.IntN(30000)
				}
				evs = append(evs, e)
			}
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return a.T.Compare(b.T) })
	out := make([]event, 0, len(evs)+len(evs)/40)
	var later []int // indexes into out of events to deliver again
	for i := range evs {
		e := &evs[i]
		e.ID = fmt.Sprintf("e%07d", i+1)
		e.Line = eventLine(r, *e)
		out = append(out, *e)
		if r.IntN(50) == 0 {
			later = append(later, len(out)-1+2+r.IntN(12))
		}
		for len(later) > 0 && later[0] <= len(out) {
			out = append(out, out[len(out)-1-r.IntN(min(3, len(out)))])
			later = later[1:]
		}
	}
	for _, e := range out {
		w.WriteString(e.Line)
		w.WriteByte('\n')
	}
	d.Events = out
}

func eventLine(r *rand.Rand, e event) string {
	var props []string
	switch e.Type {
	case "page_view", "click":
		props = append(props, fmt.Sprintf(`"page":%q`, e.Page))
		if e.Type == "click" {
			props = append(props, fmt.Sprintf(`"target":"btn-%d"`, r.IntN(9)))
		} else {
			props = append(props, fmt.Sprintf(`"ms":%d`, 20+r.IntN(3000)))
		}
	case "search":
		props = append(props, fmt.Sprintf(`"q":%q`, e.Query))
	case "add_to_cart":
		props = append(props, fmt.Sprintf(`"sku":"SKU-%d","qty":%d`, 100+r.IntN(900), 1+r.IntN(3)))
	case "purchase":
		if e.Amount >= 0 {
			props = append(props, fmt.Sprintf(`"amount":%d.%02d`, e.Amount/100, e.Amount%100))
		}
		props = append(props, `"currency":"EUR"`, fmt.Sprintf(`"items":%d`, 1+r.IntN(4)))
		if e.Amount < 0 {
			props = append(props, `"note":"gift card"`)
		}
	case "signup":
		props = append(props, `"plan":"free"`)
	}
	return fmt.Sprintf(`{"id":%q,"ts":%q,"user":%q,"type":%q,"props":{%s}}`, e.ID,
		e.T.Format("2006-01-02T15:04:05.000Z"), e.User, e.Type, strings.Join(props, ","))
}
