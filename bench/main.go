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

// Command bench measures sidecar ordering on the local cluster (make bench):
// the fork's annotated sidecars against native sidecars, the postStart-hook
// workaround and the unpatched kubelet. hack/bench/run.sh drives it.
//
//	bench run -kubeconfig K -cri unix:///.../containerd.sock -pod-logs DIR \
//	    -ways fork/annotated,... -repeat N -out samples.jsonl
//	    [-parallel P] [-kubelet-url https://127.0.0.1:PORT -kubelet-pid PID -kubelet-log FILE -segments segments.jsonl]
//	bench probe-rate -kubeconfig K -kubelet-url URL [-kubelet-pid PID] -ways ... -pods N -out probe-rates.jsonl
//	bench density -kubeconfig K -cri unix:///.../containerd.sock -pod-logs DIR -kubelet-url URL \
//	    [-kubelet-pid PID -containerd-pid PID] -ways ... [-n 10,30] [-first-run 0] [-runs 3] [-seed S] -out density.jsonl
//	bench density-turns -runs 3 -kubelets fork,upstream
//	bench chain -kubeconfig K -cri unix:///.../containerd.sock -pod-logs DIR -ways ... [-sidecars 20] [-repeat 2] -out chain.jsonl
//	bench never-ready -kubeconfig K -kubelet-url URL -cri ... -pod-logs DIR -ways ... [-pods 10] [-late 15s,30s,45s] -out never-ready.jsonl
//	bench report -samples samples.jsonl [-segments segments.jsonl] [-probe-rates F] [-density F] [-chain F] [-never-ready F] [-gobench go.txt] [-meta meta.md] -out DIR
//	bench figures -samples samples.jsonl|samples.json [-density density.jsonl|density.json] -meta meta.md|report.md [-took T] -out DIR
//
// run creates the pods of one way at a time (-parallel lanes of them at
// once, each lane one pod after another) and records, for each container, the CRI's
// created/started/finished times (nanoseconds), the test server's own
// logged times (first 200 on /ready, SIGTERM), and the receive times of the
// API server's watch events for the pod (containers ready, Succeeded,
// deleted), and what the kubelet counted of the pod's probes (its
// /metrics/probes, scraped once the containers are ready, and its log's
// failed probe runs); every sample is appended to -out as one JSON line.
// Each way's run is appended to -segments with the kubelet's CPU time over
// it (/proc/<pid>/stat). density creates N pods at once per way (see
// measure/density.go) and appends one JSON line per run; density-turns
// says in which order the kubelets take their density runs. report turns the
// samples into report.md (the tables), samples.json, segments.json, one
// timeline SVG per scenario and a′ per way as a box plot (aprime.svg); with
// -density, also the density table, density.json and its pictures
// (density-*.svg).
// figures writes the blocks of docs/benchmarks.md that quote the run's
// figures (see report/figures.go), from a quiet run only.
//
// The work is done in bench's packages, one per concern: measure runs the
// pods and records what it saw (run, probe-rate, density, chain,
// never-ready), report turns those records into the report and the docs'
// figures (report, figures), pictures draws the SVGs, and results holds
// the records that pass between them and what each one's figures are.
// This file only picks the subcommand.
package main

import (
	"fmt"
	"os"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/measure"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/report"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench run|probe-rate|density|density-turns|chain|never-ready|reclaim|memory-cgroups|report|figures [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = measure.RunCommand(os.Args[2:])
	case "report":
		err = report.Command(os.Args[2:])
	case "probe-rate":
		err = measure.ProbeRateCommand(os.Args[2:])
	case "density":
		err = measure.DensityCommand(os.Args[2:])
	case "density-turns":
		err = measure.DensityTurnsCommand(os.Args[2:])
	case "chain":
		err = measure.ChainCommand(os.Args[2:])
	case "never-ready":
		err = measure.NeverReadyCommand(os.Args[2:])
	case "reclaim":
		err = measure.ReclaimCommand(os.Args[2:])
	case "memory-cgroups":
		err = measure.MemoryCgroupsCommand(os.Args[2:])
	case "figures":
		err = report.FiguresCommand(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want run, probe-rate, density, density-turns, chain, never-ready, reclaim, memory-cgroups, report or figures)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
