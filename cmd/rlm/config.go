package main

import (
	"fmt"
	"os"
	"time"
)

func positive(what string, d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, usagef("%s must be positive, got %s", what, d)
	}
	return d, nil
}

// ensureHome creates RLM_HOME (0700) and returns it.
func ensureHome() (string, error) {
	home := rlmHome()
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("creating RLM_HOME %s: %w", home, err)
	}
	return home, nil
}
