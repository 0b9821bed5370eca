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

// The host's memory cgroups between density runs. Every run of pods
// leaves its containers' memory cgroups dying, not gone: the page cache
// and kernel objects charged to them keep them until reclaimed. On the
// 2-core machine the benchmarks run on, a host with a few thousand of
// them starts containers markedly slower (stop 67: 110 pods took 70 to
// 88 s to be Ready as they piled up, about 50 s on a host with a few
// dozen), so a long benchmark drifts from its first runs to its last,
// and the paired comparisons read the drift as a difference of kubelets.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procCgroups and dropCaches are the kernel's files: variables for the
// tests.
var (
	procCgroups = "/proc/cgroups"
	dropCaches  = "/proc/sys/vm/drop_caches"
)

// parseMemoryCgroups reads the count of memory cgroups from the text of
// /proc/cgroups ("#subsys_name hierarchy num_cgroups enabled", one line a
// controller).
func parseMemoryCgroups(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "memory" {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s: memory line %q: not a count", procCgroups, sc.Text())
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no memory line", procCgroups)
}

// readMemoryCgroups is the host's count of memory cgroups, dying ones
// included, from procCgroups.
func readMemoryCgroups() (int, error) {
	f, err := os.Open(procCgroups)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseMemoryCgroups(f)
}

// memoryCgroups is readMemoryCgroups' count, 0 when it cannot be read (a
// run records it, it never fails on it).
func memoryCgroups() int {
	n, err := readMemoryCgroups()
	if err != nil {
		return 0
	}
	return n
}

// openDropCaches opens drop_caches for writing: written, never created
// (a host without the file has nothing to drop).
func openDropCaches() (*os.File, error) {
	f, err := os.OpenFile(dropCaches, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("dropping the host's page cache (needs root): %v", err)
	}
	return f, nil
}

// checkReclaim reports whether reclaimHost can drop the host's page
// cache, without dropping it: bench density -reclaim asks before any pod.
func checkReclaim() error {
	f, err := openDropCaches()
	if err != nil {
		return err
	}
	return f.Close()
}

// reclaimHost writes the dirty pages out and drops the host's page cache
// and reclaimable kernel objects (drop_caches 3), which frees the dying
// memory cgroups they held. It needs root and touches the whole host,
// not just the cluster: bench density does it only when asked
// (-reclaim, make bench's BENCH_RECLAIM=1), before each run, so that
// every run starts on the same host.
func reclaimHost() error {
	syscall.Sync()
	f, err := openDropCaches()
	if err != nil {
		return err
	}
	_, err = f.WriteString("3\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("dropping the host's page cache (needs root): %v", err)
	}
	return nil
}

// ReclaimCommand is bench reclaim: reclaimHost, and the memory cgroups
// before and after on stdout, for hack/bench/run.sh to run before each
// kubelet's turn of the one-pod ways (BENCH_RECLAIM=1), as bench density
// -reclaim does before each of its runs.
func ReclaimCommand(args []string) error {
	if len(args) > 0 {
		return errors.New("reclaim: takes no arguments")
	}
	before := memoryCgroups()
	if err := reclaimHost(); err != nil {
		return fmt.Errorf("reclaim: %v", err)
	}
	fmt.Fprintf(os.Stdout, "%d %d\n", before, memoryCgroups())
	return nil
}

// MemoryCgroupsCommand is bench memory-cgroups: the host's memory cgroups,
// dying ones included, on stdout, read by the parser bench density records
// them with, for hack/bench/run.sh's header and closing line. Unlike
// memoryCgroups it fails when the count cannot be read, so that the
// script writes "?" and never a count of 0.
func MemoryCgroupsCommand(args []string) error {
	if len(args) > 0 {
		return errors.New("memory-cgroups: takes no arguments")
	}
	n, err := readMemoryCgroups()
	if err != nil {
		return fmt.Errorf("memory-cgroups: %v", err)
	}
	fmt.Fprintln(os.Stdout, n)
	return nil
}
