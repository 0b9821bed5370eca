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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestApplyLog(t *testing.T) {
	log := "2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.100Z name=sc1 event=started pid=1\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.300Z name=sc1 event=ready\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.400Z name=wait-ready event=hook-end\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.450Z name=sc1 event=ready-served\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:01.450Z name=sc1 event=ready-served\n" +
		"2026-11-22T22:00:00.000000001Z stdout P half a line\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:02.000Z name=other event=sigterm\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:03.000Z name=sc1 event=sigterm\n"
	c := results.Container{Name: "sc1"}
	applyLog(&c, log)
	at := func(s string) int64 {
		t.Helper()
		ts, err := time.Parse(time.RFC3339Nano, "2026-11-22T22:00:0"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return ts.UnixNano()
	}
	want := results.Container{Name: "sc1", Up: at("0.300"), Hook: at("0.400"), Ready: at("0.450"), Signal: at("3.000")}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("container (-want +got):\n%s", diff)
	}
}
