//go:build unix

package baseline

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// A promotion waits for the one holding the profile's lock and then
// writes its baseline and history line together.
func TestUpdateWaitsForTheLock(t *testing.T) {
	s := Store{Root: t.TempDir()}
	unlock, err := s.Lock("p", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Update("p", []Run{{Source: "a.json", Result: run("a", 5, 0)}}, prov(), DefaultRequirements())
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Update finished while another held the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Update did not finish after the lock was released")
	}
	// A holder that never lets go: Update gives up, naming the lock.
	unlock, err = s.Lock("p", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	old := LockWait
	LockWait = 50 * time.Millisecond
	defer func() { LockWait = old }()
	if _, err := s.Update("p", []Run{{Source: "a.json", Result: run("a", 5, 0)}}, prov(), DefaultRequirements()); err == nil {
		t.Error("Update succeeded under a lock held by another")
	}
}

// Issue 20, item 7: of 20 pairs of concurrent promotions to one store, 2
// left the baseline of one and the newest history line of the other.
// Under the lock the baseline is always the newest history line's.
func TestConcurrentUpdatesKeepBaselineAndHistoryTogether(t *testing.T) {
	s := Store{Root: t.TempDir()}
	for pair := 0; pair < 20; pair++ {
		var wg sync.WaitGroup
		for k := 0; k < 2; k++ {
			wg.Add(1)
			go func(sha string) {
				defer wg.Done()
				p := prov()
				p.GitSHA = sha
				if _, err := s.Update("p", []Run{{Source: "a.json", Result: run("a", 5, 0)}}, p, DefaultRequirements()); err != nil {
					t.Error(err)
				}
			}(fmt.Sprintf("%02d-%d", pair, k))
		}
		wg.Wait()
		b, err := result.Read(s.Path("p", "a"))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := s.ReadHistory("p", "a")
		if err != nil {
			t.Fatal(err)
		}
		if last := lines[len(lines)-1].GitSHA; last != b.Provenance.GitSHA {
			t.Fatalf("pair %d: the baseline is %s's, the newest history line %s's", pair, b.Provenance.GitSHA, last)
		}
	}
}
