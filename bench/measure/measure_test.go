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

package measure

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecordsAppendWholeLines checks that a second command's records
// follow the first's in the same file (hack/bench/run.sh runs each command
// once per kubelet into it), and that writes from goroutines at once (bench
// run's lanes) each give one whole line.
func TestRecordsAppendWholeLines(t *testing.T) {
	type record struct {
		Command string
		N       int
	}
	path := filepath.Join(t.TempDir(), "records.jsonl")
	first, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.write(record{"fork", 0}); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 1; i <= 50; i++ {
		wg.Go(func() {
			if err := second.write(record{"upstream", i}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]int{}
	lines := bufio.NewScanner(f)
	for i := 0; lines.Scan(); i++ {
		var r record
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("line %d is no whole record: %q: %v", i+1, lines.Text(), err)
		}
		if i == 0 && r != (record{"fork", 0}) {
			t.Errorf("the first line is %+v, want the first command's record", r)
		}
		got[r.Command]++
	}
	if diff := cmp.Diff(map[string]int{"fork": 1, "upstream": 50}, got); diff != "" {
		t.Errorf("records per command (-want +got):\n%s", diff)
	}
}
