package loadgen

import "github.com/perfgate/perfgate/gate/metrics"

// A token message's entry in the per slice resolveTokens reads: the
// usage.completion_tokens it carried shifted left by two, hasUsage when it
// carried usage at all, hasText when it had output text.
const (
	hasText  = 1
	hasUsage = 2
)

// entry builds a token message's entry.
func entry(usage int, withUsage, text bool) uint32 {
	var v uint32
	if withUsage {
		v = uint32(min(max(usage, 0), 1<<30-1))<<2 | hasUsage
	}
	if text {
		v |= hasText
	}
	return v
}

// resolveTokens decides, once a stream has ended, how many output tokens
// each token message carried, and records the method in rec.Tokens. per
// holds one entry per token message (see entry). allUsage is true when
// every message with text carried usage; usageSeen when any message did,
// in which case rec.OutputTokens is the last usage's completion_tokens.
//
// The methods are tried best first (docs/metrics.md):
//   - usage_cumulative: the values never decrease and the last equals the
//     final total (vLLM's and SGLang's continuous_usage_stats); a message
//     without usage (chat's role chunk) carries none;
//   - usage_per_chunk: the values add up to the final total;
//   - even_split: the usage total exceeds the messages with text (ollama
//     sends zeros on every chunk, then the total), so it is divided evenly
//     over them;
//   - one_per_chunk: one token per message with text.
//
// A server tokenizer, when there is one, refines the last two after the
// trial (see tokenizer.refine).
func resolveTokens(rec *metrics.Request, per []uint32, allUsage, usageSeen bool) {
	n := len(per)
	if n == 0 {
		return
	}
	total := rec.OutputTokens
	texts := 0
	for _, v := range per {
		texts += int(v & hasText)
	}
	counts := per // rewritten in place: per is not read after this
	switch {
	case usageSeen && allUsage && cumulative(per, total):
		prev := uint32(0)
		for i, v := range per {
			counts[i] = 0
			if v&hasUsage != 0 {
				counts[i], prev = v>>2-prev, v>>2
			}
		}
		rec.Tokens = metrics.TokensUsageCumulative
	case usageSeen && allUsage && perChunk(per, total):
		for i, v := range per {
			counts[i] = v >> 2
		}
		rec.Tokens = metrics.TokensUsagePerChunk
	case usageSeen && texts > 0 && total > texts:
		evenSplit(counts, total, texts)
		rec.Tokens = metrics.TokensEvenSplit
	default:
		for i, v := range per {
			counts[i] = v & hasText
		}
		if !usageSeen && texts > 0 {
			// No usage at all (a server ignoring stream_options): count
			// the messages with text, the best without a tokenizer.
			rec.OutputTokens = texts
		}
		rec.Tokens = metrics.TokensOnePerChunk
	}
	setCounts(rec, counts)
}

// setCounts stores per-message counts as FirstChunkTokens and GapTokens,
// leaving GapTokens nil when every later message carried one token and the
// counts add up to the output total (the metrics' default, which saves 4
// bytes a gap).
func setCounts(rec *metrics.Request, counts []uint32) {
	rec.FirstChunkTokens = int(counts[0])
	rest := counts[1:]
	sum := rec.FirstChunkTokens
	ones := true
	for _, k := range rest {
		sum += int(k)
		ones = ones && k == 1
	}
	if ones && sum == rec.OutputTokens {
		rec.GapTokens = nil
		return
	}
	rec.GapTokens = rest
}

// cumulative reports whether the usage values never decrease and end at
// total (which must be positive: zeros on every chunk are ollama's
// placeholder, not a count).
func cumulative(per []uint32, total int) bool {
	prev := uint32(0)
	for _, v := range per {
		if v&hasUsage == 0 {
			continue
		}
		if v>>2 < prev {
			return false
		}
		prev = v >> 2
	}
	return prev > 0 && int(prev) == total
}

// perChunk reports whether the usage values add up to a positive total.
func perChunk(per []uint32, total int) bool {
	sum := 0
	for _, v := range per {
		sum += int(v >> 2)
	}
	return total > 0 && sum == total
}

// evenSplit divides total tokens over the texts messages with text
// (hasText in counts, which it overwrites): message j of them gets
// floor((j+1)·total/texts) − floor(j·total/texts). Messages without text
// get none.
func evenSplit(counts []uint32, total, texts int) {
	j := 0
	for i, v := range counts {
		if v&hasText == 0 {
			counts[i] = 0
			continue
		}
		counts[i] = uint32((j+1)*total/texts - j*total/texts)
		j++
	}
}

// scaleTo rescales counts (a tokenizer's per-chunk counts) to sum to total,
// by largest remainder, so the usage total the server reported stays the
// output length while the tokenizer gives its shape. Counts summing to 0
// are left alone.
func scaleTo(counts []uint32, total int) {
	sum := 0
	for _, k := range counts {
		sum += int(k)
	}
	if sum == 0 || sum == total {
		return
	}
	type rem struct {
		i    int
		frac int // remainder of k·total / sum, in units of 1/sum
	}
	assigned := 0
	rems := make([]rem, 0, len(counts))
	for i, k := range counts {
		q := int(k) * total
		counts[i] = uint32(q / sum)
		assigned += q / sum
		if k > 0 {
			rems = append(rems, rem{i, q % sum})
		}
	}
	// Hand out what rounding down left, largest remainder first (earliest
	// message on ties), so the result is deterministic.
	for left := total - assigned; left > 0; left-- {
		best := -1
		for j, r := range rems {
			if r.frac >= 0 && (best < 0 || r.frac > rems[best].frac) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		counts[rems[best].i]++
		rems[best].frac = -1
	}
}
