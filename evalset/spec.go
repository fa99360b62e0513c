package evalset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// normalize checks spec and fills in the defaults. Fields a kind does not use are cleared, so
// that equal tasks have equal specs.
func normalize(spec Spec) (Spec, error) {
	switch spec.Kind {
	case KindNeedle:
	case KindCount, KindMostFrequent, KindCompare:
		spec.Depth, spec.Distractors, spec.Filler = 0, 0, ""
	default:
		return spec, fmt.Errorf("evalset: unknown kind %q (want %s, %s, %s or %s)",
			spec.Kind, KindNeedle, KindCount, KindMostFrequent, KindCompare)
	}
	if spec.Size < MinSize {
		return spec, fmt.Errorf("evalset: size %d is below the minimum %d", spec.Size, MinSize)
	}
	if spec.Kind != KindNeedle {
		return spec, nil
	}
	if math.IsNaN(spec.Depth) || spec.Depth < 0 || spec.Depth > 1 {
		return spec, fmt.Errorf("evalset: depth %v is outside [0, 1]", spec.Depth)
	}
	if spec.Distractors < 0 || spec.Distractors > MaxDistractors {
		return spec, fmt.Errorf("evalset: %d distractors is outside [0, %d]", spec.Distractors, MaxDistractors)
	}
	if reserve := int64(spec.Distractors+1) * maxNeedleLen; reserve > spec.Size/2 {
		return spec, fmt.Errorf("evalset: %d distractors need a size of at least %d", spec.Distractors, 2*reserve)
	}
	switch spec.Filler {
	case "":
		spec.Filler = FillerProse
	case FillerProse, FillerLog:
	default:
		return spec, fmt.Errorf("evalset: unknown filler %q (want %s or %s)", spec.Filler, FillerProse, FillerLog)
	}
	return spec, nil
}

// taskID names a spec: kind, filler, size, depth in percent, distractors, seed.
func taskID(spec Spec) string {
	var b strings.Builder
	b.WriteString(spec.Kind)
	if spec.Kind == KindNeedle && spec.Filler == FillerLog {
		b.WriteString("-log")
	}
	b.WriteString("-" + formatSize(spec.Size))
	if spec.Kind == KindNeedle {
		fmt.Fprintf(&b, "-d%d", int(math.Round(spec.Depth*100)))
		if spec.Distractors > 0 {
			fmt.Fprintf(&b, "-x%d", spec.Distractors)
		}
	}
	fmt.Fprintf(&b, "-s%d", spec.Seed)
	return b.String()
}

// suiteFor is the standard set of specs of one size. Seeds differ per size and per spec.
func suiteFor(size int64) []Spec {
	specs := []Spec{
		{Kind: KindNeedle, Depth: 0.05},
		{Kind: KindNeedle, Depth: 0.5},
		{Kind: KindNeedle, Depth: 0.95},
		{Kind: KindNeedle, Depth: 0.3, Distractors: 8, Filler: FillerLog},
		{Kind: KindCount},
		{Kind: KindMostFrequent},
		{Kind: KindCompare},
	}
	for i := range specs {
		specs[i].Size = size
		specs[i].Seed = int64(i+1)*1_000_003 + size%1_000_000_007
		// Small sizes hold fewer distractors: the needles may take half the input at most.
		specs[i].Distractors = max(0, min(specs[i].Distractors, int(size/(2*maxNeedleLen))-1))
	}
	return specs
}

var sizeUnits = []struct {
	suffix string
	n      int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
	{"KB", KB}, {"MB", MB}, {"GB", GB},
	{"K", KB}, {"M", MB}, {"G", GB}, {"B", 1},
}

func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.n
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "eEnNxXpP") {
		return 0, fmt.Errorf("evalset: bad size %q (want e.g. 10KB, 1.5MB, 1GB, 64MiB)", s)
	}
	v := f * float64(mult)
	if v < 0 || v > math.MaxInt64/2 {
		return 0, errors.New("evalset: size " + strconv.Quote(s) + " is out of range")
	}
	return int64(math.Round(v)), nil
}

func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GB", GB}, {"GiB", 1 << 30}, {"MB", MB}, {"MiB", 1 << 20}, {"KB", KB}, {"KiB", 1 << 10}} {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
