package evalset

import (
	"math/bits"
	"math/rand/v2"
	"strings"
)

// The vocabulary of the filler. No word holds a digit, a '|', a category name or a needle's
// words, so that a needle or a record field can be found by its form alone.
var (
	determiners  = []string{"the", "a", "every", "one", "that", "this", "each", "some", "another", "no"}
	adjectives   = []string{"quiet", "distant", "narrow", "bright", "heavy", "ancient", "gentle", "rapid", "hollow", "silver", "crowded", "patient", "sudden", "careful", "wooden", "northern", "bitter", "faint", "restless", "open", "shallow", "golden", "ordinary", "steady", "curious", "broken", "humble", "tall", "pale", "warm", "cold", "empty", "loyal", "clever", "weary", "brisk", "lonely", "sharp", "soft", "vast"}
	nouns        = []string{"river", "lantern", "merchant", "village", "engine", "garden", "window", "harbor", "letter", "painter", "bridge", "forest", "kitchen", "soldier", "teacher", "market", "meadow", "tower", "ship", "road", "valley", "clock", "library", "farmer", "storm", "stone", "mirror", "wagon", "island", "castle", "orchard", "factory", "student", "traveler", "harvest", "mountain", "candle", "doctor", "sailor", "workshop", "festival", "council", "journal", "violin", "cottage", "desert", "canal", "shepherd", "archive", "station"}
	verbs        = []string{"carried", "watched", "crossed", "repaired", "followed", "painted", "visited", "measured", "ignored", "opened", "described", "found", "left", "guarded", "built", "recorded", "shared", "lifted", "passed", "studied", "reached", "praised", "borrowed", "mended", "traced", "returned", "questioned", "welcomed", "sketched", "gathered"}
	prepositions = []string{"near", "beyond", "behind", "across", "under", "above", "beside", "through", "along", "toward", "around", "past"}
	adverbs      = []string{"slowly", "quietly", "early", "later", "again", "often", "rarely", "finally", "gladly", "soon", "barely", "calmly"}
	conjunctions = []string{"and", "but", "while", "because", "so", "although"}
)

// Needle keys are colour-animal pairs; neither word occurs in the filler.
var (
	keyColours = []string{"amber", "azure", "cobalt", "crimson", "ivory", "jade", "scarlet", "olive", "violet", "teal", "ochre", "copper", "indigo", "maroon", "saffron", "umber"}
	keyAnimals = []string{"otter", "falcon", "badger", "heron", "lynx", "marten", "ibis", "walrus", "gecko", "bison", "puffin", "tapir", "jackal", "osprey", "newt", "weasel"}
)

// Record categories, and words that a record's text of that category tends to use.
var categories = []string{"billing", "shipping", "refunds", "login", "hardware", "pricing", "privacy", "feedback"}

var categoryWords = [][]string{
	{"invoice", "charge", "statement", "payment", "receipt"},
	{"parcel", "courier", "delivery", "tracking", "package"},
	{"return", "reimbursement", "credit", "exchange", "chargeback"},
	{"password", "session", "lockout", "username", "passcode"},
	{"cable", "battery", "screen", "charger", "keyboard"},
	{"discount", "quote", "subscription", "tariff", "coupon"},
	{"consent", "deletion", "cookie", "tracker", "profile"},
	{"suggestion", "compliment", "survey", "review", "idea"},
}

var (
	openers  = []string{"asked about the", "wrote about the", "complained about the", "called about the", "needs help with the", "reported a problem with the", "has a question on the", "followed up on the"}
	services = []string{"orders", "payments", "search", "auth", "gateway", "catalog", "mailer", "scheduler"}
	levels   = []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN "}
)

// rng is a deterministic random source: PCG, a fully specified algorithm, with bounded draws done
// here, so that the bytes for a seed never change with the Go release.
type rng struct{ p *rand.PCG }

// Streams keep the draws of different purposes independent.
const (
	streamNeedle uint64 = 0x6e65656466696c6c
	streamRecord uint64 = 0x7265636f72647321
)

func newRNG(seed int64, stream uint64) rng {
	return rng{rand.NewPCG(uint64(seed), stream)}
}

// intn returns a number in [0, n), n > 0 (Lemire's multiply-shift, without rejection: the bias is
// below 2^-50 for the small n used here).
func (r rng) intn(n int) int {
	hi, _ := bits.Mul64(r.p.Uint64(), uint64(n))
	return int(hi)
}

// float returns a number in [0, 1).
func (r rng) float() float64 {
	return float64(r.p.Uint64()>>11) / (1 << 53)
}

func (r rng) pick(words []string) string { return words[r.intn(len(words))] }

// appendPhrase appends "<det> [<adj>] <noun>", with "an" for "a" before a vowel.
func appendPhrase(b []byte, r rng) []byte {
	det, adj, noun := r.pick(determiners), "", ""
	if r.intn(2) == 0 {
		adj = r.pick(adjectives)
	}
	noun = r.pick(nouns)
	next := noun
	if adj != "" {
		next = adj
	}
	b = append(b, det...)
	if det == "a" && strings.IndexByte("aeiou", next[0]) >= 0 {
		b = append(b, 'n')
	}
	if adj != "" {
		b = append(b, ' ')
		b = append(b, adj...)
	}
	b = append(b, ' ')
	return append(b, noun...)
}

// appendClause appends "<phrase> <verb> <phrase> [<prep> <phrase>] [<adverb>]".
func appendClause(b []byte, r rng) []byte {
	b = appendPhrase(b, r)
	b = append(b, ' ')
	b = append(b, r.pick(verbs)...)
	b = append(b, ' ')
	b = appendPhrase(b, r)
	if r.intn(2) == 0 {
		b = append(b, ' ')
		b = append(b, r.pick(prepositions)...)
		b = append(b, ' ')
		b = appendPhrase(b, r)
	}
	if r.intn(3) == 0 {
		b = append(b, ' ')
		b = append(b, r.pick(adverbs)...)
	}
	return b
}

// appendSentence appends one to three clauses, capitalised, with a full stop.
func appendSentence(b []byte, r rng) []byte {
	start := len(b)
	b = appendClause(b, r)
	for n := r.intn(3); n > 0; n-- {
		b = append(b, ", "...)
		b = append(b, r.pick(conjunctions)...)
		b = append(b, ' ')
		b = appendClause(b, r)
	}
	b[start] -= 'a' - 'A'
	return append(b, '.')
}
