package taskset

import (
	"fmt"
	"strings"
	"time"
)

// References of the tasks written after the corpus, from the system prompt alone, for questions
// of other shapes: the last match of a pattern (search's paging), two context files at once
// (ctx1), and an order of events per user.

func refLastError(d *Data) string {
	for i := len(d.Log) - 1; i >= 0; i-- {
		if l := d.Log[i]; l.Level == "ERROR" {
			return mustJSON(map[string]any{"line": i + 1, "req": l.Req})
		}
	}
	return "null"
}

func refTwoLogsErrorMinutes(d *Data) string {
	web := map[time.Time]bool{}
	for _, l := range d.Log {
		if l.Level == "ERROR" {
			web[l.T.Truncate(time.Minute)] = true
		}
	}
	both := map[time.Time]bool{}
	for _, c := range d.Crash {
		if m := c.T.Truncate(time.Minute); c.Level == "ERROR" && web[m] {
			both[m] = true
		}
	}
	return fmt.Sprint(len(both))
}

func refYogaThenPurchase(d *Data) string {
	first := map[string]time.Time{}
	for _, e := range d.Events {
		if e.Type != "search" || !strings.EqualFold(e.Query, "yoga mat") {
			continue
		}
		if t, ok := first[e.User]; !ok || e.T.Before(t) {
			first[e.User] = e.T
		}
	}
	buyers := map[string]bool{}
	for _, e := range d.Events {
		if t, ok := first[e.User]; ok && e.Type == "purchase" && e.T.After(t) {
			buyers[e.User] = true
		}
	}
	return fmt.Sprint(len(buyers))
}
