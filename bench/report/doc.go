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

// Package report turns a run's records (package results) into what is
// committed of it. bench report (Command) writes report.md, goals.md and
// the goals' one-line summary, the JSON documents of the samples,
// segments, probe rates and density runs, and the pictures (package
// pictures); bench figures (FiguresCommand) writes the blocks of
// docs/benchmarks.md that quote a quiet run. Between the two it summarizes
// the records (percentiles by scenario and way, by pod count, by chain)
// and judges them against the goals.
//
// It reads files and writes files, never the cluster, so that a fix of the
// report can write an earlier run's report again without measuring.
package report
