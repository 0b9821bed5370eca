package nodeimage

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrimSystemd trims a stand-in of bookworm's systemd tree (merged /usr:
// lib and sbin are links into usr) and lists what is left.
func TestTrimSystemd(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"usr/lib", "usr/sbin", "etc/systemd/system"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"lib", "usr/lib"}, {"sbin", "usr/sbin"}} {
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{
		"usr/lib/systemd/systemd",
		"usr/lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service",
		"usr/lib/systemd/system/sysinit.target.wants/systemd-journald.service",
		"usr/lib/systemd/system/multi-user.target.wants/getty.target",
		"usr/lib/systemd/system/local-fs.target.wants/tmp.mount",
		"usr/lib/systemd/system/sockets.target.wants/systemd-udevd-control.socket",
		"usr/lib/systemd/system/sockets.target.wants/systemd-initctl.socket",
		"usr/lib/systemd/system/sockets.target.wants/systemd-journald.socket",
		"usr/lib/systemd/system/basic.target.wants/something.service",
		"etc/systemd/system/multi-user.target.wants/cron.service",
		"etc/systemd/system/timers.target.wants/apt-daily.timer",
		"etc/systemd/system/kubelet.service",
		"etc/systemd/journald.conf",
		"usr/sbin/init",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[Journal]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := TrimSystemd(root); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := filepath.Walk(filepath.Join(root, "usr"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	etc, _ := filepath.Glob(filepath.Join(root, "etc/systemd/system/*"))
	etc2, _ := filepath.Glob(filepath.Join(root, "etc/systemd/system/*/*"))
	for _, p := range append(etc, etc2...) {
		rel, _ := filepath.Rel(root, p)
		got = append(got, rel)
	}
	sort.Strings(got)
	want := []string{
		"etc/systemd/system/kubelet.service",
		"etc/systemd/system/multi-user.target.wants",
		"etc/systemd/system/systemd-binfmt.service",
		"etc/systemd/system/timers.target.wants",
		"usr/lib/systemd/system/sockets.target.wants/systemd-journald.socket",
		"usr/lib/systemd/system/sysinit.target.wants/systemd-journald.service",
		"usr/lib/systemd/systemd",
		"usr/sbin/init",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("left after trimming (-want +got):\n%s", diff)
	}
	for link, target := range map[string]string{"sbin/init": "/usr/lib/systemd/systemd", "etc/systemd/system/systemd-binfmt.service": "/dev/null"} {
		if got, err := os.Readlink(filepath.Join(root, link)); err != nil || got != target {
			t.Errorf("%s -> %q (%v), want -> %s", link, got, err, target)
		}
	}
	j, err := os.ReadFile(filepath.Join(root, "etc/systemd/journald.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(j), "\nReadKMsg=no\n") {
		t.Errorf("journald.conf = %q, want ReadKMsg=no appended", j)
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/a/b`:           "/a/b",
		`/a\040b/proc`:   "/a b/proc",
		`/a\011b`:        "/a\tb",
		`/trailing\04`:   `/trailing\04`,
		`/back\134slash`: `/back\slash`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}
