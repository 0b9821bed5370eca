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

package prober

// This file belongs to sidecar-kubelet's patch series: the runtime's pace,
// to which the extra runs of waited-on probes yield.

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
)

// runtimeStartMeter is the runtime's recent pace: how long it took to
// create and start a container, as the kubelet measured its own CRI calls
// (kubelet_runtime_operations_duration_seconds, create_container and
// start_container). It reads the histogram at most once a second for the
// whole node and gives the mean of each operation over the calls since its
// last reading, summed; 0 when the runtime created or started no container
// since, or when the kubelet's metrics are not registered (unit tests of
// other packages): no reason to yield then. A reading more than
// runtimeStartStale after the last one (no sidecar was waited on
// meanwhile) is a new baseline only, and gives 0 too. The zero value is
// ready to use.
type runtimeStartMeter struct {
	mu     sync.Mutex
	readAt time.Time
	// sums and counts are the histograms' at readAt, per operation.
	sums   [2]float64
	counts [2]uint64
	recent time.Duration
}

// runtimeStartStale is how old the last reading may be for the calls
// since then to be the runtime's recent pace. The meter is read only while
// a sidecar is waited on; after a pause, the calls since the last reading
// may be those of a busy time that is over (a hundred pods started a
// minute ago), and their mean would space the checks of the next pod's
// sidecar out to a quarter of it: make bench's density runs saw the extra
// checks of the ten pods that followed a run of 110 all but stop (2 and 0
// extra runs, against 120 to 263 in their other runs). While sidecars are
// waited on, readings come at least every MaxExtraCheckInterval, or a
// quarter of the runtime's start where it yields: 10 s allows for a
// runtime that takes 40 s to start a container.
const runtimeStartStale = 10 * time.Second

// runtimeStartOperations are the CRI calls of a container's start, as the
// instrumented runtime service names them.
var runtimeStartOperations = [2]string{"create_container", "start_container"}

// latency returns the runtime's recent create-and-start latency, read anew
// when the last reading is a second old.
func (r *runtimeStartMeter) latency(now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.readAt.IsZero() && now.Sub(r.readAt) < time.Second {
		return r.recent
	}
	// The calls since the last reading are recent only when it is.
	fresh := !r.readAt.IsZero() && now.Sub(r.readAt) <= runtimeStartStale
	var recent float64
	for i, op := range runtimeStartOperations {
		sum, count, ok := runtimeOperationTotals(op)
		if !ok {
			continue
		}
		if fresh && count > r.counts[i] && sum >= r.sums[i] {
			recent += (sum - r.sums[i]) / float64(count-r.counts[i])
		}
		r.sums[i], r.counts[i] = sum, count
	}
	r.readAt = now
	r.recent = time.Duration(recent * float64(time.Second))
	return r.recent
}

// runtimeOperationTotals reads the sum (seconds) and count of one
// operation's runtime call durations so far.
func runtimeOperationTotals(operation string) (float64, uint64, bool) {
	m, ok := kubeletmetrics.RuntimeOperationsDuration.WithLabelValues(operation).(prometheus.Metric)
	if !ok {
		return 0, 0, false
	}
	var out dto.Metric
	if err := m.Write(&out); err != nil || out.Histogram == nil {
		return 0, 0, false
	}
	return out.Histogram.GetSampleSum(), out.Histogram.GetSampleCount(), true
}
