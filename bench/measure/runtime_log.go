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

// When the kubelet called StopContainer on each container, and when the
// call returned, as containerd's CRI service logs them: the moments that
// split c (the last app's exit → the first sidecar's SIGTERM) into the
// runtime's parts and the kubelet's own, sample by sample. The kubelet
// learns that an app stopped when its StopContainer returns, and the
// sidecar's SIGTERM follows the sidecar's StopContainer call; what lies
// between the two is the kubelet's.

import (
	"strings"
	"sync"
	"time"
)

// stopCall is what containerd logged of the StopContainer calls of one
// container: the first call received and the first return, Unix ns.
type stopCall struct{ called, returned int64 }

// parseStopLine reads one line of containerd's log (its default text
// format) that records a StopContainer call or its return:
//
//	time="2026-11-28T03:34:35.683008967Z" level=info msg="StopContainer for \"<id>\" with timeout 30 (s)"
//	time="2026-11-28T03:34:35.821383629Z" level=info msg="StopContainer for \"<id>\" returns successfully"
//
// The time is containerd's, on the node's clock, the same clock as the
// runtime's FinishedAt and the test server's times.
func parseStopLine(line string) (id string, at int64, returned, ok bool) {
	_, rest, found := strings.Cut(line, `msg="StopContainer for \"`)
	if !found {
		return "", 0, false, false
	}
	id, rest, found = strings.Cut(rest, `\"`)
	if !found || id == "" {
		return "", 0, false, false
	}
	switch {
	case strings.HasPrefix(rest, " with timeout "):
	case strings.HasPrefix(rest, " returns successfully"):
		returned = true
	default:
		return "", 0, false, false // an error return: no stop happened then
	}
	_, ts, found := strings.Cut(line, `time="`)
	if !found {
		return "", 0, false, false
	}
	ts, _, found = strings.Cut(ts, `"`)
	if !found {
		return "", 0, false, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return "", 0, false, false
	}
	return id, t.UnixNano(), returned, true
}

// stopLog follows containerd's log from where it was when the run began and
// keeps, by container id, its StopContainer calls.
type stopLog struct {
	file *followedLog
	mu   sync.Mutex
	byID map[string]stopCall
}

func newStopLog(path string) (*stopLog, error) {
	f, err := followLog(path)
	if err != nil {
		return nil, err
	}
	return &stopLog{file: f, byID: map[string]stopCall{}}, nil
}

// catchUp reads what containerd wrote since the last call.
func (l *stopLog) catchUp() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines, err := l.file.newLines()
	if err != nil {
		return err
	}
	for _, line := range lines {
		id, at, returned, ok := parseStopLine(line)
		if !ok {
			continue
		}
		c := l.byID[id]
		if returned && c.returned == 0 {
			c.returned = at
		} else if !returned && c.called == 0 {
			c.called = at
		}
		l.byID[id] = c
	}
	return nil
}

// take returns and forgets what was logged of the containers ids.
func (l *stopLog) take(ids []string) map[string]stopCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]stopCall{}
	for _, id := range ids {
		if c, ok := l.byID[id]; ok {
			out[id] = c
			delete(l.byID, id)
		}
	}
	return out
}
