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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMemoryCgroups(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       int
		wantErr    bool
	}{
		{
			name: "cgroup v1/v2 hybrid",
			text: "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t5\t12\t1\ncpu\t3\t95\t1\nmemory\t4\t2566\t1\npids\t9\t95\t1\n",
			want: 2566,
		},
		{
			name: "cgroup v2 only: hierarchy 0",
			text: "#subsys_name\thierarchy\tnum_cgroups\tenabled\nmemory\t0\t11\t1\n",
			want: 11,
		},
		{name: "no memory controller", text: "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t3\t95\t1\n", wantErr: true},
		{name: "a count that is not one", text: "memory\t4\tmany\t1\n", wantErr: true},
		{name: "a negative count", text: "memory\t4\t-3\t1\n", wantErr: true},
		{name: "a short line", text: "memory\t4\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMemoryCgroups(strings.NewReader(tc.text))
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseMemoryCgroups: error %v, want one: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("parseMemoryCgroups = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestMemoryCgroupsAndReclaim(t *testing.T) {
	dir := t.TempDir()
	oldCgroups, oldDrop := procCgroups, dropCaches
	t.Cleanup(func() { procCgroups, dropCaches = oldCgroups, oldDrop })

	procCgroups = filepath.Join(dir, "cgroups")
	if got := memoryCgroups(); got != 0 {
		t.Errorf("memoryCgroups without the file = %d, want 0", got)
	}
	if err := os.WriteFile(procCgroups, []byte("memory\t4\t321\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := memoryCgroups(); got != 321 {
		t.Errorf("memoryCgroups = %d, want 321", got)
	}

	dropCaches = filepath.Join(dir, "drop_caches")
	if err := os.WriteFile(dropCaches, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkReclaim(); err != nil {
		t.Fatalf("checkReclaim: %v", err)
	}
	if b, _ := os.ReadFile(dropCaches); len(b) != 0 {
		t.Errorf("checkReclaim wrote %q to drop_caches, want nothing", b)
	}
	if err := reclaimHost(); err != nil {
		t.Fatalf("reclaimHost: %v", err)
	}
	if b, _ := os.ReadFile(dropCaches); string(b) != "3\n" {
		t.Errorf("drop_caches got %q, want %q", b, "3\n")
	}
	dropCaches = filepath.Join(dir, "no-such-dir", "drop_caches")
	if err := reclaimHost(); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("reclaimHost on a file it cannot write: error %v, want one that says it needs root", err)
	}
	if err := checkReclaim(); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("checkReclaim on a file it cannot write: error %v, want one that says it needs root", err)
	}
}

func TestReclaimCommand(t *testing.T) {
	dir := t.TempDir()
	oldCgroups, oldDrop := procCgroups, dropCaches
	t.Cleanup(func() { procCgroups, dropCaches = oldCgroups, oldDrop })
	procCgroups, dropCaches = filepath.Join(dir, "cgroups"), filepath.Join(dir, "drop_caches")
	if err := os.WriteFile(procCgroups, []byte("memory\t4\t99\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReclaimCommand([]string{"extra"}); err == nil {
		t.Error("ReclaimCommand with an argument: no error")
	}
	// No drop_caches to write (as for a user who is not root): an error,
	// which make bench stops on.
	if err := ReclaimCommand(nil); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("ReclaimCommand without drop_caches: error %v, want one that says it needs root", err)
	}
	if err := os.WriteFile(dropCaches, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReclaimCommand(nil); err != nil {
		t.Errorf("ReclaimCommand: %v", err)
	}
}

func TestMemoryCgroupsCommand(t *testing.T) {
	dir := t.TempDir()
	old := procCgroups
	t.Cleanup(func() { procCgroups = old })
	procCgroups = filepath.Join(dir, "cgroups")
	if err := MemoryCgroupsCommand(nil); err == nil {
		t.Error("MemoryCgroupsCommand without /proc/cgroups: no error (the script would write a count it did not read)")
	}
	if err := os.WriteFile(procCgroups, []byte("#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t2\t40\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MemoryCgroupsCommand(nil); err == nil {
		t.Error("MemoryCgroupsCommand without a memory line: no error")
	}
	if err := os.WriteFile(procCgroups, []byte("memory\t4\t99\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MemoryCgroupsCommand([]string{"extra"}); err == nil {
		t.Error("MemoryCgroupsCommand with an argument: no error")
	}
	if err := MemoryCgroupsCommand(nil); err != nil {
		t.Errorf("MemoryCgroupsCommand: %v", err)
	}
}
