package bootstrap

import (
	"fmt"
	"strings"
	"time"
)

// Progress is how far the whole bootstrap is, counted in trials of cells
// (a calibration of K starts x N trials of W workloads is K·N·W of them,
// the first baseline n·W more). Server starts are not counted apart: their
// time is spread over the trials measured so far, which is what a rate
// from elapsed time does.
type Progress struct {
	// Stage names what runs now ("calibration", "baseline").
	Stage       string
	Done, Total int
	Elapsed     time.Duration
}

// ETA is the time left at the rate so far; false until a trial is done.
func (p Progress) ETA() (time.Duration, bool) {
	if p.Done <= 0 || p.Total <= p.Done {
		return 0, p.Done > 0
	}
	per := p.Elapsed / time.Duration(p.Done)
	return per * time.Duration(p.Total-p.Done), true
}

// Line is the progress line init prints: a bar, the share, the stage and
// the ETA for the whole bootstrap.
func (p Progress) Line() string {
	const width = 20
	share := 0.0
	if p.Total > 0 {
		share = min(float64(p.Done)/float64(p.Total), 1)
	}
	filled := int(share * width)
	bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
	eta := "ETA unknown until the first cell is done"
	if d, ok := p.ETA(); ok {
		eta = "ETA " + d.Round(time.Second).String()
	}
	return fmt.Sprintf("init: [%s] %3.0f %% %s, %d/%d trials, %s elapsed, %s", bar, 100*share, p.Stage, p.Done, p.Total,
		p.Elapsed.Round(time.Second), eta)
}
