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
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestParseProbeMetrics(t *testing.T) {
	text := `# HELP prober_probe_total [BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.
# TYPE prober_probe_total counter
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="failed"} 3
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="successful"} 2
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="unknown"} 1
prober_probe_total{container="sc2",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Startup",result="successful"} 1
prober_probe_total{container="proxy",namespace="other",pod="p1",pod_uid="u9",probe_type="Readiness",result="successful"} 7
prober_probe_total{container="sc\"x",namespace="sk-bench",pod="p2",pod_uid="u2",probe_type="Liveness",result="failed"} 4 1700000000000
prober_probe_duration_seconds_count{container="sc1",namespace="sk-bench",pod="p1",probe_type="Readiness"} 2
process_start_time_seconds 1.79545968489e+09
`
	got, err := parseProbeMetrics(strings.NewReader(text), "sk-bench")
	if err != nil {
		t.Fatal(err)
	}
	want := map[probeKey]*results.ProbeCount{
		{"p1", "sc1", "Readiness"}:  {Type: "Readiness", Successful: 2, Failed: 3, Unknown: 1},
		{"p1", "sc2", "Startup"}:    {Type: "Startup", Successful: 1},
		{"p2", "sc\"x", "Liveness"}: {Type: "Liveness", Failed: 4},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(probeKey{})); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if _, err := parseProbeMetrics(strings.NewReader(`prober_probe_total{pod="x} 1`), "sk-bench"); err == nil {
		t.Error("an unterminated label value parsed")
	}
}

func TestParseProcStat(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "24516 (kube let) x) S 1 24516 24516 0 -1 4194560 30402 0 0 0 1234 567 0 0 20 0 14 0 224989 2092392448 26270 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0"
	got, err := parseProcStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procCPU{Seconds: 18.01, StartTime: 224989}); math.Abs(got.Seconds-want.Seconds) > 1e-9 || got.StartTime != want.StartTime {
		t.Errorf("parseProcStat = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20"} {
		if _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q) did not fail", bad)
		}
	}
	// This process's own stat parses too.
	if _, err := readProcCPU(os.Getpid()); err != nil {
		t.Errorf("readProcCPU(self): %v", err)
	}
}

const failedLine = `I1123 18:57:19.988427   24516 prober.go:123] "Probe failed" probeType="Readiness" pod="sk-bench/w0-svc1-r0-l0-1" podUID="aa4f" containerName="sc1" probeResult="failure" output="Get \"http://10.88.0.5:8081/ready\": dial tcp 10.88.0.5:8081: connect: connection refused"`

func TestParseProbeFailedLine(t *testing.T) {
	now := time.Date(2026, 11, 23, 19, 0, 0, 0, time.UTC)
	pod, p, ok := parseProbeFailedLine(failedLine, now)
	if !ok {
		t.Fatal("not parsed")
	}
	want := loggedProbe{container: "sc1", probeType: "Readiness", at: time.Date(2026, 11, 23, 18, 57, 19, 988427000, time.UTC).UnixNano()}
	if pod != "sk-bench/w0-svc1-r0-l0-1" || p != want {
		t.Errorf("got %q %+v, want %+v", pod, p, want)
	}
	// A line of 31 December read on 1 January is last year's.
	if _, p, _ := parseProbeFailedLine(strings.Replace(failedLine, "I1123 18:57", "I1231 23:59", 1), time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC)); time.Unix(0, p.at).UTC().Year() != 2026 {
		t.Errorf("year %d, want 2026", time.Unix(0, p.at).UTC().Year())
	}
	for _, line := range []string{
		strings.Replace(failedLine, `"Probe failed"`, `"Probe succeeded"`, 1),
		strings.Replace(failedLine, ` containerName="sc1"`, "", 1),
		"I1123 18:5",
	} {
		if _, _, ok := parseProbeFailedLine(line, now); ok {
			t.Errorf("parsed %q", line)
		}
	}
}

func TestProbeLogCatchUp(t *testing.T) {
	path := t.TempDir() + "/kubelet.log"
	old := strings.Replace(failedLine, "w0-svc1-r0-l0-1", "before-the-run", 1) + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := newProbeLog(path, "sk-bench")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	second := strings.Replace(failedLine, "18:57:19.988427", "18:57:19.938427", 1)
	other := strings.Replace(failedLine, "sk-bench/", "elsewhere/", 1)
	// The second line is half written at the first read.
	fmt.Fprintf(f, "%s\n%s\nI1123 18:57:20.000000 1 x.go:1] \"Probe succeeded\"\n%s", failedLine, other, second[:40])
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s\n", second[40:])
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	got := l.take("w0-svc1-r0-l0-1")
	if len(got) != 2 || got[0].at >= got[1].at || got[0].container != "sc1" {
		t.Errorf("lines %+v, want the two of the pod in time order", got)
	}
	if again := l.take("w0-svc1-r0-l0-1"); len(again) != 0 || len(l.take("before-the-run")) != 0 {
		t.Errorf("taken twice, or a line from before the run: %+v", again)
	}
}
