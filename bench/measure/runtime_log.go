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

// When the kubelet called CreateContainer and StopContainer on each
// container, and when the calls returned, as containerd's CRI service logs
// them. The stops split c (the last app's exit → the first sidecar's
// SIGTERM) into the runtime's parts and the kubelet's own, sample by
// sample: the kubelet learns that an app stopped when its StopContainer
// returns, and the sidecar's SIGTERM follows the sidecar's StopContainer
// call; what lies between the two is the kubelet's. The first app's create
// is the part of a′ that creating the apps before their sidecar is ready
// (and starting them at its readiness) could save at most.

import (
	"strings"
	"sync"
	"time"
)

// criCalls is what containerd logged of one container's CreateContainer
// and StopContainer calls: the call received and its return, Unix ns; of
// the stops, the first call and the first return.
type criCalls struct {
	createCalled, createReturned int64
	stopCalled, stopReturned     int64
}

// logTime reads the time of a line of containerd's log (its default text
// format): containerd's, on the node's clock, the same clock as the
// runtime's CreatedAt and FinishedAt and the test server's times.
func logTime(line string) (int64, bool) {
	_, ts, found := strings.Cut(line, `time="`)
	if !found {
		return 0, false
	}
	ts, _, found = strings.Cut(ts, `"`)
	if !found {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0, false
	}
	return t.UnixNano(), true
}

// parseStopLine reads one line of containerd's log that records a
// StopContainer call or its return:
//
//	time="2026-11-28T03:34:35.683008967Z" level=info msg="StopContainer for \"<id>\" with timeout 30 (s)"
//	time="2026-11-28T03:34:35.821383629Z" level=info msg="StopContainer for \"<id>\" returns successfully"
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
	at, ok = logTime(line)
	if !ok {
		return "", 0, false, false
	}
	return id, at, returned, true
}

// parseCreateLine reads one line of containerd's log that records a
// CreateContainer call or its return:
//
//	time="2026-11-28T09:27:05.689891663Z" level=info msg="CreateContainer within sandbox \"<sandbox>\" for container name:\"app\""
//	time="2026-11-28T09:27:05.713098762Z" level=info msg="CreateContainer within sandbox \"<sandbox>\" for name:\"app\" returns container id \"<id>\""
//
// The call names no container id: key, the sandbox and the container's
// metadata as logged (its name and attempt), pairs it with its return,
// which names the id.
func parseCreateLine(line string) (key, id string, at int64, returned, ok bool) {
	_, rest, found := strings.Cut(line, `msg="CreateContainer within sandbox \"`)
	if !found {
		return "", "", 0, false, false
	}
	sandbox, rest, found := strings.Cut(rest, `\"`)
	if !found || sandbox == "" {
		return "", "", 0, false, false
	}
	var meta string
	switch {
	case strings.HasPrefix(rest, " for container "):
		meta, found = strings.CutSuffix(strings.TrimPrefix(rest, " for container "), `"`)
	case strings.HasPrefix(rest, " for "):
		meta, rest, found = strings.Cut(strings.TrimPrefix(rest, " for "), ` returns container id \"`)
		if found {
			id, _, found = strings.Cut(rest, `\"`)
			found = found && id != ""
			returned = true
		}
	}
	if !found || meta == "" {
		return "", "", 0, false, false
	}
	at, ok = logTime(line)
	if !ok {
		return "", "", 0, false, false
	}
	return sandbox + " " + meta, id, at, returned, true
}

// criCallLog follows containerd's log from where it was when the run began
// and keeps, by container id, its CreateContainer and StopContainer calls.
type criCallLog struct {
	file *followedLog
	mu   sync.Mutex
	byID map[string]criCalls
	// creating holds the CreateContainer calls not returned yet, by
	// parseCreateLine's key.
	creating map[string]int64
}

func newCRICallLog(path string) (*criCallLog, error) {
	f, err := followLog(path)
	if err != nil {
		return nil, err
	}
	return &criCallLog{file: f, byID: map[string]criCalls{}, creating: map[string]int64{}}, nil
}

// catchUp reads what containerd wrote since the last call.
func (l *criCallLog) catchUp() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines, err := l.file.newLines()
	if err != nil {
		return err
	}
	for _, line := range lines {
		if id, at, returned, ok := parseStopLine(line); ok {
			c := l.byID[id]
			if returned && c.stopReturned == 0 {
				c.stopReturned = at
			} else if !returned && c.stopCalled == 0 {
				c.stopCalled = at
			}
			l.byID[id] = c
			continue
		}
		key, id, at, returned, ok := parseCreateLine(line)
		switch {
		case !ok:
		case !returned:
			l.creating[key] = at
		default:
			// A return whose call was logged before the run began has
			// no call to pair with: its create is not known.
			if called, ok := l.creating[key]; ok {
				delete(l.creating, key)
				c := l.byID[id]
				c.createCalled, c.createReturned = called, at
				l.byID[id] = c
			}
		}
	}
	return nil
}

// take returns and forgets what was logged of the containers ids.
func (l *criCallLog) take(ids []string) map[string]criCalls {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]criCalls{}
	for _, id := range ids {
		if c, ok := l.byID[id]; ok {
			out[id] = c
			delete(l.byID, id)
		}
	}
	return out
}
