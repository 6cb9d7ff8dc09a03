package ab

import (
	"strings"
	"testing"
)

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		n    int
		seed uint64
		want string
		err  string
	}{
		{n: 2, want: "AB"},
		{n: 4, want: "ABBA"},
		{n: 6, want: "ABBABA"},
		{n: 8, want: "ABBABAAB"},
		{n: 16, want: "ABBABAABABBABAAB"},
		{n: 0, err: "blocks 0: want an even number"},
		{n: 7, err: "blocks 7: want an even number"},
		{n: -2, err: "blocks -2"},
	} {
		got, err := Order(tc.n, tc.seed)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Order(%d, %d): error %v, want %q", tc.n, tc.seed, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Order(%d, %d) = %q, %v; want %q", tc.n, tc.seed, got, err, tc.want)
		}
	}
}

// TestOrderBalanced checks, for the fixed and many seeded orders, that
// every pair holds one A and one B, every quad is mirrored (so a linear
// drift's contributions over it sum to zero), a seed gives the same order
// every time, and orders of different lengths from one seed are prefixes
// of each other.
func TestOrderBalanced(t *testing.T) {
	distinct := map[string]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		long, err := Order(40, seed)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := Order(40, seed); again != long {
			t.Fatalf("seed %d: %q then %q", seed, long, again)
		}
		distinct[long] = true
		if err := Check(long); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		for n := 2; n < 40; n += 2 {
			short, _ := Order(n, seed)
			if !strings.HasPrefix(long, short) {
				t.Errorf("seed %d: Order(%d) = %q is not a prefix of Order(40) = %q", seed, n, short, long)
			}
		}
		// A linear drift t (block position) enters pair k's B-A
		// difference as s_k; over every quad the s_k sum to 0.
		s := pairSigns(long)
		for q := 0; q+1 < len(s); q += 2 {
			if s[q]+s[q+1] != 0 {
				t.Errorf("seed %d: quad %d of %q does not cancel a linear drift", seed, q/2+1, long)
			}
		}
	}
	if len(distinct) < 150 {
		t.Errorf("200 seeds gave only %d distinct orders of 40 blocks: the seed barely matters", len(distinct))
	}
}

func TestExtend(t *testing.T) {
	for _, tc := range []struct {
		order string
		more  int
		seed  uint64
		want  string
		err   string
	}{
		{order: "ABBA", more: 4, want: "ABBABAAB"},
		{order: "ABBABA", more: 2, want: "ABBABAAB"},
		{order: "ABBABA", more: 6, want: "ABBABAABABBA"},
		{order: "BAAB", more: 2, seed: 0, want: "BAABBA"}, // quad 2 of the fixed pattern is BAAB
		{order: "AB", more: 2, seed: 9, want: "ABBA"},     // a half quad is completed by its mirror
		{order: "BA", more: 2, seed: 9, want: "BAAB"},
		{order: "ABBA", more: 3, err: "more blocks 3"},
		{order: "ABBA", more: 0, err: "more blocks 0"},
		{order: "ABAB", more: 4, err: "not a mirrored quad"},
		{order: "AABB", more: 4, err: "must hold one A and one B"},
		{order: "ABC", more: 2, err: "even number"},
		{order: "ABBC", more: 2, err: "block 4 is 'C'"},
		{order: "", more: 2, err: "even number"},
	} {
		got, err := Extend(tc.order, tc.more, tc.seed)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Extend(%q, %d, %d): error %v, want %q", tc.order, tc.more, tc.seed, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Extend(%q, %d, %d) = %q, %v; want %q", tc.order, tc.more, tc.seed, got, err, tc.want)
		}
	}
	// Extending the order a seed made gives the longer order of that seed.
	for seed := uint64(0); seed < 50; seed++ {
		for _, n := range []int{2, 6, 8, 16} {
			o, _ := Order(n, seed)
			got, err := Extend(o, 10, seed)
			want, _ := Order(n+10, seed)
			if err != nil || got != want {
				t.Errorf("seed %d: Extend(Order(%d), 10) = %q, %v; want Order(%d) = %q", seed, n, got, err, n+10, want)
			}
		}
	}
}

// FuzzExtend feeds arbitrary orders to Check and Extend: they never panic,
// Extend accepts exactly what Check accepts, and what it returns is
// balanced and starts with its input.
func FuzzExtend(f *testing.F) {
	f.Add("ABBA", 4, uint64(0))
	f.Add("ABBABA", 2, uint64(3))
	f.Add("AABB", 2, uint64(1))
	f.Add("", 0, uint64(0))
	f.Fuzz(func(t *testing.T, order string, more int, seed uint64) {
		if more > 1000 || more < -1000 {
			return
		}
		checked := Check(order)
		got, err := Extend(order, more, seed)
		if checked != nil {
			if err == nil {
				t.Fatalf("Extend(%q) accepted an order Check rejects: %v", order, checked)
			}
			return
		}
		if err != nil {
			if more >= 2 && more%2 == 0 {
				t.Fatalf("Extend(%q, %d): %v", order, more, err)
			}
			return
		}
		if !strings.HasPrefix(got, order) || len(got) != len(order)+more {
			t.Fatalf("Extend(%q, %d) = %q", order, more, got)
		}
		if err := Check(got); err != nil {
			t.Fatalf("Extend(%q, %d) = %q: %v", order, more, got, err)
		}
	})
}
