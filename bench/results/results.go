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

package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// readJSONLines reads a file of one JSON document of T per line, blank
// lines skipped: what bench run, probe-rate and density append to.
func readJSONLines[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// ReadSamples reads a JSON-lines file of samples.
func ReadSamples(path string) ([]Sample, error) { return readJSONLines[Sample](path) }

// ReadSegments reads a JSON-lines file of segments.
func ReadSegments(path string) ([]Segment, error) { return readJSONLines[Segment](path) }

func ms(from, to int64) float64 { return float64(to-from) / 1e6 }

// Percentile is the nearest-rank percentile of sorted values (p in 0..100);
// NaN for none.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

// FormatMS shows a figure in ms as the tables do: whole ms from 100 up,
// tenths below, "—" for NaN.
func FormatMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}

// JoinMS lists values in ms.
func JoinMS(values []float64) string {
	var parts []string
	for _, v := range values {
		parts = append(parts, FormatMS(v))
	}
	return strings.Join(parts, ", ")
}

// FormatDuration shows 500ms as 0.5 s and 5s as 5 s.
func FormatDuration(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
