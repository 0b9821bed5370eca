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
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// DensityTurn is one kubelet's share of the density runs between two
// restarts: run Run of every way at each N of Ns (bench density's
// -first-run, -runs 1 and -n).
type DensityTurn struct {
	Kubelet string
	Run     int
	Ns      []int
}

// DensityTurns orders the density runs of the kubelets: for each run and
// each N, every way of each kubelet, the kubelets' order reversed from one
// N (and run) to the next (fork, upstream, upstream, fork, ...), so that
// each kubelet keeps its turn across two N and restarts about once per N.
// The goals compare a fork way's run with its rival's run of the same
// index and N: in this order the two are minutes apart, and a spell of
// the machine's load (its neighbours, on a shared host) falls on both.
// Turns of a whole run (every N, every way) put pairs up to two turns
// apart, and with the default ways a fork turn took six times as long as
// an upstream one: in the reference run of 2026-12-02 (docs/bench's
// density.json) the fork's runs at 30 pods in its second turn,
// fork/no-sidecars' among them, spent clearly more of the node's CPU per
// pod than those of its first, while upstream's runs before and after
// that turn did not move. Turns do not run across runs: a kubelet whose
// turn would span two runs restarts between them.
func DensityTurns(runs int, kubelets []string, ns []int) []DensityTurn {
	var turns []DensityTurn
	for run := 0; run < runs; run++ {
		for i, n := range ns {
			for j := range kubelets {
				k := kubelets[j]
				if (run+i)%2 == 1 {
					k = kubelets[len(kubelets)-1-j]
				}
				if last := len(turns) - 1; last >= 0 && turns[last].Kubelet == k && turns[last].Run == run {
					turns[last].Ns = append(turns[last].Ns, n)
					continue
				}
				turns = append(turns, DensityTurn{Kubelet: k, Run: run, Ns: []int{n}})
			}
		}
	}
	return turns
}

// waysOfRun is the order of the ways in run run: rotated by one a run, so
// that no way is always the first after a kubelet restart or always the
// last of a turn, and a drift within a turn falls on each way alike over
// the runs.
func waysOfRun(ways []results.Way, run int) []results.Way {
	if len(ways) == 0 {
		return nil
	}
	k := run % len(ways)
	return append(append([]results.Way(nil), ways[k:]...), ways[:k]...)
}

// DensityTurnsCommand is bench density-turns: the turns of DensityTurns,
// one a line, "KUBELET RUN N,N...", for hack/bench/run.sh to follow.
func DensityTurnsCommand(args []string) error {
	fs := flag.NewFlagSet("density-turns", flag.ContinueOnError)
	runs := fs.Int("runs", 3, "runs of every way at every N")
	kubelets := fs.String("kubelets", "", "comma-separated kubelets that have density ways, e.g. fork,upstream")
	counts := fs.String("n", "", "pods created at once, a comma-separated list, as bench density's -n")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || *kubelets == "" {
		return errors.New("density-turns: -runs must be at least 1 and -kubelets name one")
	}
	ns, err := parseDensityList(*counts)
	if err != nil {
		return fmt.Errorf("density-turns: -n: %v", err)
	}
	for _, t := range DensityTurns(*runs, strings.Split(*kubelets, ","), ns) {
		counts := make([]string, len(t.Ns))
		for i, n := range t.Ns {
			counts[i] = strconv.Itoa(n)
		}
		fmt.Fprintf(os.Stdout, "%s %d %s\n", t.Kubelet, t.Run, strings.Join(counts, ","))
	}
	return nil
}
