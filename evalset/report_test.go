package evalset

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	n10 := Task{Kind: KindNeedle, Answer: "1234567", Spec: Spec{Size: 10 * KB}, Size: 9990}
	n1m := Task{Kind: KindNeedle, Answer: "7654321", Spec: Spec{Size: 1 * MB}, Size: 999_950}
	c10 := Task{Kind: KindCount, Answer: "10", Spec: Spec{Size: 10 * KB}}
	r := Summarize([]Outcome{
		{Task: c10, Answer: "9", Tokens: 100, Calls: 2, Wall: 2 * time.Second},
		{Task: n1m, Answer: "7654321", Tokens: 5000, Calls: 4, Wall: 10 * time.Second},
		{Task: n10, Answer: "1234567", Tokens: 300, Calls: 1, Wall: time.Second},
		{Task: n10, Answer: "1234567", Err: errors.New("timeout"), Tokens: 700, Calls: 3, Wall: 3 * time.Second},
	})
	want := []Row{
		{Kind: KindNeedle, Size: 10 * KB, N: 2, Errors: 1, Accuracy: 0.5, Tokens: 1000, Calls: 4, Wall: 4 * time.Second},
		{Kind: KindNeedle, Size: 1 * MB, N: 1, Accuracy: 1, Tokens: 5000, Calls: 4, Wall: 10 * time.Second},
		{Kind: KindCount, Size: 10 * KB, N: 1, Accuracy: 0.75, Tokens: 100, Calls: 2, Wall: 2 * time.Second},
	}
	if len(r.Rows) != len(want) {
		t.Fatalf("rows = %+v, want %+v", r.Rows, want)
	}
	for i := range want {
		if r.Rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, r.Rows[i], want[i])
		}
	}
	total := Row{Kind: "total", N: 4, Errors: 1, Accuracy: 2.75 / 4, Tokens: 6100, Calls: 10, Wall: 16 * time.Second}
	if r.Total != total {
		t.Errorf("total = %+v, want %+v", r.Total, total)
	}
}

func TestReportFormat(t *testing.T) {
	r := Report{
		Rows: []Row{
			{Kind: KindNeedle, Size: 10 * KB, N: 2, Errors: 1, Accuracy: 0.5, Tokens: 1000, Calls: 4, Wall: 4 * time.Second},
			{Kind: KindMostFrequent, Size: 1 * MB, N: 1, Accuracy: 1, Tokens: 5000, Calls: 4, Wall: 1500 * time.Microsecond},
		},
		Total: Row{Kind: "total", N: 3, Errors: 1, Accuracy: 2.0 / 3, Tokens: 6000, Calls: 8, Wall: 4*time.Second + 1500*time.Microsecond},
	}
	var b strings.Builder
	if err := r.Format(&b); err != nil {
		t.Fatal(err)
	}
	want := `kind      size  tasks  accuracy  errors  tokens/task  calls/task  wall/task
niah      10KB      2     0.500       1          500         2.0         2s
agg-most   1MB      1     1.000       0         5000         4.0      1.5ms
total      all      3     0.667       1         2000         2.7      1.33s
total: 3 tasks, accuracy 0.667, 6000 tokens, 8 calls, 4.002s wall
`
	if got := b.String(); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	b.Reset()
	if err := (Report{Total: Row{Kind: "total"}}).Format(&b); err != nil || !strings.Contains(b.String(), "total   all      0     0.000       0            -") {
		t.Errorf("empty report: %v\n%s", err, b.String())
	}
}

func TestSuite(t *testing.T) {
	def := Suite(nil)
	if len(def) != 7*len(DefaultSizes) {
		t.Fatalf("Suite(nil) has %d specs, want %d", len(def), 7*len(DefaultSizes))
	}
	ids := map[string]bool{}
	for _, s := range def {
		if s.Size >= GB {
			t.Errorf("default suite holds %s", taskID(s))
		}
		if _, err := normalize(s); err != nil {
			t.Errorf("%s: %v", taskID(s), err)
		}
		if ids[taskID(s)] {
			t.Errorf("duplicate %s", taskID(s))
		}
		ids[taskID(s)] = true
	}
	big := Suite([]int64{GB})
	if len(big) != 7 || big[0].Size != GB || big[0].Seed == def[0].Seed {
		t.Errorf("Suite([1GB]) = %+v", big)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"10KB", 10_000, false},
		{"10kb", 10_000, false},
		{"10k", 10_000, false},
		{"1.5MB", 1_500_000, false},
		{"1GB", 1_000_000_000, false},
		{"64MiB", 64 << 20, false},
		{"4 KiB", 4096, false},
		{"4096", 4096, false},
		{"4096B", 4096, false},
		{"", 0, true},
		{"MB", 0, true},
		{"ten", 0, true},
		{"1e6", 0, true},
		{"0x10", 0, true},
		{"-5KB", 0, true},
		{"NaN", 0, true},
		{"1e30GB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{10 * KB, "10KB"}, {MB, "1MB"}, {GB, "1GB"}, {64 << 20, "64MiB"}, {4096, "4KiB"}, {1234, "1234B"}, {1_500_000, "1500KB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if back, err := ParseSize(FormatSize(tt.in)); back != tt.in || err != nil {
			t.Errorf("ParseSize(FormatSize(%d)) = %d, %v", tt.in, back, err)
		}
	}
}
