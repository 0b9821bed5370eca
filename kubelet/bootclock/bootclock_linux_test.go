/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bootclock

import (
	"testing"
	"time"
)

// TestReadCountsOnTheBootClock: two readings name the same boot, and the
// clock between them advanced as much as the process's monotonic clock did.
func TestReadCountsOnTheBootClock(t *testing.T) {
	first, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	second, err := Read()
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if first.BootID == "" || first.BootID != second.BootID {
		t.Errorf("boot IDs %q and %q, want one non-empty ID", first.BootID, second.BootID)
	}
	if advanced := second.SinceBoot - first.SinceBoot; advanced < elapsed-5*time.Millisecond || advanced > elapsed+50*time.Millisecond {
		t.Errorf("the boot clock advanced %s while the monotonic clock advanced %s", advanced, elapsed)
	}
}
