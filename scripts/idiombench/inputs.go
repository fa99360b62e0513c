package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The inputs are generated from a fixed seed, so every run (and every contender) reads the same
// bytes. Their non-ASCII text stays in the Basic Multilingual Plane (Latin with accents, Cyrillic,
// Greek without capital sigma, CJK): a JS string's length then counts code points, as Python's
// len does, and lower-casing agrees between Go, JS and Python. key=value fields are ASCII.

var services = []string{"api", "auth", "payments", "search", "billing", "gateway"}

var paths = []string{"/v1/orders", "/v1/users", "/v1/cart", "/v2/search", "/health", "/v1/payments"}

// messageWords are the words of a log line's free text: English, German, French, Russian, Greek,
// Chinese and Japanese, some capitalised.
var messageWords = strings.Fields(`request completed in time cache miss for key retrying upstream call
timeout while waiting Zahlung bestätigt für Café Müller Ärger mit der Übertragung Ökonomie
paiement refusé par la banque émettrice naïve résumé déjà vu Élise
Платёж отклонён процессором Москва пользователь вошёл ошибка сети
Ο χρήστης συνδέθηκε επιτυχώς Αθήνα σφάλμα δικτύου
支付成功 订单已发货 用户登录 网络错误 ユーザーがログインしました 東京 エラー`)

var cities = []string{"Zürich", "São Paulo", "Москва", "東京", "Αθήνα", "Kraków", "Reykjavík", "Berlin", "Lyon", "Montréal"}

var notes = []string{"", "gift", "express", "rückgabe", "доставка", "再配達", "fragile", "late"}

func level(rng *rand.Rand) string {
	switch p := rng.IntN(100); {
	case p < 8:
		return "ERROR"
	case p < 20:
		return "WARN"
	case p < 30:
		return "DEBUG"
	}
	return "INFO"
}

// logLine is one line of a service log:
//
//	2024-03-05 14:07:09.123 ERROR payments req=r0001234 user=u0421 status=502 latency_ms=1234 path=/v1/orders/7781 | Zahlung bestätigt für Café Müller
func logLine(rng *rand.Rand, i int) string {
	var b strings.Builder
	sec := i / 3
	fmt.Fprintf(&b, "2024-03-%02d %02d:%02d:%02d.%03d %s %s req=r%07d user=u%04d status=%d latency_ms=%d path=%s/%d |",
		1+sec/86400%28, sec/3600%24, sec/60%60, sec%60, rng.IntN(1000), level(rng), services[rng.IntN(len(services))],
		i, rng.IntN(5000), []int{200, 200, 200, 201, 204, 301, 400, 404, 500, 502, 503}[rng.IntN(11)],
		1+rng.IntN(2000), paths[rng.IntN(len(paths))], rng.IntN(10000))
	for range 3 + rng.IntN(6) {
		b.WriteByte(' ')
		b.WriteString(messageWords[rng.IntN(len(messageWords))])
	}
	return b.String()
}

// csvLine is one row of an orders table (id,user,city,qty,price,note); ids are distinct.
func csvLine(rng *rand.Rand, i int) string {
	return fmt.Sprintf("%d,u%04d,%s,%d,%d.%02d,%s", uint32(i*2654435761), rng.IntN(5000), cities[rng.IntN(len(cities))],
		1+rng.IntN(50), rng.IntN(1000), rng.IntN(100), notes[rng.IntN(len(notes))])
}

// jsonLine is one event as a JSON object (non-ASCII text left as it is, not \u-escaped).
func jsonLine(rng *rand.Rand, i int) string {
	tags := []string{}
	for range rng.IntN(4) {
		tags = append(tags, []string{"retry", "slow", "cached", "beta", "eu", "us"}[rng.IntN(6)])
	}
	var words []string
	for range 2 + rng.IntN(5) {
		words = append(words, messageWords[rng.IntN(len(messageWords))])
	}
	ev := struct {
		TS        string   `json:"ts"`
		Level     string   `json:"level"`
		Service   string   `json:"service"`
		User      string   `json:"user"`
		Status    int      `json:"status"`
		LatencyMS int      `json:"latency_ms"`
		Tags      []string `json:"tags"`
		Msg       string   `json:"msg"`
	}{fmt.Sprintf("2024-03-05T%02d:%02d:%02d.%03dZ", i/3600%24, i/60%60, i%60, rng.IntN(1000)), level(rng),
		services[rng.IntN(len(services))], fmt.Sprintf("u%04d", rng.IntN(5000)),
		[]int{200, 200, 200, 201, 404, 500, 503}[rng.IntN(7)], 1 + rng.IntN(2000), tags, strings.Join(words, " ")}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

var generators = map[string]struct {
	header string
	line   func(*rand.Rand, int) string
}{
	"log":   {"", logLine},
	"csv":   {"id,user,city,qty,price,note", csvLine},
	"jsonl": {"", jsonLine},
}

// generate returns about size bytes of the kind of input ("log", "csv", "jsonl"): whole lines,
// each ended by "\n".
func generate(kind string, size int) string {
	g, ok := generators[kind]
	if !ok {
		panic("no input kind " + kind)
	}
	rng := rand.New(rand.NewPCG(19, uint64(len(kind))))
	var b strings.Builder
	b.Grow(size + 512)
	if g.header != "" {
		b.WriteString(g.header + "\n")
	}
	for i := 0; b.Len() < size; i++ {
		b.WriteString(g.line(rng, i))
		b.WriteByte('\n')
	}
	return b.String()
}

// writeInput writes the input of a kind and size into dir, once, and returns its path.
func writeInput(dir, kind string, size int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.txt", kind, size))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	return path, os.WriteFile(path, []byte(generate(kind, size)), 0o644)
}
