package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, vol string) // before the run
		args    func(vol string) []string
		wantErr string
		want    func(t *testing.T, vol string) // after a run without error
	}{
		{
			name: "create makes the folder, mode 0777 whatever the umask",
			args: func(vol string) []string {
				return []string{"-p", vol, "-s", "1048576", "-m", "Filesystem", "-a", "create"}
			},
			want: func(t *testing.T, vol string) {
				fi, err := os.Stat(vol)
				if err != nil {
					t.Fatal(err)
				}
				if !fi.IsDir() || fi.Mode().Perm() != 0o777 {
					t.Errorf("%s: mode %v, want a folder with 0777", vol, fi.Mode())
				}
			},
		},
		{
			name:  "create keeps a folder that is there, and its files",
			setup: func(t *testing.T, vol string) { write(t, filepath.Join(vol, "data")) },
			args:  func(vol string) []string { return []string{"-p", vol, "-a", "create"} },
			want: func(t *testing.T, vol string) {
				if _, err := os.Stat(filepath.Join(vol, "data")); err != nil {
					t.Error(err)
				}
			},
		},
		{
			name:  "delete removes the folder and what it holds",
			setup: func(t *testing.T, vol string) { write(t, filepath.Join(vol, "a", "b")) },
			args:  func(vol string) []string { return []string{"-p", vol, "-s", "0", "-m", "Filesystem", "-a", "delete"} },
			want: func(t *testing.T, vol string) {
				if _, err := os.Stat(vol); !os.IsNotExist(err) {
					t.Errorf("%s is still there (%v)", vol, err)
				}
				if _, err := os.Stat(filepath.Dir(vol)); err != nil {
					t.Errorf("the parent went too: %v", err)
				}
			},
		},
		{
			name: "delete of a folder that is gone succeeds",
			args: func(vol string) []string { return []string{"-p", vol, "-a", "delete"} },
		},
		{name: "no path", args: func(string) []string { return []string{"-a", "create"} }, wantErr: "no volume folder"},
		{name: "a relative path", args: func(string) []string { return []string{"-p", "pvc-1", "-a", "delete"} }, wantErr: "is not absolute"},
		{name: "the root", args: func(string) []string { return []string{"-p", "/./", "-a", "delete"} }, wantErr: "volume folder / refused"},
		{name: "an unknown action", args: func(vol string) []string { return []string{"-p", vol, "-a", "resize"} }, wantErr: `action "resize"`},
		{name: "no action", args: func(vol string) []string { return []string{"-p", vol} }, wantErr: `action ""`},
		{name: "a block volume", args: func(vol string) []string { return []string{"-p", vol, "-m", "Block", "-a", "create"} }, wantErr: "only Filesystem"},
		{name: "a stray argument", args: func(vol string) []string { return []string{"-p", vol, "-a", "create", "extra"} }, wantErr: "unexpected arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vol := filepath.Join(t.TempDir(), "pvc-1_default_claim")
			if tc.setup != nil {
				tc.setup(t, vol)
			}
			err := run(tc.args(vol), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("run: error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if tc.want != nil {
				tc.want(t, vol)
			}
		})
	}
}

func write(t *testing.T, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
