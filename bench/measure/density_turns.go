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
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// DensityTurn is one kubelet's share of the density runs between two
// restarts: its runs FirstRun to FirstRun+Runs-1 (bench density's
// -first-run and -runs).
type DensityTurn struct {
	Kubelet  string
	FirstRun int
	Runs     int
}

// DensityTurns orders the density runs of the kubelets: one run (every N,
// every way) of each at a time, every run in the other order from the
// last (fork, upstream, upstream, fork, fork, ...), consecutive runs of
// one kubelet in one turn. The goals compare the kubelets run by run: a
// block of each, half an hour apart, let a drift of the node (the
// runtime's state, the machine's load) tell them apart; in this order a
// steady drift touches both alike, and each kubelet restarts once per two
// runs rather than once per run.
func DensityTurns(runs int, kubelets []string) []DensityTurn {
	var turns []DensityTurn
	for run := 0; run < runs; run++ {
		for i := range kubelets {
			k := kubelets[i]
			if run%2 == 1 {
				k = kubelets[len(kubelets)-1-i]
			}
			if n := len(turns); n > 0 && turns[n-1].Kubelet == k {
				turns[n-1].Runs++
				continue
			}
			turns = append(turns, DensityTurn{Kubelet: k, FirstRun: run, Runs: 1})
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
// one a line, "KUBELET FIRST_RUN RUNS", for hack/bench/run.sh to follow.
func DensityTurnsCommand(args []string) error {
	fs := flag.NewFlagSet("density-turns", flag.ContinueOnError)
	runs := fs.Int("runs", 3, "runs of every way at every N")
	kubelets := fs.String("kubelets", "", "comma-separated kubelets that have density ways, e.g. fork,upstream")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 || *kubelets == "" {
		return errors.New("density-turns: -runs must be at least 1 and -kubelets name one")
	}
	for _, t := range DensityTurns(*runs, strings.Split(*kubelets, ",")) {
		fmt.Fprintf(os.Stdout, "%s %d %d\n", t.Kubelet, t.FirstRun, t.Runs)
	}
	return nil
}
