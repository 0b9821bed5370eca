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
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// slowMetrics stands in for a saturated kubelet's metrics endpoints: its
// n-th /metrics request (from 1) answers kubelet_sidecar_extra_probe_runs_total
// n, unless n is in hang, which it answers only after the client has
// given up. After the request numbered last it calls done once.
type slowMetrics struct {
	hang map[int]bool
	last int
	done func()

	mu sync.Mutex
	n  int
}

func (m *slowMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics/probes" {
		fmt.Fprintf(w, "prober_probe_total{container=%q,namespace=%q,pod=\"density-1\",pod_uid=\"u\",probe_type=\"Readiness\",result=\"successful\"} 2\n",
			results.SidecarName(1), namespace)
		return
	}
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	if m.hang[n] {
		<-r.Context().Done()
		return
	}
	fmt.Fprintf(w, "kubelet_sidecar_extra_probe_runs_total{outcome=\"run\"} %d\n", n)
	if n == m.last && m.done != nil {
		m.done()
	}
}

// serveSlowMetrics serves m, and a client of it that gives up on a request
// after 50 ms.
func serveSlowMetrics(t *testing.T, m *slowMetrics) func() (results.ProbeScrape, error) {
	t.Helper()
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	km := &kubeletMetrics{url: srv.URL, client: srv.Client(), timeout: 50 * time.Millisecond}
	return func() (results.ProbeScrape, error) {
		return scrapeProbes(context.Background(), km, "density-", results.SidecarName(1), "Readiness", 0)
	}
}

// extras are the scrapes' extra-run counts: which of the server's answers
// the scrapes hold.
func extras(scrapes []results.ProbeScrape) []float64 {
	var out []float64
	for _, s := range scrapes {
		out = append(out, s.Extra)
	}
	return out
}

func TestScrapeEveryCountsMissedScrapes(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// The 2nd and 4th scrapes time out; after the 6th the run stops the
	// scrapes, and the scrape in flight then (which hangs) is not a
	// missed one.
	m := &slowMetrics{hang: map[int]bool{2: true, 4: true, 7: true, 8: true}, last: 6, done: stop}
	got := scrapeEvery(ctx, 10*time.Millisecond, serveSlowMetrics(t, m))
	if diff := cmp.Diff([]float64{1, 3, 5, 6}, extras(got.scrapes)); diff != "" {
		t.Errorf("scrapes' extra runs (-want +got):\n%s", diff)
	}
	if got.missed != 2 {
		t.Errorf("missed = %d, want 2", got.missed)
	}
	for i, s := range got.scrapes {
		if s.Runs != 2 {
			t.Errorf("scrape %d: probe runs = %v, want 2", i, s.Runs)
		}
	}
}

func TestScrapeTries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hang    map[int]bool
		want    float64
		wantErr bool
	}{
		{name: "the first answers", hang: nil, want: 1},
		{name: "the third answers", hang: map[int]bool{1: true, 2: true}, want: 3},
		// A fourth try would be answered: three tries, no more.
		{name: "none of three answers", hang: map[int]bool{1: true, 2: true, 3: true}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scrapeTries(3, serveSlowMetrics(t, &slowMetrics{hang: tc.hang}))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if got.Extra != tc.want {
				t.Errorf("extra runs = %v, want %v", got.Extra, tc.want)
			}
		})
	}
}
