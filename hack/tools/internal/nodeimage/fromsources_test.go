package nodeimage

import (
	"archive/tar"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// layerTar writes a plain layer tarball of files (name → content; a
// content starting with "->" is a symbolic link to the rest).
func layerTar(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "layer.tar")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for name, content := range files {
		h := &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeReg, Size: int64(len(content))}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			h = &tar.Header{Name: name, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: target}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBaseFromLayers(t *testing.T) {
	img, err := BaseFromLayers([]string{
		layerTar(t, map[string]string{"etc/os-release": "bookworm", "sbin/init": "->/usr/lib/systemd/systemd"}),
		layerTar(t, map[string]string{"etc/os-release": "ours", "usr/local/bin/entrypoint": "#!/bin/sh"}),
	}, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := NodeConfig("amd64").Config
	if diff := cmp.Diff(want, cf.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if cf.Config.StopSignal != "SIGRTMIN+3" || cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("stop signal %q, platform %s/%s", cf.Config.StopSignal, cf.OS, cf.Architecture)
	}
	layers, _ := img.Layers()
	if len(layers) != 2 || len(cf.RootFS.DiffIDs) != 2 || len(cf.History) != 2 {
		t.Errorf("%d layers, %d diff IDs, %d history entries; want 2 of each", len(layers), len(cf.RootFS.DiffIDs), len(cf.History))
	}
	files, err := readFiles(img, []string{"/etc/os-release"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(files["etc/os-release"].data); got != "ours" {
		t.Errorf("etc/os-release = %q: the second layer should win", got)
	}
	if _, err := BaseFromLayers(nil, "amd64"); err == nil {
		t.Errorf("no layers: no error")
	}
	if _, err := BaseFromLayers([]string{filepath.Join(t.TempDir(), "missing.tar")}, "amd64"); err == nil {
		t.Errorf("missing layer: no error")
	}
}

func TestGlibcEnough(t *testing.T) {
	for _, tc := range []struct {
		needs, provides string
		ok              bool
	}{
		{"GLIBC_2.34", "GLIBC_2.36", true},
		{"GLIBC_2.36", "GLIBC_2.36", true},
		{"GLIBC_2.38", "GLIBC_2.36", false},
		{"GLIBC_2.9", "GLIBC_2.10", true}, // numbers, not strings
		{"GLIBC_3.0", "GLIBC_2.99", false},
	} {
		n, ok1 := parseGlibc(tc.needs)
		p, ok2 := parseGlibc(tc.provides)
		if !ok1 || !ok2 {
			t.Fatalf("cannot parse %s or %s", tc.needs, tc.provides)
		}
		if err := glibcEnough(n, p); (err == nil) != tc.ok {
			t.Errorf("needs %s, provides %s: err = %v, want ok %v", tc.needs, tc.provides, err, tc.ok)
		}
	}
	for _, bad := range []string{"GLIBC_PRIVATE", "GLIBCXX_3.4", "GLIBC_2", ""} {
		if _, ok := parseGlibc(bad); ok {
			t.Errorf("parseGlibc(%q) accepted it", bad)
		}
	}
}

// TestCheckRuns uses this machine's own binaries and glibc: a dynamically
// linked program (/bin/true) runs in a base that holds this machine's
// interpreter and libc.so.6 and not in one without them; a static one (Go's
// gofmt) runs anywhere.
func TestCheckRuns(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("reads this machine's x86-64 glibc")
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Skipf("needs %s: %v", p, err)
		}
		return b
	}
	dynamic := read("/bin/true")
	static := read(filepath.Join(runtime.GOROOT(), "bin", "gofmt"))
	libc := string(read("/lib/x86_64-linux-gnu/libc.so.6"))
	ld := string(read("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"))
	withGlibc := layerTar(t, map[string]string{
		"lib/x86_64-linux-gnu/libc.so.6":            libc,
		"lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": ld,
		"lib64/ld-linux-x86-64.so.2":                "->/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	})
	noLibc := layerTar(t, map[string]string{
		"lib64/ld-linux-x86-64.so.2":                "->/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": ld,
	})
	// Debian bookworm's layout: /lib64 and /lib are links into /usr.
	mergedUsr := layerTar(t, map[string]string{
		"usr/lib/x86_64-linux-gnu/libc.so.6":            libc,
		"usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": ld,
		"usr/lib64/ld-linux-x86-64.so.2":                "->/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"lib64":                                         "->usr/lib64",
		"lib":                                           "->usr/lib",
	})
	empty := layerTar(t, map[string]string{"etc/hostname": "node"})
	for _, tc := range []struct {
		name    string
		binary  []byte
		layer   string
		wantErr string
	}{
		{"dynamic kubelet, base with this glibc", dynamic, withGlibc, ""},
		{"dynamic kubelet, merged-/usr base with this glibc", dynamic, mergedUsr, ""},
		{"dynamic kubelet, base without libc", dynamic, noLibc, "no libc.so.6"},
		{"dynamic kubelet, base without its interpreter", dynamic, empty, "interpreter /lib64/ld-linux-x86-64.so.2"},
		{"static kubelet, empty base", static, empty, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := BaseFromLayers([]string{tc.layer}, "amd64")
			if err != nil {
				t.Fatal(err)
			}
			err = checkRuns(tc.binary, base)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("checkRuns: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("checkRuns: err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
