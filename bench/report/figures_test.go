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

package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quietMeta is a meta.md as hack/bench/run.sh writes it, of a quiet run
// with a configuration beside the defaults.
const quietMeta = "Run on 2026-11-26 23:57 UTC, `make bench` with BENCH_REPEAT=1, BENCH_PARALLEL=4 and BENCH_DENSITY=10,110, on 2 cores\n" +
	"(AMD EPYC, 24 GiB),\n" +
	"Load average (1, 5, 15 min) at the start: 1.33 5.30 9.18; 0 Go compiler processes of other builds were running.\n" +
	"The machine was quiet at the start (load ≤ 1.5, no other build).\n" +
	"Feature gates of the kubelet v9.9.1-sidecar-kubelet+abc: SidecarContainerOrdering=true.\n" +
	"Feature gates of the kubelet v9.9.1: .\n" +
	// The density runs' turns: each kubelet restarted again.
	"Feature gates of the kubelet v9.9.1-sidecar-kubelet+abc: SidecarContainerOrdering=true.\n" +
	"Feature gates of the kubelet v9.9.1: .\n" +
	"Feature gates of the kubelet v9.9.1-sidecar-kubelet+abc: SidecarContainerOrdering=true.\n" +
	"Beside upstream's defaults, the ways ran again with EventedPLEG=true added to both kubelets' gates:\n" +
	"Feature gates of the kubelet v9.9.1-sidecar-kubelet+abc: EventedPLEG=true,SidecarContainerOrdering=true.\n" +
	"Load average at the end of the pods' runs: 3.84 7.53 12.35.\n"

func TestParseRunInfo(t *testing.T) {
	ri, err := parseRunInfo(quietMeta + "\nWritten by `make bench` ...\n**A scratch run: not read past the header**\n")
	if err != nil {
		t.Fatal(err)
	}
	if !ri.Quiet || ri.Date != "2026-11-26 23:57 UTC" || ri.Repeat != "1" || ri.Parallel != "4" || ri.Density != "10,110" || ri.Load != "1.33" || ri.Beside != "EventedPLEG=true" {
		t.Errorf("parseRunInfo = %+v", ri)
	}
	if want := []string{"`v9.9.1-sidecar-kubelet+abc`: SidecarContainerOrdering=true", "`v9.9.1`: upstream's defaults"}; strings.Join(ri.Gates, "|") != strings.Join(want, "|") {
		t.Errorf("gates = %q, want the defaults' only, each kubelet once: %q", ri.Gates, want)
	}
	// make bench now names the defaults instead of leaving them empty:
	// the same gates.
	newer := strings.ReplaceAll(quietMeta, "v9.9.1: .\n", "v9.9.1: upstream's defaults.\n")
	if rn, err := parseRunInfo(newer); err != nil || strings.Join(rn.Gates, "|") != strings.Join(ri.Gates, "|") {
		t.Errorf("gates of a meta naming the defaults = %q, %v; want %q", rn.Gates, err, ri.Gates)
	}
	ri.Took, ri.DensityRunsMin, ri.DensityRunsMax = "1138 s", 1, 3
	h := ri.header()
	for _, want := range []string{"2026-11-26 23:57 UTC", "quiet machine", "BENCH_REPEAT=1", "BENCH_PARALLEL=4", "BENCH_DENSITY=10,110",
		"1 to 3 runs per way and N (fewer than the 3 a reference needs)", "SidecarContainerOrdering=true", "EventedPLEG=true ran beside", "took 1138 s"} {
		if !strings.Contains(h, want) {
			t.Errorf("header %q lacks %q", h, want)
		}
	}

	for name, meta := range map[string]string{
		"busy at the start":        strings.Replace(quietMeta, "The machine was quiet at the start (load ≤ 1.5, no other build).", "**A scratch run on a busy machine (load 3): not a reference.**", 1),
		"a build during the run":   quietMeta + "**A scratch run: compiler processes ran. Not a reference.**\n",
		"no record of the machine": strings.Replace(quietMeta, "The machine was quiet at the start (load ≤ 1.5, no other build).\n", "", 1),
	} {
		ri, err := parseRunInfo(meta)
		if err != nil || ri.Quiet {
			t.Errorf("%s: parseRunInfo = %+v, %v; want a run that is not quiet", name, ri, err)
		}
	}
	if _, err := parseRunInfo("no header\n"); err == nil {
		t.Error("parseRunInfo of a file without the run's line: no error")
	}
}

// bench figures writes nothing from a run not recorded as quiet.
func TestFiguresCmdRefusesBusyRun(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "meta.md")
	busy := strings.Replace(quietMeta, "The machine was quiet at the start", "**A scratch run on a busy machine", 1)
	if err := os.WriteFile(meta, []byte(busy), 0o644); err != nil {
		t.Fatal(err)
	}
	samples := filepath.Join(dir, "samples.jsonl")
	if err := os.WriteFile(samples, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "figures")
	err := FiguresCommand([]string{"-samples", samples, "-meta", meta, "-out", out})
	if err == nil || !strings.Contains(err.Error(), "quiet") {
		t.Fatalf("FiguresCommand of a busy run: %v, want a refusal", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("FiguresCommand of a busy run wrote its folder")
	}
	// The same files, quiet: every block.
	if err := os.WriteFile(meta, []byte(quietMeta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := FiguresCommand([]string{"-samples", samples, "-meta", meta, "-out", out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range figureBlocks {
		b, err := os.ReadFile(filepath.Join(out, name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "*Run of `make bench` of 2026-11-26 23:57 UTC") {
			t.Errorf("%s does not open with its run: %q", name, b)
		}
	}
}

func TestFiguresTables(t *testing.T) {
	ri, err := parseRunInfo(quietMeta)
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]map[string]*stats{
		"a0": {"fork/annotated": {N: 16, P50: 136, P95: 261}, "fork/poststart": {N: 16, P50: 183, P95: 656}, "fork/annotated-p10": {N: 16, P50: 900, P95: 1000}},
		"b":  {"fork/annotated": {N: 4, P50: 321, P95: 686}},
	}
	var single strings.Builder
	figuresSingle(&single, ri, sum)
	for _, want := range []string{"| p50 / p95 ms (n) | `fork/annotated` | `fork/poststart` |", "136 / 261 (16) | 183 / 656 (16) |", "| 321 / 686 (4) | — |"} {
		if !strings.Contains(single.String(), want) {
			t.Errorf("bench-single lacks %q:\n%s", want, single.String())
		}
	}
	if strings.Contains(single.String(), "annotated-p10") {
		t.Errorf("bench-single shows a way the docs do not compare:\n%s", single.String())
	}
	var samples strings.Builder
	figuresSamples(&samples, ri, sum)
	if !strings.Contains(samples.String(), "| b. Job: last app exit → pod Succeeded (API watch) | 4 |") {
		t.Errorf("bench-samples:\n%s", samples.String())
	}
	nan := math.NaN()
	sums := []densitySummary{{Way: "fork/annotated", N: 10, Runs: 3, AllReadyP50: 4350, AllReadyMin: 4200, AllReadyMax: 4500,
		APrimeP50: 130, APrimeP95: 272, APrimePartP50: [3]float64{14.1, 30, 82.1}, KubeletPerPod: 119, NodePerPod: nan}}
	var density strings.Builder
	figuresDensity(&density, ri, sums)
	if want := "| 10 | `fork/annotated` | 3 | 4.3 (4.2–4.5) | 130 / 272 | 14.1 | 82.1 | 119 | — |"; !strings.Contains(density.String(), want) {
		t.Errorf("bench-density lacks %q:\n%s", want, density.String())
	}
	if lo, hi := densityRunsRange(append(sums, densitySummary{Runs: 1})); lo != 1 || hi != 3 {
		t.Errorf("densityRunsRange = %d, %d; want 1, 3", lo, hi)
	}
}
