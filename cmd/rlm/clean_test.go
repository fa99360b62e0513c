package main

import (
	"testing"
	"time"
)

// TestParseAge: clean --older-than takes days as well as Go durations.
func TestParseAge(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{in: "1d", want: day},
		{in: "30d", want: 30 * day},
		{in: "1d12h", want: day + 12*time.Hour},
		{in: "0d", want: 0},
		{in: "36h", want: 36 * time.Hour},
		{in: "90m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: "0s", want: 0},
		{in: "1.5d", err: true},
		{in: "d", err: true},
		{in: "-1d", err: true},
		{in: "1d-2h", err: true},
		{in: "1x", err: true},
		{in: "100000d", err: true}, // past what a duration holds comfortably
		{in: "1h2d", err: true},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * 24 * time.Hour:         "30d",
		24*time.Hour + 12*time.Hour: "1d12h0m0s",
		36 * time.Minute:            "36m0s",
		0:                           "0s",
	} {
		if got := formatAge(d); got != want {
			t.Errorf("formatAge(%v) = %q, want %q", d, got, want)
		}
		if back, err := parseAge(formatAge(d)); err != nil || back != d {
			t.Errorf("parseAge(formatAge(%v)) = %v, %v", d, back, err)
		}
	}
}
