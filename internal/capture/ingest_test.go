package capture

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPrepareAllNamesTheBadMemory checks a batch error names the first bad
// memory's index, whether the batch was derived on one goroutine or several.
func TestPrepareAllNamesTheBadMemory(t *testing.T) {
	for _, n := range []int{3, 500} {
		ins := make([]Input, n)
		for i := range ins {
			ins[i] = Input{Content: "a fine memory about the garden"}
		}
		bad := n / 2
		ins[bad].Timestamp = "not a time"
		ins[n-1].Content = ""
		_, err := PrepareAll(ins, 1<<16, time.Now())
		want := "memories[" + strconv.Itoa(bad) + "].timestamp"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("batch of %d: err = %v, want it to start with %s", n, err, want)
		}
	}
	if _, err := PrepareAll([]Input{{Content: ""}}, 1<<16, time.Now()); err == nil || !strings.HasPrefix(err.Error(), "content:") {
		t.Errorf("single: err = %v, want a content error without an index", err)
	}
}
