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

// What the kubelet itself says about the probes it runs and the CPU it
// spends: its /metrics/probes endpoint (prober_probe_total), its log
// ("Probe failed" lines, at --v=1 and up) and /proc/<pid>/stat.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// probeKey names one probe: pod, container, probe type.
type probeKey struct{ pod, container, probeType string }

// parseProbeMetrics reads the Prometheus text of the kubelet's
// /metrics/probes and returns prober_probe_total of the pods of namespace,
// by pod, container and probe type.
func parseProbeMetrics(r io.Reader, namespace string) (map[probeKey]*results.ProbeCount, error) {
	out := map[probeKey]*results.ProbeCount{}
	err := forEachCounter(r, "prober_probe_total", func(labels map[string]string, value float64) {
		if labels["namespace"] != namespace {
			return
		}
		k := probeKey{labels["pod"], labels["container"], labels["probe_type"]}
		pc := out[k]
		if pc == nil {
			pc = &results.ProbeCount{Type: k.probeType}
			out[k] = pc
		}
		switch labels["result"] {
		case "successful":
			pc.Successful += int(value)
		case "failed":
			pc.Failed += int(value)
		default:
			pc.Unknown += int(value)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parseLabels parses a Prometheus label set: name="value",... (values are
// Go-quoted strings as far as Prometheus' escapes go: \\, \" and \n).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("label without a value: %q", s)
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, fmt.Errorf("label %s: %v", name, err)
		}
		v, _ := strconv.Unquote(q)
		out[strings.TrimSpace(name)] = v
		s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[len(q):]), ","))
	}
	return out, nil
}

// kubeletMetrics scrapes the kubelet's own endpoint (the API server's node
// proxy refuses the local cluster's 127.0.0.1 node address).
type kubeletMetrics struct {
	url     string // e.g. https://127.0.0.1:10350
	client  *http.Client
	timeout time.Duration // of one request
}

// newKubeletMetrics is a client of the kubelet's own endpoint with the
// admin's client certificate and the cluster's CA, as for the API server:
// the kubelet trusts the same CA.
func newKubeletMetrics(cfg *rest.Config, url string) (*kubeletMetrics, error) {
	tlsCfg := rest.CopyConfig(cfg)
	tlsCfg.Host = url
	tr, err := rest.TransportFor(tlsCfg)
	if err != nil {
		return nil, err
	}
	return &kubeletMetrics{url: strings.TrimSuffix(url, "/"), client: &http.Client{Transport: tr}, timeout: 5 * time.Second}, nil
}

// get fetches one of the kubelet's endpoints and hands its body to parse.
func (k *kubeletMetrics) get(ctx context.Context, path string, parse func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s%s: %s: %s", k.url, path, resp.Status, bytes.TrimSpace(b))
	}
	return parse(resp.Body)
}

func (k *kubeletMetrics) probes(ctx context.Context, namespace string) (map[probeKey]*results.ProbeCount, error) {
	var counts map[probeKey]*results.ProbeCount
	err := k.get(ctx, "/metrics/probes", func(r io.Reader) (err error) {
		counts, err = parseProbeMetrics(r, namespace)
		return err
	})
	return counts, err
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture the kubelet runs on.
const clockTicks = 100

// procCPU is a process's CPU time from /proc/<pid>/stat.
type procCPU struct {
	Seconds   float64 // utime + stime
	StartTime uint64  // in clock ticks after boot: tells a reused pid apart
}

// parseProcStat reads utime, stime and starttime from the text of
// /proc/<pid>/stat (the command name may hold spaces and parentheses).
func parseProcStat(stat string) (procCPU, error) {
	i := strings.LastIndex(stat, ")")
	if i < 0 {
		return procCPU{}, fmt.Errorf("no command name in %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime, stime and starttime are fields 14,
	// 15 and 22.
	if len(f) < 20 {
		return procCPU{}, fmt.Errorf("too few fields in %q", stat)
	}
	var v [3]uint64
	for j, field := range []int{14, 15, 22} {
		n, err := strconv.ParseUint(f[field-3], 10, 64)
		if err != nil {
			return procCPU{}, fmt.Errorf("field %d of %q: %v", field, stat, err)
		}
		v[j] = n
	}
	return procCPU{Seconds: float64(v[0]+v[1]) / clockTicks, StartTime: v[2]}, nil
}

func readProcCPU(pid int) (procCPU, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procCPU{}, err
	}
	return parseProcStat(string(b))
}

// A loggedProbe is one "Probe failed" line of the kubelet's log.
type loggedProbe struct {
	container, probeType string
	at                   int64 // Unix ns
}

// parseProbeFailedLine reads a klog text line of the kubelet's prober:
//
//	I1123 18:57:19.988427   24516 prober.go:123] "Probe failed" probeType="Readiness" pod="ns/name" podUID="..." containerName="c" probeResult="failure" output="..."
//
// The header has no year and is in the kubelet's local time; the year is
// taken from now (the last one, for a date after now).
func parseProbeFailedLine(line string, now time.Time) (pod string, p loggedProbe, ok bool) {
	_, msg, found := strings.Cut(line, "] \"Probe failed\" ")
	if !found || len(line) < 21 {
		return "", p, false
	}
	t, err := time.ParseInLocation("0102 15:04:05.000000", line[1:21], now.Location())
	if err != nil {
		return "", p, false
	}
	t = t.AddDate(now.Year(), 0, 0)
	if t.After(now.Add(24 * time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	kv := map[string]string{}
	for _, key := range []string{"probeType", "pod", "containerName"} {
		_, rest, found := strings.Cut(" "+msg, " "+key+"=")
		if !found {
			return "", p, false
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", p, false
		}
		kv[key], _ = strconv.Unquote(q)
	}
	return kv["pod"], loggedProbe{container: kv["containerName"], probeType: kv["probeType"], at: t.UnixNano()}, true
}

// probeLog follows the kubelet's log file from where it was when the run
// began and keeps the "Probe failed" lines of one namespace's pods.
type probeLog struct {
	file   *followedLog
	prefix string // "namespace/"
	mu     sync.Mutex
	byPod  map[string][]loggedProbe
}

func newProbeLog(path, namespace string) (*probeLog, error) {
	f, err := followLog(path)
	if err != nil {
		return nil, err
	}
	return &probeLog{file: f, prefix: namespace + "/", byPod: map[string][]loggedProbe{}}, nil
}

// catchUp reads what the kubelet wrote since the last call.
func (l *probeLog) catchUp() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines, err := l.file.newLines()
	if err != nil {
		return err
	}
	now := time.Now()
	for _, line := range lines {
		if !strings.Contains(line, "\"Probe failed\"") || !strings.Contains(line, "pod=\""+l.prefix) {
			continue
		}
		pod, p, ok := parseProbeFailedLine(line, now)
		if !ok || !strings.HasPrefix(pod, l.prefix) {
			continue
		}
		name := strings.TrimPrefix(pod, l.prefix)
		l.byPod[name] = append(l.byPod[name], p)
	}
	return nil
}

// followedLog reads a log file that its writer appends to, from where it
// was when the run began: each call the whole lines written since the last.
type followedLog struct {
	path    string
	offset  int64
	partial []byte
}

func followLog(path string) (*followedLog, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &followedLog{path: path, offset: st.Size()}, nil
}

// newLines returns the whole lines written since the last call (a line
// still being written waits for the next).
func (l *followedLog) newLines() ([]string, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < l.offset {
		l.offset, l.partial = 0, nil // truncated or replaced
	}
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	l.offset += int64(len(b))
	b = append(l.partial, b...)
	last := bytes.LastIndexByte(b, '\n')
	if last < 0 {
		l.partial = b
		return nil, nil
	}
	l.partial = append([]byte(nil), b[last+1:]...)
	return strings.Split(string(b[:last]), "\n"), nil
}

// take returns and forgets the lines of a pod, in time order.
func (l *probeLog) take(pod string) []loggedProbe {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.byPod[pod]
	delete(l.byPod, pod)
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}
