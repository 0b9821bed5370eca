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

// What bench chain records of a pod of many sidecars started one after
// another (measure/chain.go runs it), and the pod's figures against issue
// 36's goal: its steps, one per sidecar, and its first sidecar's start →
// the app's start against n × (ChainReadyAfter + the runtime's start) +
// ChainSlack.

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

const (
	// ChainReadyAfter is how long after its start each sidecar of the
	// chain turns ready (its READY_AFTER).
	ChainReadyAfter = 500 * time.Millisecond
	// ChainSlack is what the goal allows the ordering over a whole chain:
	// detection, the kubelet's syncs and its CreateContainer calls.
	ChainSlack = 5 * time.Second
)

// ChainPod is one chain pod's run: a JSON line of bench chain.
type ChainPod struct {
	Way      string `json:"way"`
	Kubelet  string `json:"kubelet"`
	Sidecars int    `json:"sidecars"`
	Repeat   int    `json:"repeat"`
	Pod      string `json:"pod"`
	// Unix ns: the create call, and the watch's first ContainersReady.
	Create          int64 `json:"create"`
	ContainersReady int64 `json:"containersReady,omitempty"`
	// Containers: the CRI's times and the test server's logged ones, in
	// the pod's order (sidecars, then the app), read while the pod ran.
	Containers []Container `json:"containers,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// A ChainStep is one sidecar's turn in a chain, Unix ns: its start, its
// /ready turning 200, its readiness seen, and the next container's (the
// next sidecar's, or the app's) CreateContainer and start.
type ChainStep struct {
	Sidecar                  string
	Started, Up, Seen        int64
	NextCreated, NextStarted int64
}

// Own is the sidecar's own time to turn ready, in ms: READY_AFTER plus its
// process's start, the same in every way.
func (s ChainStep) Own() float64 { return ms(s.Started, s.Up) }

// Detect is its /ready turning 200 → its readiness seen: by the waited-on
// probe (the 200 it was served, the test server's record) or by the
// postStart hook's poll.
func (s ChainStep) Detect() float64 { return ms(s.Up, s.Seen) }

// Kubelet is the readiness seen → the next container's CreateContainer:
// the probe's result reaching the kubelet (an exec probe's ExecSync
// returning), its sync, and its CreateContainer call up to the runtime's
// CreatedAt.
func (s ChainStep) Kubelet() float64 { return ms(s.Seen, s.NextCreated) }

// RuntimeStart is the runtime's start of the next container: its CRI
// CreatedAt → StartedAt, both the runtime's own clock.
//
// This is the goal's "runtime's start", measured per step in the same pod,
// not a reference figure: it is the part of a step that the runtime does
// and reports itself, the same StartContainer (runc creating and starting
// the process) in every way; of the kubelet's, only its hand-over from the
// create call to the start call falls inside (the internal lifecycle's
// PreStartContainer, the same in every way too). Everything before CreatedAt
// (detection, the result's way back, the kubelet's sync and its
// CreateContainer call) is the ordering's, which the goal's 5 s allow for.
// A reference pod's create → start would add the scheduler, the sandbox
// and its network, none of which a chain's step goes through; the time
// from the previous sidecar's readiness seen to the next start (Kubelet +
// RuntimeStart) would hand the kubelet's own part, upstream's wait for the
// next relist among it, to the runtime. CreatedAt is taken when the
// runtime has created the container, so the create call itself (about
// 25 ms in the 2026-11-23 trace, docs/benchmarks.md) stays on the
// ordering's side: stricter, alike for every way.
func (s ChainStep) RuntimeStart() float64 { return ms(s.NextCreated, s.NextStarted) }

// Whole is the sidecar's start → the next container's start.
func (s ChainStep) Whole() float64 { return ms(s.Started, s.NextStarted) }

// seenReady is when a sidecar's readiness was seen, as Intervals takes it:
// the first 200 its /ready served (to the waited-on probe), or the
// postStart hook's return when that came first.
func seenReady(c Container) int64 {
	if c.Hook != 0 && (c.Ready == 0 || c.Hook < c.Ready) {
		return c.Hook
	}
	return c.Ready
}

// ChainSteps are the pod's steps, one per sidecar in the pod's order.
func (p ChainPod) ChainSteps() ([]ChainStep, error) {
	var sidecars []Container
	var app *Container
	for i := range p.Containers {
		c := p.Containers[i]
		if c.Sidecar {
			if app != nil {
				return nil, fmt.Errorf("sidecar %s after the app", c.Name)
			}
			sidecars = append(sidecars, c)
		} else if app == nil {
			app = &p.Containers[i]
		}
	}
	if len(sidecars) == 0 || app == nil {
		return nil, fmt.Errorf("%d sidecars and no app, or no sidecar", len(sidecars))
	}
	var steps []ChainStep
	var missing []string
	for i, c := range sidecars {
		next := *app
		if i+1 < len(sidecars) {
			next = sidecars[i+1]
		}
		st := ChainStep{Sidecar: c.Name, Started: c.Started, Up: c.Up, Seen: seenReady(c), NextCreated: next.Created, NextStarted: next.Started}
		for _, t := range []struct {
			what string
			at   int64
		}{{c.Name + "'s start", st.Started}, {c.Name + "'s /ready turning 200", st.Up}, {c.Name + "'s readiness seen", st.Seen},
			{next.Name + "'s CreateContainer", st.NextCreated}, {next.Name + "'s start", st.NextStarted}} {
			if t.at == 0 {
				missing = append(missing, t.what)
			}
		}
		steps = append(steps, st)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no time of %s", strings.Join(missing, ", "))
	}
	return steps, nil
}

// ChainFigures are a chain pod's figures against the goal, in ms.
type ChainFigures struct {
	Sidecars int
	// Span: the first sidecar's start → the app's start.
	Span float64
	// RuntimeStarts: the steps' runtime starts (ChainStep.RuntimeStart)
	// summed; Bound: the goal, Sidecars × ChainReadyAfter + RuntimeStarts
	// + ChainSlack.
	RuntimeStarts, Bound float64
	Steps                []ChainStep
}

// Met says whether the pod's app started within the goal's bound.
func (f ChainFigures) Met() bool { return f.Span <= f.Bound }

// Figures computes the pod's figures; an error when the pod failed or a
// time is missing.
func (p ChainPod) Figures() (ChainFigures, error) {
	if p.Error != "" {
		return ChainFigures{}, errors.New(p.Error)
	}
	steps, err := p.ChainSteps()
	if err != nil {
		return ChainFigures{}, err
	}
	f := ChainFigures{Sidecars: len(steps), Span: ms(steps[0].Started, steps[len(steps)-1].NextStarted), Steps: steps}
	for _, s := range steps {
		f.RuntimeStarts += s.RuntimeStart()
	}
	f.Bound = float64(len(steps))*float64(ChainReadyAfter.Milliseconds()) + f.RuntimeStarts + float64(ChainSlack.Milliseconds())
	return f, nil
}

// ReadChainPods reads a JSON-lines file of ChainPod.
func ReadChainPods(path string) ([]ChainPod, error) { return readJSONLines[ChainPod](path) }
