package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// crashLine is one entry of crash.log: a header line and, for most ERROR entries, a Java stack
// trace (Exception, then Causes in order, outermost first).
type crashLine struct {
	T         time.Time
	Level     string
	Thread    string
	Logger    string
	Msg       string
	Order     int    // the order number in "Failed to process order N", or 0
	Exception string // "" when the entry has no trace
	TopFrame  string // the first "at" frame, as written after "at "
	Causes    []string
}

// rootCause is the class of the last "Caused by", or the exception itself.
func (c crashLine) rootCause() string {
	if len(c.Causes) > 0 {
		return c.Causes[len(c.Causes)-1]
	}
	return c.Exception
}

type failure struct {
	weight    int
	logger    string
	header    string // may hold one %d, the order number
	exception string
	message   string
	frames    []string // candidate top frames; the rest of the trace follows
	causes    [][]string
}

var failures = []failure{
	{30, "com.shop.orders.OrderService", "Failed to process order %d", "java.lang.IllegalStateException", "Order already shipped",
		[]string{"com.shop.orders.OrderService.ship(OrderService.java:118)", "com.shop.orders.OrderService.process(OrderService.java:87)"},
		[][]string{nil, {"java.sql.SQLException"}}},
	{22, "com.shop.orders.OrderService", "Failed to process order %d", "java.lang.NullPointerException", `Cannot invoke "String.length()" because "sku" is null`,
		[]string{"com.shop.orders.LineItem.validate(LineItem.java:52)", "com.shop.orders.OrderService.process(OrderService.java:91)"},
		[][]string{nil}},
	{18, "com.shop.payments.PaymentClient", "Payment capture failed for order %d", "com.shop.payments.PaymentException", "capture declined",
		[]string{"com.shop.payments.PaymentClient.capture(PaymentClient.java:203)"},
		[][]string{{"java.net.SocketTimeoutException"}, {"java.io.IOException", "java.net.SocketTimeoutException"}, nil}},
	{14, "com.shop.inventory.StockController", "Request failed: GET /api/stock", "org.springframework.dao.DataAccessResourceFailureException", "Unable to acquire JDBC Connection",
		[]string{"org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)"},
		[][]string{{"java.sql.SQLTransientConnectionException"}, {"java.sql.SQLTransientConnectionException", "java.net.ConnectException"}}},
	{9, "com.shop.search.Indexer", "Scheduled job reindex failed", "java.lang.OutOfMemoryError", "Java heap space",
		[]string{"java.util.Arrays.copyOf(Arrays.java:3537)", "com.shop.search.Indexer.buffer(Indexer.java:140)"},
		[][]string{nil}},
	{12, "com.shop.orders.OrderService", "Failed to process order %d", "java.util.ConcurrentModificationException", "",
		[]string{"java.base/java.util.ArrayList$Itr.checkForComodification(ArrayList.java:1095)"},
		[][]string{nil}},
	{10, "com.shop.api.JsonMapper", "Request failed: POST /api/orders", "com.fasterxml.jackson.core.JsonParseException", "Unexpected character ('}' (code 125))",
		[]string{"com.fasterxml.jackson.core.JsonParser._constructError(JsonParser.java:2391)"},
		[][]string{nil, {"java.io.EOFException"}}},
}

var (
	crashThreads = []string{"pool-1-thread-1", "pool-1-thread-2", "pool-1-thread-3", "pool-1-thread-4", "pool-1-thread-5",
		"http-nio-8080-exec-1", "http-nio-8080-exec-2", "http-nio-8080-exec-3", "http-nio-8080-exec-4", "scheduler-1", "main"}
	infoMsgs = []string{"Order %d accepted", "Cache warmed in %dms", "Health check ok (%dms)", "Processed batch of %d events",
		"User session refreshed after %ds"}
	causeMsgs = map[string]string{"java.sql.SQLException": "Connection reset", "java.net.SocketTimeoutException": "Read timed out",
		"java.io.IOException": "Broken pipe", "java.sql.SQLTransientConnectionException": "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
		"java.net.ConnectException": "Connection refused", "java.io.EOFException": "No content to map due to end-of-input"}
	tailFrames = []string{"com.shop.api.Router.dispatch(Router.java:66)", "org.apache.catalina.core.StandardWrapperValve.invoke(StandardWrapperValve.java:197)",
		"java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)", "java.base/java.lang.Thread.run(Thread.java:833)"}
)

// genCrash writes crash.log: about 14,000 log4j-style entries from 08:00 on, a fifth of them
// ERROR, most ERROR entries followed by a Java stack trace with zero to two "Caused by" parts.
func (d *Data) genCrash(r *rand.Rand, w *bufio.Writer) {
	t := time.Date(2026, 3, 14, 8, 0, 0, 0, time.UTC)
	weights := make([]int, len(failures))
	for i, f := range failures {
		weights[i] = f.weight
	}
	for range 14000 {
		t = t.Add(ms(300 + r.IntN(6000)))
		c := crashLine{T: t, Thread: pick(r, crashThreads, 1.3), Level: "INFO", Logger: "com.shop.App"}
		switch k := r.IntN(100); {
		case k < 20:
			c = crashError(r, c, failures[weighted(r, weights)])
		case k < 30:
			c.Level, c.Logger, c.Msg = "WARN", "com.shop.db.QueryLog", fmt.Sprintf("Slow query took %dms", 500+r.IntN(5000))
		default:
			c.Msg = fmt.Sprintf(infoMsgs[r.IntN(len(infoMsgs))], 10+r.IntN(90000))
		}
		writeCrash(r, w, c)
		d.Crash = append(d.Crash, c)
	}
}

func crashError(r *rand.Rand, c crashLine, f failure) crashLine {
	c.Level, c.Logger, c.Msg = "ERROR", f.logger, f.header
	if strings.Contains(f.header, "%d") {
		c.Order = 10000 + r.IntN(2500)
		c.Msg = fmt.Sprintf(f.header, c.Order)
	}
	if r.IntN(20) == 0 {
		return c // no trace
	}
	c.Exception = f.exception
	c.TopFrame = f.frames[r.IntN(len(f.frames))]
	c.Causes = f.causes[r.IntN(len(f.causes))]
	return c
}

func writeCrash(r *rand.Rand, w *bufio.Writer, c crashLine) {
	ts := c.T.Format("2006-01-02 15:04:05") + fmt.Sprintf(",%03d", c.T.Nanosecond()/1e6)
	fmt.Fprintf(w, "%s %-5s [%s] %s - %s\n", ts, c.Level, c.Thread, c.Logger, c.Msg)
	if c.Exception == "" {
		return
	}
	var msg string
	for _, f := range failures {
		if f.exception == c.Exception {
			msg = f.message
		}
	}
	if msg != "" {
		fmt.Fprintf(w, "%s: %s\n", c.Exception, msg)
	} else {
		fmt.Fprintf(w, "%s\n", c.Exception)
	}
	fmt.Fprintf(w, "\tat %s\n", c.TopFrame)
	for _, f := range tailFrames[r.IntN(2):] {
		fmt.Fprintf(w, "\tat %s\n", f)
	}
	for _, cause := range c.Causes {
		fmt.Fprintf(w, "Caused by: %s: %s\n", cause, causeMsgs[cause])
		fmt.Fprintf(w, "\tat %s\n", tailFrames[r.IntN(len(tailFrames))])
		fmt.Fprintf(w, "\t... %d more\n", 3+r.IntN(20))
	}
}
