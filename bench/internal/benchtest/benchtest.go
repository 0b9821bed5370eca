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

// Package benchtest is what the tests of bench's packages share: records
// of runs built to order (results' types, their times chosen so that the
// figures come out round) and a strict parse of the SVG pictures. The
// same runs are read back by results' tests (the figures of one record),
// report's (the tables and verdicts of many) and measure's (the progress
// lines), so they are built here once rather than in each package's
// tests; no code outside tests imports it.
package benchtest

// Units of the records' times, which are Unix nanoseconds.
const (
	msNS = int64(1e6)
	sec  = int64(1e9)
)
